// SPDX-License-Identifier: Apache-2.0
#pragma once
/// \file Schedulers: the concept, the hardware block scheduler, the persistent software scheduler and the
/// run-time dispatcher.

#include "synperf/scheduler/concept.hpp"
#include "synperf/scheduler/hardware_round_robin.hpp"
#include "synperf/scheduler/min_heap_persistent.hpp"
#include "synperf/scheduler/run.hpp"
