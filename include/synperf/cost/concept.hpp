// SPDX-License-Identifier: Apache-2.0
#pragma once
/// \file The CostModel concept: features -> efficiency (theoretical time / measured time).
#include <concepts>
#include <cstddef>
#include <span>

#include "synperf/work/kernel_kinds.hpp"

namespace synperf::cost {

/// The least efficiency a cost model may return: below it a latency would be over a billion times its bound,
/// which no measurement gives and a corrupt or saturated model does.
inline constexpr double min_credible_efficiency = 1e-9;

/// A cost model maps a family's feature vector and framework level to an efficiency in
/// [`min_credible_efficiency`, 1].
///
/// Requires:
/// - `c.efficiency(features, framework_level)` -> `double` in [1e-9, 1]; latency = theoretical / efficiency. The
///   predictors check it: any other value (an underflowed sigmoid, NaN) throws `invalid_argument`.
/// Optionally `c.trained_kernels()` -> `const work::kernel_kind_set&`: the auxiliary kernels the model was trained
/// with; a predictor prices a kernel of another kind apart, at its own floor (`priced_kernels(c)`). Without it, every
/// kernel goes through the model.
/// Models: `mlp_cost` (the trained MLP), `roofline_cost` (efficiency 1: the theoretical time itself).
/// See: docs/concepts.md#costmodel
template <class C>
concept CostModel = requires(const C& c, std::span<const double> features, std::size_t framework_level) {
    { c.efficiency(features, framework_level) } -> std::convertible_to<double>;
};

/// The auxiliary kernels cost model `c` prices (every kind unless it says otherwise, see `CostModel`).
template <CostModel C>
[[nodiscard]] const work::kernel_kind_set& priced_kernels(const C& c) noexcept {
    if constexpr (requires { { c.trained_kernels() } -> std::convertible_to<const work::kernel_kind_set&>; }) {
        return c.trained_kernels();
    } else {
        return work::every_kernel_kind();
    }
}

}  // namespace synperf::cost
