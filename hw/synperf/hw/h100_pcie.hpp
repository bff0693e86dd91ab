// SPDX-License-Identifier: Apache-2.0
#pragma once
/// \file NVIDIA H100 PCIe 80GB (Hopper GH100, sm_90).
#include <array>
#include <string_view>

#include "synperf/gpu/concept.hpp"
#include "synperf/gpu/numbers.hpp"

namespace synperf::hw {

/// NVIDIA H100 PCIe 80 GB: Hopper GH100, 114 SMs, HBM2e, 350 W.
/// Sources: PipeWeave = data/pipeweave/hardware/*.json, AIC = data/aiconfigurator/systems/*.yaml,
/// NeuSight = data/neusight/device_configs/*.json, CUDA Guide = CUDA C++ Programming Guide compute-capability
/// tables; see docs/gpus.md.
struct h100_pcie {
    /// Canonical id.
    static constexpr std::string_view name = "h100_pcie";
    /// CUDA device string.
    static constexpr std::string_view display_name = "NVIDIA H100 PCIe";  // source: CUDA device string
    /// Other accepted names (matched case-insensitively, '-', '_' and ' ' alike).
    static constexpr std::array<std::string_view, 2> aliases{
        "NVIDIA H100 PCIe",  // CUDA device string
        "H100-PCIe-80GB",  // product name
    };
    /// The numbers a prediction reads; every one names its source.
    static constexpr gpu::gpu_numbers numbers{
        .cc_major = 9,  // source: sm_90; AIC h100_pcie.yaml sm_version 90
        .cc_minor = 0,  // source: as cc_major
        .sm_count = 114,  // source: Hopper whitepaper (H100 PCIe: 114 SMs); docs/gpus.md#datasheets
        .tensor_clock_mhz = 1620.0,  // derived: 756.5 TFLOPS / (114 SMs x 4096) = 1620 MHz (docs/gpus.md#clocks)
        .boost_clock_mhz = 1755.0,  // source: Hopper whitepaper max boost; 2 x 128 x 114 x 1755 MHz = 51.2 TFLOPS FP32
        .tensor_bf16_flop_per_clk = 4096.0,  // source: same GH100 SM as h100_sxm
        .tensor_fp8_flop_per_clk = 8192.0,  // derived: 2 x bf16; 114 x 8192 x 1620 MHz = 1513 TFLOPS
        .tensor_fp4_flop_per_clk = 0.0,  // source: Hopper has no FP4 tensor cores
        .fma_fp32_per_clk = 128.0,  // source: Hopper SM has 128 FP32 lanes (Hopper whitepaper; PipeWeave FmaFp32 = 128)
        // source: 16 MUFU results per clock per SM below cc 10.3 (PipeWeave xuFp32 = 16; docs/gpus.md#sm-rates)
        .xu_per_clk = 16.0,
        .dram_gbps = 2000.0,  // source: AIC h100_pcie.yaml mem_bw 2 TB/s; H100 PCIe datasheet
        .l2_bytes = 52428800.0,  // source: 50 MB (GH100, Hopper whitepaper)
        .l2_gbps = 6743.0,  // derived: H100 SXM measured 8820 GB/s = 36.51 B/clk/SM; x 114 SMs x 1620 MHz
        .smem_bytes_per_clk = 128.0,  // source: 128 B/clk/SM (PipeWeave sharedMemoryBandwidth; docs/gpus.md#sm-rates)
        .smem_per_sm_bytes = 233472,  // source: CUDA Guide cc 9.0: 228 KB
        .smem_per_cta_bytes = 232448,  // source: CUDA Guide cc 9.0: 227 KB opt-in per block
        .regs_per_sm = 65536,  // source: CUDA Guide cc 9.0: 64K 32-bit registers
        .max_regs_per_thread = 255,  // source: CUDA Guide cc 9.0
        .max_warps_per_sm = 64,  // source: CUDA Guide cc 9.0
        .max_threads_per_sm = 2048,  // source: CUDA Guide cc 9.0
        .max_ctas_per_sm = 32,  // source: CUDA Guide cc 9.0
        .max_threads_per_cta = 1024,  // source: CUDA Guide cc 9.0
        .nvlink_gbps = 600.0,  // source: H100 PCIe datasheet: NVLink bridge, 600 GB/s bidirectional
        .pcie_gbps = 64.0,  // source: AIC h100_pcie.yaml pcie_bw (PCIe 5.0 x16, one direction)
        .memory_bytes = 85899345920.0,  // source: AIC h100_pcie.yaml mem_capacity (80 GiB)
    };
    /// Published dense peaks the derived ones are checked against (0 = not published).
    static constexpr gpu::datasheet published{
        .bf16_tflops = 756.5,  // source: AIC h100_pcie.yaml bfloat16_tc_flops (dense; 1513 with sparsity)
        .fp8_tflops = 1513.0,  // source: AIC h100_pcie.yaml fp8_tc_flops (dense; 3026 with sparsity)
        .fp32_tflops = 51.2,  // source: Hopper whitepaper (datasheet rounds to 51)
    };
};

}  // namespace synperf::hw

static_assert(synperf::gpu::GpuSpec<synperf::hw::h100_pcie>);
