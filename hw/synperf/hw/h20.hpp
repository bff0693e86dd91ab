// SPDX-License-Identifier: Apache-2.0
#pragma once
/// \file NVIDIA H20 96GB (Hopper GH100, sm_90).
#include <array>
#include <string_view>

#include "synperf/gpu/concept.hpp"
#include "synperf/gpu/numbers.hpp"

namespace synperf::hw {

/// NVIDIA H20 96 GB: Hopper GH100 cut to 78 SMs and quarter-rate tensor cores (China SKU).
/// aiconfigurator's h20_3e ("NVIDIA H20-3e", 141 GB HBM3e at 4.8 TB/s) is a different memory
/// configuration and is deliberately not an alias; describe it with a spec file
/// (examples/specs/h20_3e.spec: base = h20 with its memory numbers).
/// Sources: PipeWeave = data/pipeweave/hardware/*.json, AIC = data/aiconfigurator/systems/*.yaml,
/// NeuSight = data/neusight/device_configs/*.json, CUDA Guide = CUDA C++ Programming Guide compute-capability
/// tables; see docs/gpus.md.
struct h20 {
    /// Canonical id.
    static constexpr std::string_view name = "h20";
    /// CUDA device string.
    // source: CUDA device string (PipeWeave H20.json name)
    static constexpr std::string_view display_name = "NVIDIA H20";
    /// Other accepted names (matched case-insensitively, '-', '_' and ' ' alike).
    static constexpr std::array<std::string_view, 2> aliases{
        "NVIDIA H20",  // CUDA device string
        "H20",  // PipeWeave hardware/H20.json
    };
    /// The numbers a prediction reads; every one names its source.
    static constexpr gpu::gpu_numbers numbers{
        .cc_major = 9,  // source: sm_90; PipeWeave H20.json computeMajor/Minor
        .cc_minor = 0,  // source: as cc_major
        .sm_count = 78,  // source: PipeWeave H20.json numSms (CUDA-reported; Geekbench listings agree)
        .tensor_clock_mhz = 1853.0,  // derived: 148 TFLOPS / (78 SMs x 1024) = 1853 MHz (PipeWeave uses 1830)
        .boost_clock_mhz = 1980.0,  // source: GH100 boost clock as on H100 SXM (recall, not re-checked)
        .tensor_bf16_flop_per_clk = 1024.0,  // source: PipeWeave H20.json tcBf16: a quarter of the H100 rate
        .tensor_fp8_flop_per_clk = 2048.0,  // source: PipeWeave H20.json tcFp8
        .tensor_fp4_flop_per_clk = 0.0,  // source: Hopper has no FP4 tensor cores
        .fma_fp32_per_clk = 128.0,  // source: Hopper SM has 128 FP32 lanes (Hopper whitepaper; PipeWeave FmaFp32 = 128)
        // source: 16 MUFU results per clock per SM below cc 10.3 (PipeWeave xuFp32 = 16; docs/gpus.md#sm-rates)
        .xu_per_clk = 16.0,
        .dram_gbps = 4000.0,  // source: H20 product brief 4.0 TB/s; PipeWeave H20.json memBandwidth 4022.784
        .l2_bytes = 62914560.0,  // source: 60 MB; PipeWeave H20.json l2CacheSize 61440 KB
        .l2_gbps = 8815.0,  // source: PipeWeave H20.json l2CacheBandwidth (measured)
        .smem_bytes_per_clk = 128.0,  // source: 128 B/clk/SM (PipeWeave sharedMemoryBandwidth; docs/gpus.md#sm-rates)
        .smem_per_sm_bytes = 233472,  // source: CUDA Guide cc 9.0: 228 KB
        .smem_per_cta_bytes = 232448,  // source: CUDA Guide cc 9.0: 227 KB opt-in per block
        .regs_per_sm = 65536,  // source: CUDA Guide cc 9.0: 64K 32-bit registers
        .max_regs_per_thread = 255,  // source: CUDA Guide cc 9.0
        .max_warps_per_sm = 64,  // source: CUDA Guide cc 9.0
        .max_threads_per_sm = 2048,  // source: CUDA Guide cc 9.0
        .max_ctas_per_sm = 32,  // source: CUDA Guide cc 9.0
        .max_threads_per_cta = 1024,  // source: CUDA Guide cc 9.0
        .nvlink_gbps = 900.0,  // source: H20 product brief: NVLink 900 GB/s bidirectional
        .pcie_gbps = 64.0,  // source: PCIe 5.0 x16, one direction (aiconfigurator h20_3e.yaml pcie_bw)
        .memory_bytes = 101997084672.0,  // source: PipeWeave H20.json totalGlobalMem (CUDA-reported)
    };
    /// Published dense peaks the derived ones are checked against (0 = not published).
    static constexpr gpu::datasheet published{
        // source: H20 product brief (dense), as quoted by Chinese press; aiconfigurator h20_3e.yaml
        .bf16_tflops = 148.0,
        .fp8_tflops = 296.0,  // source: H20 product brief (dense); aiconfigurator h20_3e.yaml
        // not set: the quoted 44 TFLOPS does not fit 78 SMs x 256 flop at any Hopper clock (1980 MHz gives 39.5)
        .fp32_tflops = 0.0,
    };
};

}  // namespace synperf::hw

static_assert(synperf::gpu::GpuSpec<synperf::hw::h20>);
