// SPDX-License-Identifier: Apache-2.0
#pragma once
/// \file Umbrella header: the whole core library, without ext/ (optional dependencies) and testing/ (doctest).
///
/// A folder with an aggregator `synperf/X.hpp` is included through it; the others through their headers.

#include "synperf/error.hpp"

#include "synperf/gpu/concept.hpp"
#include "synperf/gpu/numbers.hpp"
#include "synperf/gpu/runtime_gpu.hpp"

#include "synperf/work/launch.hpp"
#include "synperf/work/task.hpp"

#include "synperf/scheduler/concept.hpp"

#include "synperf/mlp/network.hpp"
