// SPDX-License-Identifier: Apache-2.0
#pragma once
/// \file NVIDIA L40S (Ada AD102, sm_89).
#include <array>
#include <string_view>

#include "synperf/gpu/concept.hpp"
#include "synperf/gpu/numbers.hpp"

namespace synperf::hw {

/// NVIDIA L40S: Ada AD102, 142 SMs, 48 GB GDDR6, full-rate tensor SKU.
/// Sources: PipeWeave = data/pipeweave/hardware/*.json, AIC = data/aiconfigurator/systems/*.yaml,
/// NeuSight = data/neusight/device_configs/*.json, CUDA Guide = CUDA C++ Programming Guide compute-capability
/// tables; see docs/gpus.md.
struct l40s {
    /// Canonical id.
    static constexpr std::string_view name = "l40s";
    /// CUDA device string.
    // source: CUDA device string (aiconfigurator inventory)
    static constexpr std::string_view display_name = "NVIDIA L40S";
    /// Other accepted names (matched case-insensitively, '-', '_' and ' ' alike).
    static constexpr std::array<std::string_view, 2> aliases{
        "NVIDIA L40S",  // CUDA device string
        "L40S",  // short name
    };
    /// The numbers a prediction reads; every one names its source.
    static constexpr gpu::gpu_numbers numbers{
        .cc_major = 8,  // source: sm_89; AIC l40s.yaml sm_version 89
        .cc_minor = 9,  // source: as cc_major
        .sm_count = 142,  // source: L40S datasheet 18176 CUDA cores / 128; docs/gpus.md#datasheets
        .tensor_clock_mhz = 2490.0,  // derived: 362.05 TFLOPS / (142 SMs x 1024) = 2490 MHz
        .boost_clock_mhz = 2520.0,  // source: L40S boost clock; 2 x 128 x 142 x 2520 MHz = 91.6 TFLOPS FP32
        .tensor_bf16_flop_per_clk = 1024.0,  // source: full-rate AD102 like RTX 6000 Ada (docs/gpus.md#tensor-rates)
        // derived: 2 x bf16; 142 x 2048 x 2490 MHz = 724 TFLOPS, 1.2 % under the quoted 733
        .tensor_fp8_flop_per_clk = 2048.0,
        .tensor_fp4_flop_per_clk = 0.0,  // source: Ada has no FP4 tensor cores
        .fma_fp32_per_clk = 128.0,  // source: Ada SM has 128 FP32 lanes (Ada whitepaper; PipeWeave FmaFp32 = 128)
        // source: 16 MUFU results per clock per SM below cc 10.3 (PipeWeave xuFp32 = 16; docs/gpus.md#sm-rates)
        .xu_per_clk = 16.0,
        .dram_gbps = 864.0,  // source: AIC l40s.yaml mem_bw; L40S datasheet 864 GB/s
        .l2_bytes = 100663296.0,  // source: 96 MB (AD102, same as L40)
        // derived: L40 (same AD102 board, same SMs and memory) measured 5647 GB/s = 15.97 B/clk/SM; x 142 SMs x 2490
        // MHz
        .l2_gbps = 5647.0,
        .smem_bytes_per_clk = 128.0,  // source: 128 B/clk/SM (PipeWeave sharedMemoryBandwidth; docs/gpus.md#sm-rates)
        .smem_per_sm_bytes = 102400,  // source: CUDA Guide cc 8.9: 100 KB
        .smem_per_cta_bytes = 101376,  // source: CUDA Guide cc 8.9: 99 KB opt-in per block
        .regs_per_sm = 65536,  // source: CUDA Guide cc 8.9: 64K 32-bit registers
        .max_regs_per_thread = 255,  // source: CUDA Guide cc 8.9
        .max_warps_per_sm = 48,  // source: CUDA Guide cc 8.9
        .max_threads_per_sm = 1536,  // source: CUDA Guide cc 8.9
        .max_ctas_per_sm = 24,  // source: CUDA Guide cc 8.9
        .max_threads_per_cta = 1024,  // source: CUDA Guide cc 8.9
        .nvlink_gbps = 0.0,  // source: no NVLink on L40S
        .pcie_gbps = 32.0,  // source: AIC l40s.yaml pcie_bw (PCIe 4.0 x16, one direction)
        .memory_bytes = 48305799168.0,  // source: AIC l40s.yaml mem_capacity (46068 MiB)
    };
    /// Published dense peaks the derived ones are checked against (0 = not published).
    static constexpr gpu::datasheet published{
        .bf16_tflops = 362.05,  // source: AIC l40s.yaml bfloat16_tc_flops; L40S datasheet (dense)
        .fp8_tflops = 733.0,  // source: AIC l40s.yaml fp8_tc_flops; L40S datasheet (dense)
        .fp32_tflops = 91.6,  // source: L40S datasheet
    };
};

}  // namespace synperf::hw

static_assert(synperf::gpu::GpuSpec<synperf::hw::l40s>);
