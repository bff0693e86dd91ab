// SPDX-License-Identifier: Apache-2.0
#pragma once
/// \file NVIDIA GeForce RTX 5090 (Blackwell GB202, sm_120).
#include <array>
#include <string_view>

#include "synperf/gpu/concept.hpp"
#include "synperf/gpu/numbers.hpp"

namespace synperf::hw {

/// NVIDIA GeForce RTX 5090: Blackwell GB202, 170 SMs, 32 GB GDDR7.
/// Sources: PipeWeave = data/pipeweave/hardware/*.json, AIC = data/aiconfigurator/systems/*.yaml,
/// NeuSight = data/neusight/device_configs/*.json, CUDA Guide = CUDA C++ Programming Guide compute-capability
/// tables; see docs/gpus.md.
struct rtx_5090 {
    /// Canonical id.
    static constexpr std::string_view name = "rtx_5090";
    /// CUDA device string.
    // source: CUDA device string (aiconfigurator inventory)
    static constexpr std::string_view display_name = "NVIDIA GeForce RTX 5090";
    /// Other accepted names (matched case-insensitively, '-', '_' and ' ' alike).
    static constexpr std::array<std::string_view, 2> aliases{
        "NVIDIA GeForce RTX 5090",  // CUDA device string
        "GeForce RTX 5090",  // device string without vendor
    };
    /// The numbers a prediction reads; every one names its source.
    static constexpr gpu::gpu_numbers numbers{
        .cc_major = 12,  // source: sm_120; AIC rtx_5090.yaml sm_version 120
        .cc_minor = 0,  // source: as cc_major
        .sm_count = 170,  // source: RTX Blackwell whitepaper (21760 CUDA cores / 128); AIC rtx_5090.yaml comment
        // source: RTX Blackwell whitepaper boost clock; 170 x 512 x 2407 MHz = 209.5 TFLOPS
        .tensor_clock_mhz = 2407.0,
        .boost_clock_mhz = 2407.0,  // source: boost clock; 2 x 128 x 170 x 2407 MHz = 104.8 TFLOPS FP32
        // source: GeForce half rate with FP32 accumulate (what cuBLAS bf16 uses; measured max 206 TFLOPS);
        // aiconfigurator's 419 is the FP16-accumulate rate
        .tensor_bf16_flop_per_clk = 512.0,
        // source: FP8 with FP32 accumulate, 2 x bf16; 170 x 1024 x 2407 MHz = 419 TFLOPS
        .tensor_fp8_flop_per_clk = 1024.0,
        .tensor_fp4_flop_per_clk = 4096.0,  // derived: 1676 TFLOPS / (170 x 2407 MHz) = 4096
        // source: GB202 SM has 128 FP32 lanes (RTX Blackwell whitepaper; PipeWeave FmaFp32 = 128)
        .fma_fp32_per_clk = 128.0,
        // source: 16 MUFU results per clock per SM below cc 10.3 (PipeWeave xuFp32 = 16; docs/gpus.md#sm-rates)
        .xu_per_clk = 16.0,
        .dram_gbps = 1792.0,  // source: AIC rtx_5090.yaml mem_bw 1.792 TB/s (28 Gbps GDDR7, 512-bit)
        .l2_bytes = 100663296.0,  // source: 96 MB (RTX Blackwell whitepaper)
        // derived: RTX PRO 6000 Server (same GB202) measured 7444 GB/s at 2340 MHz = 16.92 B/clk/SM; x 170 SMs x 2407
        // MHz
        .l2_gbps = 6924.0,
        .smem_bytes_per_clk = 128.0,  // source: 128 B/clk/SM (PipeWeave sharedMemoryBandwidth; docs/gpus.md#sm-rates)
        .smem_per_sm_bytes = 102400,  // source: CUDA Guide cc 12.0: 100 KB
        .smem_per_cta_bytes = 101376,  // source: CUDA Guide cc 12.0: 99 KB opt-in per block
        .regs_per_sm = 65536,  // source: CUDA Guide cc 12.0: 64K 32-bit registers
        .max_regs_per_thread = 255,  // source: CUDA Guide cc 12.0
        .max_warps_per_sm = 48,  // source: CUDA Guide cc 12.0
        .max_threads_per_sm = 1536,  // source: CUDA Guide cc 12.0
        // source: CUDA Guide 13.4 (Tables 30-32) gives 24 for cc 12.0, Guide 12.9 and the tuning guide 32; we take the
        // newer 24
        .max_ctas_per_sm = 24,
        .max_threads_per_cta = 1024,  // source: CUDA Guide cc 12.0
        .nvlink_gbps = 0.0,  // source: no NVLink on GeForce
        .pcie_gbps = 64.0,  // source: AIC rtx_5090.yaml pcie_bw (PCIe 5.0 x16, one direction)
        .memory_bytes = 34190917632.0,  // source: AIC rtx_5090.yaml mem_capacity (32607 MiB, nvidia-smi)
    };
    /// Published dense peaks the derived ones are checked against (0 = not published).
    static constexpr gpu::datasheet published{
        .bf16_tflops = 209.5,  // source: RTX Blackwell whitepaper: FP16/BF16 tensor with FP32 accumulate (dense)
        .fp8_tflops = 419.0,  // source: RTX Blackwell whitepaper: FP8 tensor with FP32 accumulate (dense)
        .fp4_tflops = 1676.0,  // source: AIC rtx_5090.yaml fp4_tc_flops (dense; 3352 AI TOPS with sparsity)
        .fp32_tflops = 104.8,  // source: RTX Blackwell whitepaper
    };
};

}  // namespace synperf::hw

static_assert(synperf::gpu::GpuSpec<synperf::hw::rtx_5090>);
