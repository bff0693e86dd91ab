// SPDX-License-Identifier: Apache-2.0
#pragma once
/// \file Resident CTAs per SM for a launch: the CUDA occupancy calculator's formula.
///
/// w = ceil(threads / 32); registers are allocated per warp in units of 256 and warps in groups of 4;
/// shared memory per CTA is rounded up to 128 B plus 1 KB the driver reserves. The result is the minimum
/// of the limits set by warps, registers, shared memory and the CTA slots (see docs/kernels.md#occupancy).
#include <algorithm>
#include <string>

#include "synperf/error.hpp"
#include "synperf/gpu/numbers.hpp"
#include "synperf/work/launch.hpp"

namespace synperf::gpu {

/// The per-SM resource that bounds the number of resident CTAs.
enum class occupancy_limit {
    warps,          ///< resident warps per SM
    registers,      ///< register file
    shared_memory,  ///< shared memory (carveout)
    ctas,           ///< resident CTA slots per SM
};

/// Occupancy of one launch on one GPU, with every limit spelled out.
struct occupancy_result {
    int ctas_per_sm = 0;            ///< resident CTAs per SM: the minimum of the four limits (0: does not fit)
    occupancy_limit limit = occupancy_limit::warps;  ///< the binding limit (ties: first of warps, registers, shared_memory, ctas)
    int ctas_by_warps = 0;          ///< CTAs the warp limit allows
    int ctas_by_registers = 0;      ///< CTAs the register file allows
    int ctas_by_shared_memory = 0;  ///< CTAs the shared memory allows
    int ctas_by_slots = 0;          ///< CTAs the SM's CTA slots allow (`max_ctas_per_sm`)
    int warps_per_cta = 0;          ///< ceil(threads / 32)
    int regs_per_warp = 0;          ///< registers allocated per warp (multiple of 256)
    int smem_per_cta = 0;           ///< shared memory allocated per CTA, bytes (rounded, plus the reserved 1 KB)

