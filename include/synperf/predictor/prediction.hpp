// SPDX-License-Identifier: Apache-2.0
#pragma once
/// \file What a prediction returns.
#include <algorithm>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace synperf {

/// The terms of a kernel's lower bound, in µs; the bound is the largest. Where it binds, and how much room the
/// other pipes and memory levels leave: what a kernel author reads to see which resource the kernel must saturate.
struct bound_terms {
    double tensor_us = 0;   ///< compulsory tensor-core work with every SM at its peak rate
    double fma_us = 0;      ///< compulsory FP32 FMA-pipe work, likewise
    double xu_us = 0;       ///< compulsory XU (MUFU: exp, rsqrt) work, likewise
    double dram_us = 0;     ///< compulsory bytes that cannot stay in L2, at DRAM bandwidth
    double l2_us = 0;       ///< compulsory bytes L2 can hold, at L2 bandwidth
    double latency_us = 0;  ///< the memory-round floor of a kernel that states its rounds (0: none)
    double launch_us = 0;   ///< the kernel's own launch floor (0: none)

    [[nodiscard]] constexpr double max() const noexcept {
        return std::max({tensor_us, fma_us, xu_us, dram_us, l2_us, latency_us, launch_us});
    }
};

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
    bound_terms bound;             ///< the terms whose largest is `theoretical_us`
    /// The busiest SM's tensor, FMA and XU work at one SM's rates, never below the bound: what the launch's shape
    /// (waves, imbalance, tile padding) adds to the bound before any memory or latency effect. Memory terms stay
    /// out: an SM can draw more than its share of L2 or DRAM bandwidth while others idle.
    double busiest_sm_us = 0;
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
    /// What the prediction's reader should know: inputs outside the range the model was trained on (and the edge value
    /// it read instead), an efficiency at the lowest one it was trained on, an op larger than the GPU's memory.
    std::vector<std::string> warnings;
};

/// The latency of an op: its bound over the cost model's efficiency, never below its kernel floor.
[[nodiscard]] inline double floored_latency_us(double theoretical_us, double efficiency, double kernel_floor_us) noexcept {
    return std::max(theoretical_us / efficiency, kernel_floor_us);
}

}  // namespace synperf
