// SPDX-License-Identifier: Apache-2.0
#pragma once
/// \file The feature analyzer.

#include "synperf/features/analysis.hpp"