    /// Whether `l` allows no more CTAs than the result (several limits can bind at once).
    [[nodiscard]] constexpr bool limited_by(occupancy_limit l) const noexcept {
        switch (l) {
            case occupancy_limit::warps: return ctas_by_warps == ctas_per_sm;
            case occupancy_limit::registers: return ctas_by_registers == ctas_per_sm;
            case occupancy_limit::shared_memory: return ctas_by_shared_memory == ctas_per_sm;
            case occupancy_limit::ctas: return ctas_by_slots == ctas_per_sm;
        }
        return false;
    }
    /// Resident warps over the SM's maximum, in [0, 1].
    [[nodiscard]] constexpr double warp_occupancy(const gpu_numbers& g) const noexcept {
        return g.max_warps_per_sm > 0 ? double(ctas_per_sm) * warps_per_cta / g.max_warps_per_sm : 0.0;
    }
};

/// Allocation constants of the occupancy calculator (the same for compute capability 7.0 to 12.x).
inline constexpr int warp_size = 32;
inline constexpr int register_allocation_unit = 256;  ///< registers, per warp
inline constexpr int warp_allocation_granularity = 4;
inline constexpr int smem_allocation_unit = 128;       ///< bytes
inline constexpr int smem_reserved_per_cta = 1024;     ///< bytes the driver reserves per CTA

namespace detail {
[[noreturn]] inline void report_bad_launch(const char* field, const std::string& expected, long long got) {
    synperf::detail::report_error(std::string("occupancy: ") + field + " must be " + expected + ", got " +
                                  std::to_string(got));
}
constexpr int round_up(int v, int unit) noexcept { return (v + unit - 1) / unit * unit; }
}  // namespace detail

/// Occupancy of `launch` on `g`, with the binding limit.
///
/// Throws `invalid_argument` for a launch no GPU could run: threads outside 1..max_threads_per_cta,
/// registers outside 1..max_regs_per_thread, shared memory outside 0..smem_per_cta_bytes. A launch whose
/// parts are valid but that does not fit together (e.g. 1024 threads x 255 registers) gives 0 CTAs, like
/// `cudaOccupancyMaxActiveBlocksPerMultiprocessor`.
[[nodiscard]] constexpr occupancy_result occupancy(const gpu_numbers& g, const work::launch_config& launch) {
    if (launch.threads_per_cta < 1 || launch.threads_per_cta > g.max_threads_per_cta)
        detail::report_bad_launch("threads_per_cta",
                                  "in 1.." + std::to_string(g.max_threads_per_cta) + " (max_threads_per_cta)",
                                  launch.threads_per_cta);
    if (launch.regs_per_thread < 1 || launch.regs_per_thread > g.max_regs_per_thread)
        detail::report_bad_launch("regs_per_thread",
                                  "in 1.." + std::to_string(g.max_regs_per_thread) + " (max_regs_per_thread)",
                                  launch.regs_per_thread);
    if (launch.smem_per_cta < 0 || launch.smem_per_cta > g.smem_per_cta_bytes)
        detail::report_bad_launch("smem_per_cta",
                                  "in 0.." + std::to_string(g.smem_per_cta_bytes) + " bytes (smem_per_cta_bytes)",
                                  launch.smem_per_cta);
    if (g.max_warps_per_sm < 1 || g.regs_per_sm < 1 || g.smem_per_sm_bytes < 1 || g.max_ctas_per_sm < 1)
        synperf::detail::report_error("occupancy: gpu_numbers has no per-SM limits (max_warps_per_sm, regs_per_sm, "
                                      "smem_per_sm_bytes, max_ctas_per_sm must be > 0)");

    occupancy_result r;
    r.warps_per_cta = (launch.threads_per_cta + warp_size - 1) / warp_size;
    r.regs_per_warp = detail::round_up(launch.regs_per_thread * warp_size, register_allocation_unit);
    r.smem_per_cta = detail::round_up(launch.smem_per_cta, smem_allocation_unit) + smem_reserved_per_cta;

    r.ctas_by_warps = g.max_warps_per_sm / r.warps_per_cta;
    // Warps the register file can hold, in whole groups of 4 (one per SM sub-partition).
    const int reg_warps = g.regs_per_sm / r.regs_per_warp / warp_allocation_granularity * warp_allocation_granularity;
    r.ctas_by_registers = reg_warps / r.warps_per_cta;
    r.ctas_by_shared_memory = g.smem_per_sm_bytes / r.smem_per_cta;
    r.ctas_by_slots = g.max_ctas_per_sm;

    r.ctas_per_sm = std::min({r.ctas_by_warps, r.ctas_by_registers, r.ctas_by_shared_memory, r.ctas_by_slots});
    for (occupancy_limit l : {occupancy_limit::warps, occupancy_limit::registers, occupancy_limit::shared_memory,
                              occupancy_limit::ctas}) {
        if (r.limited_by(l)) {
            r.limit = l;
            break;
        }
    }
    return r;
}

/// Resident CTAs per SM for `launch` on `g` (0 if it does not fit); see `occupancy`.
[[nodiscard]] constexpr int ctas_per_sm(const gpu_numbers& g, const work::launch_config& launch) {
    return occupancy(g, launch).ctas_per_sm;
}

/// Why not one CTA of `launch` fits an SM of `g` (`occupancy` gives 0): the binding limit in words, for messages.
[[nodiscard]] inline std::string no_fit_reason(const gpu_numbers& g, const work::launch_config& launch) {
    const occupancy_result r = occupancy(g, launch);
    switch (r.limit) {
        case occupancy_limit::warps:
            return std::to_string(r.warps_per_cta) + " warps per CTA, more than the SM holds (max_warps_per_sm " +
                   std::to_string(g.max_warps_per_sm) + ")";
        case occupancy_limit::registers:
            return std::to_string(r.regs_per_warp * r.warps_per_cta) + " registers per CTA (" + std::to_string(launch.threads_per_cta) +
                   " threads x " + std::to_string(launch.regs_per_thread) + ", allocated per warp), more than the SM has (regs_per_sm " +
                   std::to_string(g.regs_per_sm) + ")";
        case occupancy_limit::shared_memory:
            return std::to_string(r.smem_per_cta) + " bytes of shared memory per CTA (with the 1 KB the driver reserves), more than the SM has (smem_per_sm_bytes " +
                   std::to_string(g.smem_per_sm_bytes) + ")";
        case occupancy_limit::ctas: break;
    }
    return "no CTA slot (max_ctas_per_sm " + std::to_string(g.max_ctas_per_sm) + ")";
}

}  // namespace synperf::gpu
