// SPDX-License-Identifier: Apache-2.0
#pragma once
/// \file What a prediction returns.
#include <algorithm>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace synperf {

/// One kernel of a predicted op.
struct kernel_report {
    std::string name;              ///< the decomposer's kernel name (tile, stages, splits)
    std::int64_t tasks = 0;        ///< CTAs or work units
    double waves = 0;              ///< ceil(tasks / (slots * SMs)), or per persistent CTA
    int ctas_per_sm = 0;           ///< resident CTAs per SM
    int busy_sms = 0;              ///< SMs that received work
    double theoretical_us = 0;     ///< this kernel's lower bound
    std::string_view bottleneck;   ///< pipe or memory level that sets the bound
    double imbalance = 1;          ///< busiest SM's cost / mean SM cost
    std::string kind;              ///< what an auxiliary kernel does (`work::kernel_launch::kind`); empty for the family's own
    bool priced_apart = false;     ///< priced at its own floor, outside the cost model (a kind it was not trained with)
};

/// A latency prediction for one op (one or more kernels).
struct prediction {
    double latency_us = 0;       ///< the cost model's latency, never below the kernel floor, plus `priced_apart_us`
    double efficiency = 0;       ///< theoretical / (latency - priced_apart_us), from the cost model (and the kernel floor)
    double theoretical_us = 0;   ///< sum of the lower bounds of the kernels the cost model prices
    /// Sum of the least times, as decomposed, of the kernels the cost model prices
    /// (`features::kernel_features::kernel_floor_cycles`), and at least one back-to-back launch
    /// (`work::back_to_back_launch_us(g)`) per kernel: equal to `theoretical_us` unless a kernel's dispatch is exact
    /// and its busiest SM needs longer, or the op is shorter than its launches. The cost model's latency is never
    /// below it.
    double kernel_floor_us = 0;
    /// Time of the kernels priced apart (`kernel_report::priced_apart`): each at its own floor, at least one launch
    /// back to back; added to the cost model's latency as it is. 0 when the model prices every kernel.
    double priced_apart_us = 0;
    std::string_view bottleneck; ///< the main kernel's limiting pipe
    std::vector<kernel_report> kernels;
    std::vector<double> features;  ///< the cost model's numeric inputs
};

/// The latency of an op: its bound over the cost model's efficiency, never below its kernel floor.
[[nodiscard]] inline double floored_latency_us(double theoretical_us, double efficiency, double kernel_floor_us) noexcept {
    return std::max(theoretical_us / efficiency, kernel_floor_us);
}

}  // namespace synperf
