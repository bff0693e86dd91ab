// SPDX-License-Identifier: Apache-2.0
#pragma once
/// \file NVIDIA A100-PCIE-40GB (Ampere GA100, sm_80).
#include <array>
#include <string_view>

#include "synperf/gpu/concept.hpp"
#include "synperf/gpu/numbers.hpp"

namespace synperf::hw {

/// NVIDIA A100 PCIe 40 GB: Ampere GA100, 108 SMs, HBM2, 250 W.
/// Sources: PipeWeave = data/pipeweave/hardware/*.json, AIC = data/aiconfigurator/systems/*.yaml,
/// NeuSight = data/neusight/device_configs/*.json, CUDA Guide = CUDA C++ Programming Guide compute-capability
/// tables; see docs/gpus.md.
struct a100_pcie_40gb {
    /// Canonical id.
    static constexpr std::string_view name = "a100_pcie_40gb";
    /// CUDA device string.
    // source: CUDA device string (NeuSight device_configs, inventory)
    static constexpr std::string_view display_name = "NVIDIA A100-PCIE-40GB";
    /// Other accepted names (matched case-insensitively, '-', '_' and ' ' alike).
    static constexpr std::array<std::string_view, 2> aliases{
        "NVIDIA A100-PCIE-40GB",  // CUDA device string (NeuSight; NVIDIA_A100-PCIE-40GB normalizes to it)
        "A100-PCIE-40GB",  // device string without vendor
    };
    /// The numbers a prediction reads; every one names its source.
    static constexpr gpu::gpu_numbers numbers{
        .cc_major = 8,  // source: sm_80 (GA100)
        .cc_minor = 0,  // source: as cc_major
        .sm_count = 108,  // source: NeuSight device_configs/NVIDIA_A100-PCIE-40GB.json Num_Sm; A100 datasheet
        // source: NeuSight Freq; A100 datasheet boost clock (250 W TDP, so sustained clocks may be lower)
        .tensor_clock_mhz = 1410.0,
        // source: A100 datasheet boost clock; NeuSight SingleFLOPs 19492 = 2 x 64 x 108 x 1410 MHz
        .boost_clock_mhz = 1410.0,
        // source: same GA100 SM as a100_sxm; derived: 312 TFLOPS / (108 x 1410 MHz)
        .tensor_bf16_flop_per_clk = 2048.0,
        .tensor_fp8_flop_per_clk = 0.0,  // source: Ampere has no FP8 tensor cores
        .tensor_fp4_flop_per_clk = 0.0,  // source: Ampere has no FP4 tensor cores
        .fma_fp32_per_clk = 64.0,  // source: sm_80 has 64 FP32 lanes per SM (Ampere whitepaper; PipeWeave FmaFp32 = 64)
        // source: 16 MUFU results per clock per SM below cc 10.3 (PipeWeave xuFp32 = 16; docs/gpus.md#sm-rates)
        .xu_per_clk = 16.0,
        .dram_gbps = 1555.0,  // source: A100 40GB datasheet 1555 GB/s; NeuSight Mem_Bw 1555
        .l2_bytes = 41943040.0,  // source: 40 MB; NeuSight L2Cache 40
        // derived: A100 SXM measured 3235 GB/s (PipeWeave) = 21.24 B/clk/SM x 108 SMs x 1410 MHz (same SMs and clock)
        .l2_gbps = 3235.0,
        .smem_bytes_per_clk = 128.0,  // source: 128 B/clk/SM (PipeWeave sharedMemoryBandwidth; docs/gpus.md#sm-rates)
        .smem_per_sm_bytes = 167936,  // source: CUDA Guide cc 8.0: 164 KB max carveout
        .smem_per_cta_bytes = 166912,  // source: CUDA Guide cc 8.0: 163 KB opt-in per block
        .regs_per_sm = 65536,  // source: CUDA Guide cc 8.0: 64K 32-bit registers
        .max_regs_per_thread = 255,  // source: CUDA Guide cc 8.0
        .max_warps_per_sm = 64,  // source: CUDA Guide cc 8.0
        .max_threads_per_sm = 2048,  // source: CUDA Guide cc 8.0
        .max_ctas_per_sm = 32,  // source: CUDA Guide cc 8.0
        .max_threads_per_cta = 1024,  // source: CUDA Guide cc 8.0
        .nvlink_gbps = 600.0,  // source: A100 PCIe datasheet: NVLink bridge for 2 GPUs, 600 GB/s bidirectional
        .pcie_gbps = 32.0,  // source: PCIe 4.0 x16, one direction (A100 datasheet 64 GB/s bidirectional)
        .memory_bytes = 42949672960.0,  // derived: datasheet 40 GB HBM2 taken as 40 GiB; NeuSight Dev_Mem 40
    };
    /// Published dense peaks the derived ones are checked against (0 = not published).
    static constexpr gpu::datasheet published{
        .bf16_tflops = 312.0,  // source: A100 datasheet (dense BF16)
        .fp32_tflops = 19.5,  // source: A100 datasheet; NeuSight SingleFLOPs 19492 GFLOPS
    };
};

}  // namespace synperf::hw

static_assert(synperf::gpu::GpuSpec<synperf::hw::a100_pcie_40gb>);
