// SPDX-License-Identifier: Apache-2.0
#pragma once
/// \file Work of one task (a CTA, or one work unit of a persistent kernel) per pipe and memory level.
#include <algorithm>
#include <cstdint>

#include "synperf/gpu/numbers.hpp"

namespace synperf::work {

/// Work one task puts on each pipe and memory level.
struct task_work {
    double tensor_flop = 0;                             ///< tensor-core flop (2 per MAC)
    gpu::tensor_dtype tensor_type = gpu::tensor_dtype::bf16;  ///< tensor input type (selects the rate)
    gpu::mma_issue tensor_issue = gpu::mma_issue::native;     ///< tensor instruction kind (selects the rate)
    /// FP32 FMA lane-ops (non-tensor); CUDA-core work paced by instruction issue counts its issued instructions here,
    /// weighted by `gpu_numbers::fma_lanes_per_issue`
    double fma_ops = 0;
    double xu_ops = 0;                                  ///< XU/MUFU results (exp2, rsqrt, ...)
    double dram_bytes = 0;                              ///< bytes that must come from (or go to) DRAM
    double l2_bytes = 0;                                ///< bytes requested through L2 (loads + stores)
    double smem_bytes = 0;                              ///< shared-memory bytes read + written

    /// False for a task that exits at once (no ops, no bytes).
    [[nodiscard]] constexpr bool has_work() const noexcept {
        return tensor_flop > 0 || fma_ops > 0 || xu_ops > 0 || dram_bytes > 0 || l2_bytes > 0 || smem_bytes > 0;
    }

    constexpr task_work& operator+=(const task_work& o) noexcept {
        tensor_flop += o.tensor_flop;
        fma_ops += o.fma_ops;
        xu_ops += o.xu_ops;
        dram_bytes += o.dram_bytes;
        l2_bytes += o.l2_bytes;
        smem_bytes += o.smem_bytes;
        return *this;
    }
    [[nodiscard]] constexpr task_work scaled(double f) const noexcept {
        task_work w = *this;
        w.tensor_flop *= f;
        w.fma_ops *= f;
        w.xu_ops *= f;
        w.dram_bytes *= f;
        w.l2_bytes *= f;
        w.smem_bytes *= f;
        return w;
    }
};

/// Cycles (tensor clock) each pipe needs for `w` when one SM has it to itself; memory levels
/// are charged at the SM's even share of the GPU's DRAM and L2 bandwidth.
struct pipe_cycles {
    double tensor = 0, fma = 0, xu = 0, dram = 0, l2 = 0, smem = 0;
    [[nodiscard]] constexpr double max() const noexcept { return std::max({tensor, fma, xu, dram, l2, smem}); }
};

/// Per-pipe cycles of `w` on one SM of `g`.
[[nodiscard]] constexpr pipe_cycles sm_cycles(const task_work& w, const gpu::gpu_numbers& g) noexcept {
    const double sms = g.sm_count;
    const double tensor_rate = g.tensor_flop_per_clk(w.tensor_type, w.tensor_issue);
    pipe_cycles c;
    c.tensor = w.tensor_flop > 0 ? (tensor_rate > 0 ? w.tensor_flop / tensor_rate : 1e30) : 0;
    c.fma = w.fma_ops / g.fma_per_tensor_clk();
    c.xu = w.xu_ops / g.xu_per_tensor_clk();
    c.dram = w.dram_bytes / (g.dram_bytes_per_clk() / sms);
    c.l2 = w.l2_bytes / (g.l2_bytes_per_clk() / sms);
    c.smem = w.smem_bytes / g.smem_bytes_per_clk;
    return c;
}

/// A task's scheduling cost: its time with the whole SM, the max over its pipes (cycles).
[[nodiscard]] constexpr double task_cost(const task_work& w, const gpu::gpu_numbers& g) noexcept {
    return sm_cycles(w, g).max();
}

/// `count` identical tasks. A kernel's grid is a sequence of task classes in grid order.
struct task_class {
    task_work work;
    std::int64_t count = 0;
};

}  // namespace synperf::work
