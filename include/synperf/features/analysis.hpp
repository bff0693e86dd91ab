// SPDX-License-Identifier: Apache-2.0
#pragma once
/// \file Feature analyzer: scheduled kernels -> task-, SM- and GPU-level cycle counts and the theoretical time.
#include <algorithm>
#include <cmath>
#include <string>
#include <string_view>
#include <vector>

#include "synperf/error.hpp"
#include "synperf/gpu/numbers.hpp"
#include "synperf/scheduler/concept.hpp"
#include "synperf/work/launch.hpp"
#include "synperf/work/task.hpp"

namespace synperf::features {

/// The pipe or memory level that sets a kernel's theoretical time.
enum class bottleneck { tensor, fma, xu, dram, l2, smem, latency, launch };

[[nodiscard]] constexpr std::string_view to_string(bottleneck b) noexcept {
    switch (b) {
        case bottleneck::tensor: return "tensor";
        case bottleneck::fma: return "fma";
        case bottleneck::xu: return "xu";
        case bottleneck::dram: return "dram";
        case bottleneck::l2: return "l2";
        case bottleneck::smem: return "smem";
        case bottleneck::latency: return "latency";
        case bottleneck::launch: return "launch";
    }
    return "?";
}

/// Nominal round trip of a global access that misses L1, in cycles (about 500-700 on A100, A40 and H100
/// class GPUs; 641-673 from DRAM on an H200, bench/measure/h200_sxm/memory_latency.csv). It scales the
/// latency floor of kernels that model their memory rounds; a nominal value, so that floor is not a strict
/// bound and the efficiency model learns each GPU's actual latency.
inline constexpr double nominal_memory_latency_cycles = 600.0;

/// Nominal unloaded round trip of a global access that hits L2, in cycles (about 200-300 on A100 and H100
/// class GPUs; 290-301 on an H200, bench/measure/h200_sxm/memory_latency.csv). A floor that adds its memory
/// rounds to the footprint's transfer (`kernel_launch::rounds_then_stream`) counts each round at this latency:
/// the bytes' own time is already in the transfer term, so the rounds add only the wait a thread cannot
/// overlap, and the sum stays a bound.
inline constexpr double nominal_l2_hit_cycles = 300.0;

/// Least time between two CTAs dispatched to one SM, in cycles: back-to-back grids of nearly empty CTAs on an
/// H200 take 105 (1 to 8 CTAs per SM) to 157 (8 to 64) more cycles per added CTA per SM
/// (bench/measure/h200_sxm/launch_floor.csv). A one-CTA-per-row kernel pays it once per resident CTA per wave.
inline constexpr double nominal_cta_dispatch_cycles = 100.0;

/// Latency the floor charges per memory round of launch `k`.
[[nodiscard]] constexpr double memory_round_cycles(const work::kernel_launch& k) noexcept {
    return k.rounds_then_stream ? nominal_l2_hit_cycles : nominal_memory_latency_cycles;
}

/// Cycle counts of one scheduled kernel (tensor clock).
struct kernel_features {
    work::pipe_cycles all;     ///< whole-GPU work / whole-GPU rate (every SM busy)
    work::pipe_cycles sm_max;  ///< busiest SM's work / one SM's rate (imbalance, wave quantization)
    double makespan_cycles = 0;     ///< scheduler's makespan
    double compulsory_tensor_cycles = 0;  ///< compulsory tensor work with every SM at its peak rate
    double compulsory_fma_cycles = 0;     ///< compulsory FP32 FMA-pipe work, likewise
    double compulsory_xu_cycles = 0;      ///< compulsory XU (MUFU) work, likewise
    double compulsory_dram_cycles = 0;  ///< compulsory bytes that cannot stay in L2, at full DRAM bandwidth
    double resident_l2_cycles = 0;      ///< compulsory bytes L2 can hold, at full L2 bandwidth
    double theoretical_cycles = 0;      ///< lower bound: max over pipes (whole GPU) and memory levels
    /// waves x memory rounds x `memory_round_cycles`; with `rounds_then_stream` plus each wave's CTA dispatches
    /// (`nominal_cta_dispatch_cycles` per resident CTA) and the footprint at L2 bandwidth (0 when not modelled)
    double latency_floor_cycles = 0;
    double launch_floor_cycles = 0;     ///< the launch's own floor (`kernel_launch::launch_floor_us`)
    /// Least time of the grid's CTAs held in their slots (`kernel_launch::cta_round_trips`), per SM on average:
    /// each CTA's dispatch (`nominal_cta_dispatch_cycles`, one after another on an SM) and its round trips at an
    /// unloaded L2 hit (`nominal_l2_hit_cycles`) shared among the SM's slots; 0 when not modelled.
    double cta_residency_cycles = 0;
    /// The kernel's least time as decomposed: its bound, or, when its dispatch is exact
    /// (`kernel_launch::exact_dispatch`), its busiest SM's tensor, FMA or XU time if longer, and at least its CTAs'
    /// residency (`cta_residency_cycles`). Memory bandwidth terms stay out: an SM can draw more than its share of
    /// L2 or DRAM bandwidth while others idle.
    double kernel_floor_cycles = 0;
    bottleneck limiter = bottleneck::tensor;
    double waves = 0;
    double tasks = 0;
    int slots_per_sm = 1;
    int busy_sms = 0;
    work::task_work total;   ///< whole-kernel work

