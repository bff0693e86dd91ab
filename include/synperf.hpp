// SPDX-License-Identifier: Apache-2.0
#pragma once
/// \file Umbrella header of synperf::core (standard library and Boost.Hana only). The add-ons have their own:
/// <synperf/models.hpp> (the shipped weights, generated at build time), <synperf/e2e.hpp> (end-to-end LLM
/// inference) and <synperf/train/...> with <synperf/data.hpp> (data readers and the trainer); ext/ and testing/
/// hold the xtensor and doctest glue.

#include "synperf/error.hpp"
#include "synperf/gpu.hpp"
#include "synperf/work.hpp"
#include "synperf/scheduler.hpp"
#include "synperf/features.hpp"
#include "synperf/family.hpp"
#include "synperf/mlp.hpp"
#include "synperf/cost.hpp"
#include "synperf/predictor.hpp"
