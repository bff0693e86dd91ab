// SPDX-License-Identifier: Apache-2.0
#pragma once
/// \file Predictors: compile-time composition and the run-time path.

#include "synperf/predictor/analyze.hpp"
#include "synperf/predictor/calibration.hpp"
#include "synperf/predictor/prediction.hpp"
#include "synperf/predictor/predictor.hpp"
