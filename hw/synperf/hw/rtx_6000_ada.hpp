// SPDX-License-Identifier: Apache-2.0
#pragma once
/// \file NVIDIA RTX 6000 Ada Generation (Ada AD102, sm_89).
#include <array>
#include <string_view>

#include "synperf/gpu/concept.hpp"
#include "synperf/gpu/numbers.hpp"

namespace synperf::hw {

/// NVIDIA RTX 6000 Ada Generation: Ada AD102, 142 SMs, 48 GB GDDR6 workstation card.
/// Sources: PipeWeave = data/pipeweave/hardware/*.json, AIC = data/aiconfigurator/systems/*.yaml,
/// NeuSight = data/neusight/device_configs/*.json, CUDA Guide = CUDA C++ Programming Guide compute-capability
/// tables; see docs/gpus.md.
struct rtx_6000_ada {
    /// Canonical id.
    static constexpr std::string_view name = "rtx_6000_ada";
    /// CUDA device string.
    // source: CUDA device string (PipeWeave RTX_6000_Ada.json name)
    static constexpr std::string_view display_name = "NVIDIA RTX 6000 Ada Generation";
    /// Other accepted names (matched case-insensitively, '-', '_' and ' ' alike).
    static constexpr std::array<std::string_view, 3> aliases{
        "NVIDIA RTX 6000 Ada Generation",  // CUDA device string
        "RTX_6000_Ada",  // PipeWeave hardware/RTX_6000_Ada.json
        "RTX 6000 Ada Generation",  // device string without vendor
    };
    /// The numbers a prediction reads; every one names its source.
    static constexpr gpu::gpu_numbers numbers{
        .cc_major = 8,  // source: sm_89; PipeWeave RTX_6000_Ada.json computeMajor/Minor
        .cc_minor = 9,  // source: as cc_major
        .sm_count = 142,  // source: PipeWeave RTX_6000_Ada.json numSms; datasheet 18176 CUDA cores / 128
        // source: PipeWeave RTX_6000_Ada.json smFreq; boost clock; 142 x 1024 x 2505 MHz = 364.2 TFLOPS
        .tensor_clock_mhz = 2505.0,
        .boost_clock_mhz = 2505.0,  // source: RTX 6000 Ada boost clock; 2 x 128 x 142 x 2505 MHz = 91.1 TFLOPS FP32
        .tensor_bf16_flop_per_clk = 1024.0,  // source: PipeWeave RTX_6000_Ada.json tcBf16
        .tensor_fp8_flop_per_clk = 2048.0,  // derived: 2 x bf16; derived: 728.5 TFLOPS / (142 x 2505 MHz) = 2048
        .tensor_fp4_flop_per_clk = 0.0,  // source: Ada has no FP4 tensor cores
        .fma_fp32_per_clk = 128.0,  // source: Ada SM has 128 FP32 lanes (Ada whitepaper; PipeWeave FmaFp32 = 128)
        // source: 16 MUFU results per clock per SM below cc 10.3 (PipeWeave xuFp32 = 16; docs/gpus.md#sm-rates)
        .xu_per_clk = 16.0,
        .dram_gbps = 960.0,  // source: RTX 6000 Ada datasheet 960 GB/s; PipeWeave RTX_6000_Ada.json memBandwidth
        .l2_bytes = 100663296.0,  // source: 96 MB; PipeWeave RTX_6000_Ada.json l2CacheSize 98304 KB
        .l2_gbps = 6326.0,  // source: PipeWeave RTX_6000_Ada.json l2CacheBandwidth (measured)
        .smem_bytes_per_clk = 128.0,  // source: 128 B/clk/SM (PipeWeave sharedMemoryBandwidth; docs/gpus.md#sm-rates)
        .smem_per_sm_bytes = 102400,  // source: CUDA Guide cc 8.9: 100 KB
        .smem_per_cta_bytes = 101376,  // source: CUDA Guide cc 8.9: 99 KB opt-in per block
        .regs_per_sm = 65536,  // source: CUDA Guide cc 8.9: 64K 32-bit registers
        .max_regs_per_thread = 255,  // source: CUDA Guide cc 8.9
        .max_warps_per_sm = 48,  // source: CUDA Guide cc 8.9
        .max_threads_per_sm = 1536,  // source: CUDA Guide cc 8.9
        .max_ctas_per_sm = 24,  // source: CUDA Guide cc 8.9
        .max_threads_per_cta = 1024,  // source: CUDA Guide cc 8.9
        .nvlink_gbps = 0.0,  // source: no NVLink on RTX 6000 Ada
        .pcie_gbps = 32.0,  // source: PCIe 4.0 x16, one direction
        .memory_bytes = 50865307648.0,  // source: PipeWeave RTX_6000_Ada.json totalGlobalMem (CUDA-reported)
    };
    /// Published dense peaks the derived ones are checked against (0 = not published).
    static constexpr gpu::datasheet published{
        .bf16_tflops = 364.2,  // source: RTX 6000 Ada datasheet: FP8 1457 TFLOPS with sparsity / 4
        .fp8_tflops = 728.5,  // source: RTX 6000 Ada datasheet: 1457 TFLOPS with sparsity / 2
        .fp32_tflops = 91.1,  // source: RTX 6000 Ada datasheet
    };
};

}  // namespace synperf::hw

static_assert(synperf::gpu::GpuSpec<synperf::hw::rtx_6000_ada>);
