// SPDX-License-Identifier: Apache-2.0
#pragma once
/// \file Work: task classes and kernel launches.

#include "synperf/work/task.hpp"
#include "synperf/work/launch.hpp"
#include "synperf/work/kernel_kinds.hpp"
