// SPDX-License-Identifier: Apache-2.0
#pragma once
/// \file The numbers that describe one GPU: the only way hardware enters a prediction.
#include <cmath>
#include <string>

#include "synperf/error.hpp"

namespace synperf::gpu {

/// Tensor-core input types with a separate dense rate.
enum class tensor_dtype { bf16, fp8, fp4 };

/// How a kernel issues its tensor-core work: the architecture's own widest MMA (wgmma on sm_90, tcgen05 on
/// sm_100/103; mma.sync where it is the only one), or the warp-level mma.sync of Ampere-style kernels
/// (FlashAttention-2, FlashInfer's FA2 kernels, XQA's HMMA kernel, Triton dots of fewer than 64 rows), which on sm_90
/// and sm_100/103 reaches only part of the dense rate (`gpu_numbers::warp_mma_flop_per_clk`).
enum class mma_issue { native, warp_sync };

/// Every number a decomposer, scheduler or feature analyzer may read about a GPU.
///
/// Rates are per SM per clock; "flop" counts a multiply-add as two. Tensor rates are dense, with FP32
/// accumulate for bf16/fp16 (what cuBLAS runs), and use `tensor_clock_mhz`, the clock NVIDIA's tensor
/// TFLOPS imply; FP32 and XU rates use `boost_clock_mhz`. A rate of 0 means the pipe or type is absent.
struct gpu_numbers {
    int cc_major = 0;                     ///< compute capability, major
    int cc_minor = 0;                     ///< compute capability, minor
    int sm_count = 0;                     ///< streaming multiprocessors
    double tensor_clock_mhz = 0;          ///< clock implied by the published dense tensor TFLOPS
    double boost_clock_mhz = 0;           ///< boost clock (FP32 TFLOPS, XU)
    double tensor_bf16_flop_per_clk = 0;  ///< dense bf16/fp16 tensor flop per clock per SM (FP32 accumulate)
    double tensor_fp8_flop_per_clk = 0;   ///< dense fp8 tensor flop per clock per SM (0: none)
    double tensor_fp4_flop_per_clk = 0;   ///< dense fp4 tensor flop per clock per SM (0: none)
    double fma_fp32_per_clk = 0;          ///< FP32 FMA lanes per clock per SM (non-tensor)
    double xu_per_clk = 0;                ///< XU/MUFU (exp2, rsqrt) results per clock per SM
    double dram_gbps = 0;                 ///< DRAM bandwidth, GB/s (1e9 B/s)
    double l2_bytes = 0;                  ///< L2 capacity, bytes
    double l2_gbps = 0;                   ///< L2 bandwidth, GB/s (measured or derived)
    double smem_bytes_per_clk = 0;        ///< shared-memory bandwidth per SM, bytes per clock
    int smem_per_sm_bytes = 0;            ///< max shared memory per SM (carveout), bytes
    int smem_per_cta_bytes = 0;           ///< max shared memory per CTA (opt-in), bytes
    int regs_per_sm = 0;                  ///< 32-bit registers per SM
    int max_regs_per_thread = 0;          ///< register limit per thread
    int max_warps_per_sm = 0;             ///< resident warps per SM
    int max_threads_per_sm = 0;           ///< resident threads per SM
    int max_ctas_per_sm = 0;              ///< resident CTAs per SM
    int max_threads_per_cta = 0;          ///< threads per CTA
    double nvlink_gbps = 0;               ///< NVLink bandwidth per GPU, bidirectional GB/s (0: none)
    double pcie_gbps = 0;                 ///< PCIe bandwidth per GPU, one direction, GB/s
    double memory_bytes = 0;              ///< device memory capacity, bytes

    /// Compute capability as one number, e.g. 90 or 103.
    [[nodiscard]] constexpr int sm_version() const noexcept { return cc_major * 10 + cc_minor; }

