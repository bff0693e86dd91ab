// SPDX-License-Identifier: Apache-2.0
#pragma once
/// \file GPUs: the GpuSpec concept, numbers, occupancy, the built-in catalogue, run-time lookup and spec files.

#include "synperf/gpu/concept.hpp"
#include "synperf/gpu/numbers.hpp"
#include "synperf/gpu/occupancy.hpp"
#include "synperf/gpu/runtime_gpu.hpp"
#include "synperf/gpu/registry.hpp"
#include "synperf/gpu/spec_file.hpp"
#include "synperf/hw/catalogue.hpp"
