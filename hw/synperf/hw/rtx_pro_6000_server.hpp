// SPDX-License-Identifier: Apache-2.0
#pragma once
/// \file NVIDIA RTX PRO 6000 Blackwell Server Edition (Blackwell GB202, sm_120).
#include <array>
#include <string_view>

#include "synperf/gpu/concept.hpp"
#include "synperf/gpu/numbers.hpp"

namespace synperf::hw {

/// NVIDIA RTX PRO 6000 Blackwell Server Edition: GB202, 188 SMs, 96 GB GDDR7, 600 W passive.
/// NVIDIA quotes workstation-card figures (125 TFLOPS FP32, 4000 sparse FP4 TOPS at about
/// 2.6 GHz); the server edition reports a 2430 MHz max SM clock, so the peaks here follow
/// aiconfigurator's figures at that clock, and no FP32 figure is checked.
/// Sources: PipeWeave = data/pipeweave/hardware/*.json, AIC = data/aiconfigurator/systems/*.yaml,
/// NeuSight = data/neusight/device_configs/*.json, CUDA Guide = CUDA C++ Programming Guide compute-capability
/// tables; see docs/gpus.md.
struct rtx_pro_6000_server {
    /// Canonical id.
    static constexpr std::string_view name = "rtx_pro_6000_server";
    /// CUDA device string.
    // source: CUDA device string (aiconfigurator inventory; PipeWeave RTX_PRO_6000_S.json name)
    static constexpr std::string_view display_name = "NVIDIA RTX PRO 6000 Blackwell Server Edition";
    /// Other accepted names (matched case-insensitively, '-', '_' and ' ' alike).
    static constexpr std::array<std::string_view, 4> aliases{
        "NVIDIA RTX PRO 6000 Blackwell Server Edition",  // CUDA device string
        "RTX_PRO_6000_S",  // PipeWeave hardware/RTX_PRO_6000_S.json
        "RTX PRO 6000 Blackwell Server Edition",  // device string without vendor
        "RTX PRO 6000 Server",  // short name
    };
    /// The numbers a prediction reads; every one names its source.
    static constexpr gpu::gpu_numbers numbers{
        // source: sm_120; PipeWeave RTX_PRO_6000_S.json computeMajor/Minor; AIC rtx_pro_6000_server.yaml sm_version
        // 120
        .cc_major = 12,
        .cc_minor = 0,  // source: as cc_major
        .sm_count = 188,  // source: PipeWeave RTX_PRO_6000_S.json numSms (24064 CUDA cores / 128)
        // source: AIC rtx_pro_6000_server.yaml: observed max SM clock, the clock its TFLOPS are scaled to (PipeWeave
        // smFreq 2340)
        .tensor_clock_mhz = 2430.0,
        .boost_clock_mhz = 2430.0,  // source: observed max SM clock (AIC rtx_pro_6000_server.yaml)
        // source: PipeWeave RTX_PRO_6000_S.json tcBf16; derived: 467.8 TFLOPS / (188 x 2430 MHz) = 1024
        .tensor_bf16_flop_per_clk = 1024.0,
        .tensor_fp8_flop_per_clk = 2048.0,  // source: PipeWeave RTX_PRO_6000_S.json tcFp8
        .tensor_fp4_flop_per_clk = 4096.0,  // derived: 1871.2 TFLOPS / (188 x 2430 MHz) = 4096
        // source: GB202 SM has 128 FP32 lanes (RTX Blackwell whitepaper; PipeWeave FmaFp32 = 128)
        .fma_fp32_per_clk = 128.0,
        // source: 16 MUFU results per clock per SM below cc 10.3 (PipeWeave xuFp32 = 16; docs/gpus.md#sm-rates)
        .xu_per_clk = 16.0,
        .dram_gbps = 1792.0,  // source: AIC rtx_pro_6000_server.yaml mem_bw; PipeWeave RTX_PRO_6000_S.json memBandwidth
        .l2_bytes = 134217728.0,  // source: 128 MB; PipeWeave RTX_PRO_6000_S.json l2CacheSize 131072 KB
        .l2_gbps = 7444.0,  // source: PipeWeave RTX_PRO_6000_S.json l2CacheBandwidth (measured)
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
        .nvlink_gbps = 0.0,  // source: no NVLink on RTX PRO 6000
        .pcie_gbps = 64.0,  // source: AIC rtx_pro_6000_server.yaml pcie_bw (PCIe 5.0 x16, one direction)
        .memory_bytes = 101985026048.0,  // source: PipeWeave RTX_PRO_6000_S.json totalGlobalMem (CUDA-reported)
    };
    /// Published dense peaks the derived ones are checked against (0 = not published).
    static constexpr gpu::datasheet published{
        .bf16_tflops = 467.8,  // source: AIC rtx_pro_6000_server.yaml bfloat16_tc_flops (scaled to 2430 MHz)
        .fp8_tflops = 935.6,  // source: AIC rtx_pro_6000_server.yaml fp8_tc_flops
        .fp4_tflops = 1871.2,  // source: AIC rtx_pro_6000_server.yaml fp4_tc_flops
        .fp32_tflops = 0.0,  // not set: no server-edition figure; the 125 TFLOPS quote is the 2.6 GHz workstation card
    };
};

}  // namespace synperf::hw

static_assert(synperf::gpu::GpuSpec<synperf::hw::rtx_pro_6000_server>);
