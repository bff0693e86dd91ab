// SPDX-License-Identifier: Apache-2.0
#pragma once
/// \file One kernel launch: resources per CTA, how its work is dispatched, and its task classes.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "synperf/error.hpp"
#include "synperf/gpu/numbers.hpp"
#include "synperf/work/task.hpp"

namespace synperf::work {

/// Per-CTA resources that decide occupancy.
struct launch_config {
    int threads_per_cta = 128;  ///< threads per CTA
    int regs_per_thread = 32;   ///< registers per thread at launch
    int smem_per_cta = 0;       ///< dynamic + static shared memory per CTA, bytes
};

/// Who assigns work to SMs.
enum class dispatch_kind {
    hardware,             ///< one CTA per task, hardware block scheduler (round robin over free slots)
    persistent_static,    ///< persistent CTAs, work unit j to CTA j mod grid (CUTLASS static scheduler)
    persistent_longest_first,  ///< persistent CTAs, longest unit first to the least-loaded CTA (FA3, FlashInfer plan)
};

[[nodiscard]] constexpr bool is_persistent(dispatch_kind d) noexcept { return d != dispatch_kind::hardware; }

/// A kernel: launch resources, dispatch, and its tasks in grid order.
struct kernel_launch {
    std::string name;                  ///< what runs, e.g. "sm90_ws_persistent_128x256x64_4stage"
    /// What an auxiliary kernel does in the op, whatever its shape and library (e.g. "fp8_cast", "kv_cache_store");
    /// empty for the kernels the family's model is about. A cost model that records the kinds its training ops ran
    /// (`kernel_kind_set`) prices a kernel of another kind apart, at its own floor: no op it learned from had one.
    std::string kind;
    launch_config launch;              ///< per-CTA resources
    dispatch_kind dispatch = dispatch_kind::hardware;
    std::int64_t persistent_ctas = 0;  ///< persistent grid size (0: one CTA per SM slot, capped at the units)
    std::vector<task_class> tasks;     ///< task classes in grid / work-unit order
    /// The kernel's compulsory work, whatever tiling the library picks: useful tensor/FMA/XU ops, the bytes
    /// that cannot stay resident in L2 (`dram_bytes`) and the bytes L2 can serve (`l2_bytes`). The theoretical
    /// time (a lower bound) is computed from it; when absent, from the scheduled tasks' total work.
    std::optional<task_work> compulsory;
    /// Global-memory rounds each thread of a CTA goes through in order (0: not modelled): one per group of
    /// loads that miss on chip (loads issued together overlap) and one per store; loads that hit L1 or L2
    /// (data the CTA just touched, a small tensor every CTA shares) add none. A kernel whose launch the code
    /// fixes (one CTA per token, narrow accesses) cannot hide memory latency when its grid is small: its
    /// theoretical time is then at least waves x rounds x a nominal latency.
    double memory_rounds = 0;
    /// Whether those rounds come on top of the footprint's transfer instead of overlapping it: a grid of
    /// one-CTA-per-row kernels whose waves run back to back pays, per wave, its threads' round trips, and the
    /// bytes still pass through L2; the floor is then, per wave, rounds x latency plus the dispatch of its resident
    /// CTAs, and then the footprint at L2 bandwidth.
    bool rounds_then_stream = false;
    /// Least time the launch itself adds to an op timed around several kernels (0: not modelled): a kernel
    /// issued back to back on a stream still takes its launch and drain, so an op of tiny kernels is bounded
    /// by their count, not by their (near zero) work. See `back_to_back_launch_us(g)`.
    double launch_floor_us = 0;
    /// Dependent global-memory round trips of all the grid's CTAs together, counted from the kernel's code (0: not
    /// modelled): a CTA holds its slot from its dispatch until its last dependent load returns, so with few slots per
    /// SM a grid of many short CTAs (SGLang's Triton decode launches eight split CTAs per head, most of which load
    /// two lengths and exit) takes at least its CTAs' dispatches and round trips, shared among the slots. That
    /// floor bounds the prediction from below (`features::kernel_features::kernel_floor_cycles`) and stays out of
    /// the theoretical time the cost model scales: no kernel a model is trained on is bound by it, so a model
    /// would read such a bound as it reads any other and predict its usual efficiency below it.
    double cta_round_trips = 0;
    /// Whether the decomposition is the library's own kernel choice (tile, schedule, grid), read from its public
    /// dispatch code, rather than a stand-in for a closed or unknown one. Then the busiest SM's pipe work is work
    /// the real kernel does on one SM, and no run can be faster (`features::kernel_features::kernel_floor_cycles`).
    bool exact_dispatch = false;
};

/// Shared memory per CTA of a kernel whose code fixes its tiles: `wanted`, its buffers as estimated (pipeline stages
/// and staging included), capped at what one CTA of `g` may hold (`smem_per_cta_bytes`), since a library sizes its
/// stages to the GPU it runs on and the estimate may overshoot that. `essential` is what one stage of the tiles needs;
/// a GPU whose CTAs cannot hold it does not run the kernel (a smaller tile would be another kernel), which is an error
/// naming both sizes.
[[nodiscard]] inline int tile_smem(double wanted, double essential, const gpu::gpu_numbers& g, const std::string& kernel) {
    if (!(essential >= 0.0 && essential <= double(g.smem_per_cta_bytes))) {
        const std::string need = essential >= 0.0 && essential < 1e15
                                     ? std::to_string(static_cast<long long>(std::ceil(essential)))
                                     : synperf::detail::approx(essential);
        synperf::detail::report_error(kernel + ": one stage of its tiles needs " + need +
                                      " bytes of shared memory per CTA; this GPU gives one CTA at most " +
                                      std::to_string(g.smem_per_cta_bytes) + " (smem_per_cta_bytes)");
    }
    return static_cast<int>(std::clamp(wanted, essential, double(g.smem_per_cta_bytes)));
}

/// Launch floor of one kernel issued back to back, in SM cycles at the boost clock: a round floor for the ops the data
/// times, not a bound on every kernel. 1980 cycles is 1 µs at H100's and H200's 1980 MHz; there a nearly empty kernel
/// replayed back to back from a CUDA graph takes 0.82 µs with 132 CTAs and 1.19 µs with 1056 (0.60 µs with one CTA;
/// bench/measure/launch_floor.cu), launched from a stream about 4 µs. The smallest time per kernel of any op in the
/// attention tables is 1.6 µs (five small kernels in 8.2 µs).
inline constexpr double back_to_back_launch_cycles = 1980.0;

/// The launch floor on `g`, in microseconds. Counted in cycles of the boost clock because the smallest ops scale with
/// the clock a GPU runs at when its work is too small to be power-limited: TensorRT-LLM's smallest MMHA decode op
/// takes 10.9 µs on A100 (1410 MHz) and 7.7 µs on H100 (1980 MHz), 15.4 and 15.2 thousand cycles.
[[nodiscard]] constexpr double back_to_back_launch_us(const gpu::gpu_numbers& g) noexcept {
    return back_to_back_launch_cycles / g.boost_clock_mhz;
}

}  // namespace synperf::work
