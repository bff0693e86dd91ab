// SPDX-License-Identifier: Apache-2.0
#pragma once
/// \file `analyze<F>`: a problem's decomposition on a GPU up to the cost model (kernels, bound, features).
///
/// What a predictor computes before it asks its cost model for an efficiency: training a cost model needs
/// exactly this for each measured row.
#include "synperf/family/concept.hpp"
#include "synperf/gpu/numbers.hpp"
#include "synperf/predictor/prediction.hpp"
#include "synperf/predictor/predictor.hpp"
#include "synperf/work/kernel_kinds.hpp"

namespace synperf {

/// Decomposes `p` on the GPU `g` and analyzes its kernels, each scheduled as its dispatch kind asks: the
/// prediction's kernels, theoretical time, kernel floor and features, without latency or efficiency. A kernel
/// whose kind `priced` does not cover is priced apart (`prediction::priced_apart_us`) and left out of the
/// features and bound, as a cost model trained without such kernels prices it.
template <family::KernelFamily F>
[[nodiscard]] prediction analyze(const typename F::problem_type& p, const gpu::gpu_numbers& g,
                                 const work::kernel_kind_set& priced = work::every_kernel_kind()) {
    return predictor_detail::analyze<F>(p, g, predictor_detail::schedule_by_dispatch{}, priced);
}

}  // namespace synperf
