// SPDX-License-Identifier: Apache-2.0
#pragma once
/// \file Hand-made GPU numbers for unit tests (independent of the catalogue in hw/).
#include "synperf/gpu/numbers.hpp"
#include "synperf/work/task.hpp"

namespace synperf::test {

/// Per-SM limits of compute capability 8.0 (A100): 64 warps, 32 CTAs, 64K registers, 164 KB smem.
constexpr gpu::gpu_numbers sm80_like() {
    gpu::gpu_numbers g;
    g.cc_major = 8;
    g.cc_minor = 0;
    g.sm_count = 108;
    g.tensor_clock_mhz = 1410;
    g.boost_clock_mhz = 1410;
    g.tensor_bf16_flop_per_clk = 2048;
    g.fma_fp32_per_clk = 64;
    g.xu_per_clk = 16;
    g.dram_gbps = 2039;
    g.l2_bytes = 40.0 * 1024 * 1024;
    g.l2_gbps = 5000;
    g.smem_bytes_per_clk = 128;
    g.smem_per_sm_bytes = 164 * 1024;
    g.smem_per_cta_bytes = 163 * 1024;
    g.regs_per_sm = 65536;
    g.max_regs_per_thread = 255;
    g.max_warps_per_sm = 64;
    g.max_threads_per_sm = 2048;
    g.max_ctas_per_sm = 32;
    g.max_threads_per_cta = 1024;
    g.nvlink_gbps = 600;
    g.pcie_gbps = 32;
    g.memory_bytes = 80e9;
    return g;
}

/// Per-SM limits of compute capability 8.6 (A10, RTX 30): 48 warps, 16 CTAs, 100 KB smem.
constexpr gpu::gpu_numbers sm86_like() {
    gpu::gpu_numbers g = sm80_like();
    g.cc_minor = 6;
    g.sm_count = 72;
    g.tensor_bf16_flop_per_clk = 1024;
    g.fma_fp32_per_clk = 128;
    g.dram_gbps = 600;
    g.l2_bytes = 6.0 * 1024 * 1024;
    g.smem_per_sm_bytes = 100 * 1024;
    g.smem_per_cta_bytes = 99 * 1024;
    g.max_warps_per_sm = 48;
    g.max_threads_per_sm = 1536;
    g.max_ctas_per_sm = 16;
    g.nvlink_gbps = 0;
    g.memory_bytes = 24e9;
    return g;
}

/// Per-SM limits of compute capability 9.0 (H100): 64 warps, 32 CTAs, 228 KB smem (227 KB per CTA).
constexpr gpu::gpu_numbers sm90_like() {
    gpu::gpu_numbers g = sm80_like();
    g.cc_major = 9;
    g.sm_count = 132;
    g.tensor_clock_mhz = 1830;
    g.boost_clock_mhz = 1980;
    g.tensor_bf16_flop_per_clk = 4096;
    g.tensor_fp8_flop_per_clk = 8192;
    g.fma_fp32_per_clk = 128;
    g.dram_gbps = 3350;
    g.l2_bytes = 50.0 * 1024 * 1024;
    g.smem_per_sm_bytes = 228 * 1024;
    g.smem_per_cta_bytes = 227 * 1024;
    g.nvlink_gbps = 900;
    g.memory_bytes = 80e9;
    return g;
}

/// Round numbers for scheduler tests: `sms` SMs, both clocks 1000 MHz, per SM per clock 1024 bf16
/// tensor flop and (even share) 64 DRAM bytes, so costs below are exact cycle counts.
constexpr gpu::gpu_numbers synthetic(int sms) {
    gpu::gpu_numbers g = sm90_like();
    g.sm_count = sms;
    g.tensor_clock_mhz = 1000;
    g.boost_clock_mhz = 1000;
    g.tensor_bf16_flop_per_clk = 1024;
    g.tensor_fp8_flop_per_clk = 2048;
    g.dram_gbps = 64.0 * sms;  // 64 * sms bytes per clock at 1000 MHz, 64 per SM
    g.l2_gbps = 256.0 * sms;
    return g;
}

inline constexpr double synthetic_tensor_flop_per_cycle = 1024;
inline constexpr double synthetic_dram_bytes_per_cycle = 64;

/// A task that keeps the tensor pipe of a `synthetic` GPU busy for `cycles`.
constexpr work::task_work tensor_task(double cycles) {
    work::task_work w;
    w.tensor_flop = cycles * synthetic_tensor_flop_per_cycle;
    return w;
}

/// A task that needs `cycles` of one SM's DRAM share on a `synthetic` GPU.
constexpr work::task_work dram_task(double cycles) {
    work::task_work w;
    w.dram_bytes = cycles * synthetic_dram_bytes_per_cycle;
    return w;
}

}  // namespace synperf::test
