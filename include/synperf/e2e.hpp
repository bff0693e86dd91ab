// SPDX-License-Identifier: Apache-2.0
#pragma once
/// \file End-to-end LLM inference latency: model configs, workload generator, overheads, memory fit and
/// static-batch execution (the shipped weights are opt-in: synperf/e2e/shipped_models.hpp).
#include "synperf/e2e/json_document.hpp"
#include "synperf/e2e/kernel_costs.hpp"
#include "synperf/e2e/memory.hpp"
#include "synperf/e2e/model_config.hpp"
#include "synperf/e2e/overheads.hpp"
#include "synperf/e2e/run.hpp"
#include "synperf/e2e/workload.hpp"
