// SPDX-License-Identifier: Apache-2.0
#pragma once
/// \file Cost models: the CostModel concept, the MLP and the roofline.

#include "synperf/cost/concept.hpp"
#include "synperf/cost/mlp_cost.hpp"
#include "synperf/cost/roofline_cost.hpp"
#include "synperf/cost/shipped.hpp"
