// SPDX-License-Identifier: Apache-2.0
#pragma once
/// \file A cost model that predicts the theoretical time itself (efficiency 1).
#include <cstddef>
#include <span>

#include "synperf/cost/concept.hpp"

namespace synperf::cost {

/// Efficiency 1: latency equals the decomposition's lower bound. Useful as a baseline and in constexpr code.
struct roofline_cost {
    [[nodiscard]] constexpr double efficiency(std::span<const double>, std::size_t) const noexcept { return 1.0; }
};

static_assert(CostModel<roofline_cost>);

}  // namespace synperf::cost