    /// CTAs resident together on the busiest SM: its share of the grid, at most the occupancy.
    [[nodiscard]] double resident_ctas_per_sm(const gpu::gpu_numbers& g) const noexcept {
        return std::min(double(std::max(slots_per_sm, 1)), std::ceil(tasks / double(g.sm_count)));
    }
};

/// Analyzes one kernel after scheduling.
///
/// The theoretical time is a lower bound on the measured time: the GPU must run the kernel's compulsory
/// tensor, FMA and XU work with every SM at peak rate, move the bytes that cannot stay resident in L2 at
/// DRAM bandwidth and the rest at L2 bandwidth (`kernel_launch::compulsory`). Wave quantization, imbalance
/// (the busiest SM's cycles), tile padding and tile re-reads are features only: they depend on launch
/// choices a library may make better than the decomposer guesses, so charging them would break the bound.
/// The one exception is a kernel that states its memory rounds (`kernel_launch::memory_rounds`), whose launch
/// is fixed by its code: its time is at least its waves' dependent memory round trips at a nominal latency;
/// and a kernel that states a launch floor takes at least that long.
[[nodiscard]] inline kernel_features analyze(const work::kernel_launch& k, const scheduler::schedule_result& s,
                                             const gpu::gpu_numbers& g) {
    kernel_features f;
    f.total = s.total;
    f.all = work::sm_cycles(s.total, g);
    const double sms = g.sm_count;
    f.all.tensor /= sms;
    f.all.fma /= sms;
    f.all.xu /= sms;
    f.all.dram /= sms;
    f.all.l2 /= sms;
    f.all.smem /= sms;
    f.sm_max = work::sm_cycles(s.sm_max, g);
    f.makespan_cycles = s.makespan_cycles;
    const work::task_work floor = k.compulsory.value_or(s.total);
    work::pipe_cycles bound = work::sm_cycles(floor, g);
    bound.tensor /= sms;
    bound.fma /= sms;
    bound.xu /= sms;
    f.compulsory_tensor_cycles = bound.tensor;
    f.compulsory_fma_cycles = bound.fma;
    f.compulsory_xu_cycles = bound.xu;
    f.compulsory_dram_cycles = floor.dram_bytes / g.dram_bytes_per_clk();
    f.resident_l2_cycles = k.compulsory ? floor.l2_bytes / g.l2_bytes_per_clk() : 0.0;
    f.waves = s.waves;
    f.tasks = static_cast<double>(s.tasks);
    f.slots_per_sm = s.slots_per_sm;
    f.busy_sms = s.busy_sms;
    const auto require_floor_input = [&k](const char* field, double value) {
        if (!(std::isfinite(value) && value >= 0.0))
            synperf::detail::report_error("kernel '" + k.name + "': " + field + " must be finite and >= 0, got " +
                                          std::to_string(value));
    };
    require_floor_input("memory_rounds", k.memory_rounds);
    f.latency_floor_cycles = s.waves * k.memory_rounds * memory_round_cycles(k);
    if (k.rounds_then_stream && f.latency_floor_cycles > 0) {
        // Each wave also dispatches its CTAs one after another on the SM.
        f.latency_floor_cycles += s.waves * f.resident_ctas_per_sm(g) * nominal_cta_dispatch_cycles;
        f.latency_floor_cycles += (floor.dram_bytes + floor.l2_bytes) / g.l2_bytes_per_clk();
    }
    require_floor_input("launch_floor_us", k.launch_floor_us);
    f.launch_floor_cycles = k.launch_floor_us * g.tensor_clock_mhz;

    struct candidate {
        double cycles;
        bottleneck b;
    };
    const candidate c[] = {{bound.tensor, bottleneck::tensor},
                           {bound.fma, bottleneck::fma},
                           {bound.xu, bottleneck::xu},
                           {f.compulsory_dram_cycles, bottleneck::dram},
                           {f.resident_l2_cycles, bottleneck::l2},
                           {f.latency_floor_cycles, bottleneck::latency},
                           {f.launch_floor_cycles, bottleneck::launch}};
    const auto best = std::max_element(std::begin(c), std::end(c),
                                       [](const candidate& a, const candidate& b) { return a.cycles < b.cycles; });
    f.theoretical_cycles = best->cycles;
    f.limiter = best->b;
    f.kernel_floor_cycles = k.exact_dispatch ? std::max({f.theoretical_cycles, f.sm_max.tensor, f.sm_max.fma, f.sm_max.xu})
                                             : f.theoretical_cycles;
    require_floor_input("cta_round_trips", k.cta_round_trips);
    if (k.cta_round_trips > 0) {
        // Averages over the SMs, so the busiest SM takes at least as long. The dispatches are serial on an SM; a
        // CTA's round trips overlap those of the other CTAs resident with it, and with one slot also its
        // successor's dispatch waits for them.
        const double dispatches = f.tasks / sms * nominal_cta_dispatch_cycles;
        const double round_trips = k.cta_round_trips / sms * nominal_l2_hit_cycles;
        f.cta_residency_cycles = std::max(dispatches, (dispatches + round_trips) / double(std::max(f.slots_per_sm, 1)));
        f.kernel_floor_cycles = std::max(f.kernel_floor_cycles, f.cta_residency_cycles);
    }
    return f;
}

/// Microseconds for a cycle count at the tensor clock.
[[nodiscard]] constexpr double cycles_to_us(double cycles, const gpu::gpu_numbers& g) noexcept {
    return cycles / g.tensor_clock_mhz;
}

}  // namespace synperf::features
