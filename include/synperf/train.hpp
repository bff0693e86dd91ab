// SPDX-License-Identifier: Apache-2.0
#pragma once
/// \file Umbrella header of the train add-on (target synperf::train: xtensor, xtensor-blas, BLAS): the measured
/// data readers with every built-in family's training source, samples and their encoding, the protocol's folds,
/// the MLP trainer, the baselines and the leave-GPU-out evaluation.

#include "synperf/data.hpp"
#include "synperf/predictor/analyze.hpp"
#include "synperf/train/analyze_rows.hpp"
#include "synperf/train/baselines.hpp"
#include "synperf/train/builtin_sources.hpp"
#include "synperf/train/efficiency_model.hpp"
#include "synperf/train/encoding.hpp"
#include "synperf/train/evaluation.hpp"
#include "synperf/train/linear_baseline.hpp"
#include "synperf/train/metrics.hpp"
#include "synperf/train/mlp_trainer.hpp"
#include "synperf/train/protocol_folds.hpp"
#include "synperf/train/sample.hpp"
#include "synperf/train/source.hpp"
#include "synperf/train/subsample.hpp"
