// SPDX-License-Identifier: Apache-2.0
#pragma once
/// \file The CostModel concept: features -> efficiency (theoretical time / measured time).
#include <concepts>
#include <cstddef>
#include <span>

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
/// Models: `mlp_cost` (the trained MLP), `roofline_cost` (efficiency 1: the theoretical time itself).
/// See: docs/concepts.md#costmodel
template <class C>
concept CostModel = requires(const C& c, std::span<const double> features, std::size_t framework_level) {
    { c.efficiency(features, framework_level) } -> std::convertible_to<double>;
};

}  // namespace synperf::cost
