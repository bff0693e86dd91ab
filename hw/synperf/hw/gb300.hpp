// SPDX-License-Identifier: Apache-2.0
#pragma once
/// \file NVIDIA GB300, per GPU (Blackwell Ultra, sm_103).
#include <array>
#include <string_view>

#include "synperf/gpu/concept.hpp"
#include "synperf/gpu/numbers.hpp"

namespace synperf::hw {

/// NVIDIA GB300 (one Blackwell Ultra GPU of a Grace Blackwell superchip): 160 SMs, 288 GB HBM3e, 1400 W.
/// Clocks are not published; both are derived so that the derived peaks equal the
/// published dense TFLOPS. The SM count is assumed equal to B300.
/// Sources: PipeWeave = data/pipeweave/hardware/*.json, AIC = data/aiconfigurator/systems/*.yaml,
/// NeuSight = data/neusight/device_configs/*.json, CUDA Guide = CUDA C++ Programming Guide compute-capability
/// tables; see docs/gpus.md.
struct gb300 {
    /// Canonical id.
    static constexpr std::string_view name = "gb300";
    /// CUDA device string.
    // source: CUDA device string (aiconfigurator inventory)
    static constexpr std::string_view display_name = "NVIDIA GB300";
    /// Other accepted names (matched case-insensitively, '-', '_' and ' ' alike).
    static constexpr std::array<std::string_view, 1> aliases{
        "NVIDIA GB300",  // CUDA device string
    };
    /// The numbers a prediction reads; every one names its source.
    static constexpr gpu::gpu_numbers numbers{
        .cc_major = 10,  // source: sm_103; AIC gb300.yaml sm_version 103
        .cc_minor = 3,  // source: as cc_major
        .sm_count = 160,  // source: assumed equal to B300 (uncertain)
        .tensor_clock_mhz = 1907.3,  // derived: 2500 TFLOPS / (160 SMs x 8192) = 1907.3 MHz (uncertain)
        .boost_clock_mhz = 1953.1,  // derived: 80 TFLOPS FP32 / (2 x 128 x 160) = 1953.1 MHz (uncertain)
        .tensor_bf16_flop_per_clk = 8192.0,  // derived: inferred: same per-SM rate as B200 (uncertain)
        .tensor_fp8_flop_per_clk = 16384.0,  // derived: 2 x bf16; 160 x 16384 x 1907.3 MHz = 5000 TFLOPS
        // derived: 6 x bf16 (1.5 x B200's NVFP4 per SM); 160 x 49152 x 1907.3 MHz = 15000 TFLOPS
        .tensor_fp4_flop_per_clk = 49152.0,
        .fma_fp32_per_clk = 128.0,  // source: Blackwell Ultra SM has 128 FP32 lanes (160 SMs x 128 = 20480 CUDA cores)
        // source: Blackwell Ultra doubles the SFU (MUFU.EX2) rate over B200 (NVIDIA Blackwell Ultra material,
        // docs/gpus.md#sm-rates)
        .xu_per_clk = 32.0,
        .dram_gbps = 8000.0,  // source: AIC gb300.yaml mem_bw 8 TB/s
        .l2_bytes = 132120576.0,  // source: 126 MB, assumed equal to B200 (uncertain)
        // derived: no measured sm_100 part; H100 SXM measured 8820 GB/s = 36.51 B/clk/SM (the only measured Blackwell,
        // GB202, would put L2 below DRAM bandwidth); x 160 SMs x 1907.3 MHz
        .l2_gbps = 11142.0,
        .smem_bytes_per_clk = 128.0,  // source: 128 B/clk/SM (PipeWeave sharedMemoryBandwidth; docs/gpus.md#sm-rates)
        .smem_per_sm_bytes = 233472,  // source: CUDA Guide cc 10.x: 228 KB
        .smem_per_cta_bytes = 232448,  // source: CUDA Guide cc 10.x: 227 KB opt-in per block
        .regs_per_sm = 65536,  // source: CUDA Guide cc 10.3: 64K 32-bit registers
        .max_regs_per_thread = 255,  // source: CUDA Guide cc 10.3
        .max_warps_per_sm = 64,  // source: CUDA Guide cc 10.3
        .max_threads_per_sm = 2048,  // source: CUDA Guide cc 10.3
        .max_ctas_per_sm = 32,  // source: CUDA Guide cc 10.3
        .max_threads_per_cta = 1024,  // source: CUDA Guide cc 10.3
        .nvlink_gbps = 1800.0,  // source: NVLink 5; AIC gb300.yaml intra_node_bw 900 GB/s per direction x 2
        .pcie_gbps = 64.0,  // source: AIC gb300.yaml pcie_bw (one direction)
        .memory_bytes = 298013687808.0,  // source: AIC gb300.yaml mem_capacity (284208 MiB, nvidia-smi)
    };
    /// Published dense peaks the derived ones are checked against (0 = not published).
    static constexpr gpu::datasheet published{
        .bf16_tflops = 2500.0,  // source: AIC gb300.yaml bfloat16_tc_flops
        .fp8_tflops = 5000.0,  // source: AIC gb300.yaml fp8_tc_flops
        .fp4_tflops = 15000.0,  // source: AIC gb300.yaml fp4_tc_flops
        .fp32_tflops = 80.0,  // source: GB300 per-GPU table (verda.com GB300 NVL72 article)
    };
};

}  // namespace synperf::hw

static_assert(synperf::gpu::GpuSpec<synperf::hw::gb300>);