    /// Dense tensor flop per clock per SM for an input type (0 if unsupported).
    [[nodiscard]] constexpr double tensor_flop_per_clk(tensor_dtype t) const noexcept {
        switch (t) {
            case tensor_dtype::bf16: return tensor_bf16_flop_per_clk;
            case tensor_dtype::fp8: return tensor_fp8_flop_per_clk;
            case tensor_dtype::fp4: return tensor_fp4_flop_per_clk;
        }
        return 0;
    }
    /// Tensor flop per clock per SM for an input type issued as `issue`. Warp-level mma.sync is capped on sm_90
    /// and sm_100/103 (`warp_mma_flop_per_clk`, `warp_mma_fp8_flop_per_clk`); elsewhere it is the architecture's
    /// tensor instruction.
    [[nodiscard]] constexpr double tensor_flop_per_clk(tensor_dtype t, mma_issue issue) const noexcept {
        const double dense = tensor_flop_per_clk(t);
        if (issue == mma_issue::native || (cc_major != 9 && cc_major != 10)) return dense;
        const double cap = t == tensor_dtype::bf16 ? warp_mma_flop_per_clk : warp_mma_fp8_flop_per_clk;
        return dense < cap ? dense : cap;
    }
    /// The most flop per clock per SM that m16n8k16 mma.sync (16-bit in, FP32 accumulate) sustains on sm_90 and
    /// sm_100/103, a fact of the SM's issue path rather than of a part, so a spec file's compute capability applies it.
    /// - sm_90, measured: 2730 on an H200 with 8 to 32 warps per SM (bench/measure/mma_sync_rate.cu), 2/3 of
    ///   wgmma's 4096.
    /// - sm_100/103, inferred: FlashAttention-2, an mma.sync kernel, reaches 308-380 TFLOPS forward on a B200
    ///   (flash-attention issue #1589), what it reaches on H100/H200 (bench/measure/h200_sxm/), so the rate per
    ///   SM and clock is taken as Hopper's, a third of tcgen05's 8192.
    static constexpr double warp_mma_flop_per_clk = 8192.0 / 3.0;
    /// The same for m16n8k32 mma.sync with e4m3 in: 6500 on an H200 with 32 warps per SM (6060 with 8), about 0.8
    /// of wgmma's 8192 (bench/measure/mma_sync_rate.cu); taken the same on sm_100/103. No modelled kernel issues it
    /// there (Triton converts FP8 operands of a warp-level dot to f16, bench/measure/triton_mma_kind.py).
    static constexpr double warp_mma_fp8_flop_per_clk = 6500.0;
    /// Peak dense tensor TFLOPS derived from the per-SM rate (tensor-spec clock).
    [[nodiscard]] constexpr double tensor_tflops(tensor_dtype t) const noexcept {
        return tensor_flop_per_clk(t) * sm_count * tensor_clock_mhz * 1e-6;
    }
    /// Peak FP32 TFLOPS (FMA = 2 flop) at the boost clock.
    [[nodiscard]] constexpr double fp32_tflops() const noexcept {
        return 2.0 * fma_fp32_per_clk * sm_count * boost_clock_mhz * 1e-6;
    }
    /// DRAM bytes per tensor-clock cycle, whole GPU.
    [[nodiscard]] constexpr double dram_bytes_per_clk() const noexcept { return dram_gbps * 1e3 / tensor_clock_mhz; }
    /// L2 bytes per tensor-clock cycle, whole GPU.
    [[nodiscard]] constexpr double l2_bytes_per_clk() const noexcept { return l2_gbps * 1e3 / tensor_clock_mhz; }
    /// XU rate expressed per tensor-clock cycle (XU runs at the boost clock).
    [[nodiscard]] constexpr double xu_per_tensor_clk() const noexcept { return xu_per_clk * boost_clock_mhz / tensor_clock_mhz; }
    /// FMA rate expressed per tensor-clock cycle.
    [[nodiscard]] constexpr double fma_per_tensor_clk() const noexcept { return fma_fp32_per_clk * boost_clock_mhz / tensor_clock_mhz; }
    /// Thread-instructions one SM issues per clock: four warp schedulers, one warp instruction each, on every
    /// architecture from sm_70 on (Volta to Blackwell whitepapers).
    static constexpr double issue_per_clk = 128.0;
    /// FP32 FMA lanes per issue slot: 1 where the lanes match the issue width, 0.5 on sm_80 (64 lanes per SM). It
    /// weights CUDA-core instructions that are not FMAs when they enter the FMA pipe as lane-ops.
    [[nodiscard]] constexpr double fma_lanes_per_issue() const noexcept { return fma_fp32_per_clk / issue_per_clk; }
};

namespace detail {
[[noreturn]] inline void report_bad_number(const char* field, const char* expected) {
    synperf::detail::report_error(std::string("gpu_numbers: ") + field + " " + expected);
}
constexpr bool within(double v, double lo, double hi) noexcept { return v >= lo && v <= hi; }  // false for NaN
}  // namespace detail

/// Checks every field; throws `invalid_argument` naming the first bad one. Usable in constant
/// expressions, where a bad spec becomes a compile error.
constexpr const gpu_numbers& validate(const gpu_numbers& n) {
    using detail::within;
    using detail::report_bad_number;
    if (n.cc_major < 7 || n.cc_major > 12) report_bad_number("cc_major", "must be in 7..12");
    if (n.cc_minor < 0 || n.cc_minor > 9) report_bad_number("cc_minor", "must be in 0..9");
    if (n.sm_count <= 0 || n.sm_count > 4096) report_bad_number("sm_count", "must be in 1..4096");
    // Plausibility ranges, a hundred times beyond today's GPUs where they grow: a value outside is a typo or a unit
    // mistake (MHz for GHz, bytes for MB), and would give a latency off by orders of magnitude, not an error.
    if (!within(n.tensor_clock_mhz, 100, 10000)) report_bad_number("tensor_clock_mhz", "must be in 100..10000 (MHz)");
    if (!within(n.boost_clock_mhz, 100, 10000)) report_bad_number("boost_clock_mhz", "must be in 100..10000 (MHz)");
    // The tensor TFLOPS NVIDIA publishes imply a clock at or below the boost clock (H100: 1830 against 1980 MHz).
    if (n.boost_clock_mhz < n.tensor_clock_mhz) report_bad_number("boost_clock_mhz", "must be >= tensor_clock_mhz");
    if (!within(n.tensor_bf16_flop_per_clk, 1, 1e6)) report_bad_number("tensor_bf16_flop_per_clk", "must be in 1..1e6 (per SM)");
    if (n.tensor_fp8_flop_per_clk != 0 && !within(n.tensor_fp8_flop_per_clk, 1, 1e7))
        report_bad_number("tensor_fp8_flop_per_clk", "must be 0 (none) or in 1..1e7 (per SM)");
    if (n.tensor_fp4_flop_per_clk != 0 && !within(n.tensor_fp4_flop_per_clk, 1, 1e7))
        report_bad_number("tensor_fp4_flop_per_clk", "must be 0 (none) or in 1..1e7 (per SM)");
    // The kernels pick their FP8 / FP4 paths by compute capability, so a rate the architecture has no instruction
    // for would be silently ignored.
    if (n.tensor_fp8_flop_per_clk != 0 && n.sm_version() < 89)
        report_bad_number("tensor_fp8_flop_per_clk", "must be 0 below compute capability 8.9 (no FP8 tensor cores)");
    if (n.tensor_fp4_flop_per_clk != 0 && n.cc_major < 10)
        report_bad_number("tensor_fp4_flop_per_clk", "must be 0 below compute capability 10.0 (no FP4 tensor cores)");
    if (!within(n.fma_fp32_per_clk, 1, 1e5)) report_bad_number("fma_fp32_per_clk", "must be in 1..1e5 (per SM)");
    if (!within(n.xu_per_clk, 1, 1e5)) report_bad_number("xu_per_clk", "must be in 1..1e5 (per SM)");
    if (!within(n.dram_gbps, 1, 1e6)) report_bad_number("dram_gbps", "must be in 1..1e6 (GB/s)");
    if (!within(n.l2_bytes, 1024, 1099511627776.0)) report_bad_number("l2_bytes", "must be in 1024..2^40 (bytes)");
    if (!within(n.l2_gbps, 1, 1e7)) report_bad_number("l2_gbps", "must be in 1..1e7 (GB/s)");
    if (!within(n.smem_bytes_per_clk, 1, 1e5)) report_bad_number("smem_bytes_per_clk", "must be in 1..1e5 (per SM)");
    if (n.smem_per_sm_bytes <= 0 || n.smem_per_sm_bytes > (1 << 30)) report_bad_number("smem_per_sm_bytes", "must be in 1..2^30");
    if (n.smem_per_cta_bytes <= 0 || n.smem_per_cta_bytes > n.smem_per_sm_bytes) report_bad_number("smem_per_cta_bytes", "must be in 1..smem_per_sm_bytes");
    if (n.regs_per_sm <= 0 || n.regs_per_sm > (1 << 24)) report_bad_number("regs_per_sm", "must be in 1..2^24");
    if (n.max_regs_per_thread <= 0 || n.max_regs_per_thread > 255) report_bad_number("max_regs_per_thread", "must be in 1..255");
    if (n.max_warps_per_sm <= 0 || n.max_warps_per_sm > 65536) report_bad_number("max_warps_per_sm", "must be in 1..65536");
    if (n.max_threads_per_sm != 32 * n.max_warps_per_sm) report_bad_number("max_threads_per_sm", "must equal 32 * max_warps_per_sm");
    if (n.max_ctas_per_sm <= 0 || n.max_ctas_per_sm > 4096) report_bad_number("max_ctas_per_sm", "must be in 1..4096");
    if (n.max_threads_per_cta <= 0 || n.max_threads_per_cta > n.max_threads_per_sm) report_bad_number("max_threads_per_cta", "must be in 1..max_threads_per_sm");
    if (n.nvlink_gbps != 0 && !within(n.nvlink_gbps, 1, 1e6)) report_bad_number("nvlink_gbps", "must be 0 (none) or in 1..1e6 (GB/s)");
    if (!within(n.pcie_gbps, 0.1, 1e5)) report_bad_number("pcie_gbps", "must be in 0.1..1e5 (GB/s)");
    if (!within(n.memory_bytes, 1048576.0, 1125899906842624.0)) report_bad_number("memory_bytes", "must be in 2^20..2^50 (bytes)");
    return n;
}

/// Published datasheet figures a policy's numbers are checked against (dense TFLOPS; 0 = not published).
struct datasheet {
    double bf16_tflops = 0;  ///< dense BF16 with FP32 accumulate
    double fp8_tflops = 0;   ///< dense FP8
    double fp4_tflops = 0;   ///< dense FP4
    double fp32_tflops = 0;  ///< non-tensor FP32
};

}  // namespace synperf::gpu
