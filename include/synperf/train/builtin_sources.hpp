// SPDX-License-Identifier: Apache-2.0
#pragma once
/// \file The training sources of every built-in family (`synperf::builtin_families`), each defined beside its data
/// reader: include this to call `train::source_of<F>()` or `train::sources_of<builtin_families>()`.
#include "synperf/data/allreduce_rows.hpp"
#include "synperf/data/attention_rows.hpp"
#include "synperf/data/elementwise_rows.hpp"
#include "synperf/data/fp8_linear_rows.hpp"
#include "synperf/data/gemm_fp8_rows.hpp"
#include "synperf/data/gemm_rows.hpp"
#include "synperf/data/moe_kernel_rows.hpp"
#include "synperf/data/moe_rows.hpp"
#include "synperf/data/rmsnorm_rows.hpp"
#include "synperf/data/silu_mul_rows.hpp"
#include "synperf/family/builtin.hpp"
#include "synperf/train/source.hpp"

namespace synperf::train {

static_assert(every_family_trainable<builtin_families>, "synperf: a built-in family has no training source");

}  // namespace synperf::train
