// SPDX-License-Identifier: Apache-2.0
#pragma once
/// \file Umbrella header: the whole core library, without ext/ and train/ (optional dependencies),
/// testing/ (doctest) and models/ (embedded weights, opt-in: `#include <synperf/models/gemm.hpp>`).

#include "synperf/error.hpp"
#include "synperf/gpu.hpp"
#include "synperf/work.hpp"
#include "synperf/scheduler.hpp"
#include "synperf/features.hpp"
#include "synperf/family.hpp"
#include "synperf/mlp.hpp"
#include "synperf/cost.hpp"
#include "synperf/predictor.hpp"
#include "synperf/data.hpp"
#include "synperf/e2e.hpp"
