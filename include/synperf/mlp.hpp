// SPDX-License-Identifier: Apache-2.0
#pragma once
/// \file Efficiency MLPs: the network type, its checks, the evaluator and the text weights format.
///
/// The embedded models (synperf/models/<family>.hpp) are opt-in and not included here: each one carries
/// its weights as text and costs compile time.
#include "synperf/mlp/compiled.hpp"
#include "synperf/mlp/ensemble.hpp"
#include "synperf/mlp/evaluate.hpp"
#include "synperf/mlp/format.hpp"
#include "synperf/mlp/network.hpp"
#include "synperf/mlp/validate.hpp"
