// SPDX-License-Identifier: Apache-2.0
#pragma once
/// \file NVIDIA GB200, per GPU (Blackwell, sm_100).
#include <array>
#include <string_view>

#include "synperf/gpu/concept.hpp"
#include "synperf/gpu/numbers.hpp"

namespace synperf::hw {

/// NVIDIA GB200 (one Blackwell GPU of a Grace Blackwell superchip): 148 SMs, HBM3e, 1200 W.
/// Clocks are not published; both are derived so that the derived peaks equal the
/// published dense TFLOPS. The 148-SM count is assumed equal to B200.
/// Sources: PipeWeave = data/pipeweave/hardware/*.json, AIC = data/aiconfigurator/systems/*.yaml,
/// NeuSight = data/neusight/device_configs/*.json, CUDA Guide = CUDA C++ Programming Guide compute-capability
/// tables; see docs/gpus.md.
struct gb200 {
    /// Canonical id.
    static constexpr std::string_view name = "gb200";
    /// CUDA device string.
    // source: CUDA device string (aiconfigurator inventory)
    static constexpr std::string_view display_name = "NVIDIA GB200";
    /// Other accepted names (matched case-insensitively, '-', '_' and ' ' alike).
    static constexpr std::array<std::string_view, 1> aliases{
        "NVIDIA GB200",  // CUDA device string
    };
    /// The numbers a prediction reads; every one names its source.
    static constexpr gpu::gpu_numbers numbers{
        .cc_major = 10,  // source: sm_100; AIC gb200.yaml sm_version 100
        .cc_minor = 0,  // source: as cc_major
        .sm_count = 148,  // source: assumed equal to B200 (uncertain; docs/gpus.md#datasheets)
        .tensor_clock_mhz = 2062.0,  // derived: 2500 TFLOPS / (148 SMs x 8192) = 2062.0 MHz (uncertain)
        .boost_clock_mhz = 2111.5,  // derived: 80 TFLOPS FP32 / (2 x 128 x 148) = 2111.5 MHz (uncertain)
        .tensor_bf16_flop_per_clk = 8192.0,  // derived: inferred, as b200_sxm
        .tensor_fp8_flop_per_clk = 16384.0,  // derived: 2 x bf16; 148 x 16384 x 2062 MHz = 5000 TFLOPS
        .tensor_fp4_flop_per_clk = 32768.0,  // derived: 4 x bf16; 148 x 32768 x 2062 MHz = 10000 TFLOPS
        .fma_fp32_per_clk = 128.0,  // source: Blackwell SM has 128 FP32 lanes (Blackwell architecture brief)
        // source: 16 MUFU results per clock per SM below cc 10.3 (PipeWeave xuFp32 = 16; docs/gpus.md#sm-rates)
        .xu_per_clk = 16.0,
        .dram_gbps = 8000.0,  // source: AIC gb200.yaml mem_bw 8 TB/s
        .l2_bytes = 132120576.0,  // source: 126 MB, assumed equal to B200 (uncertain)
        // derived: no measured sm_100 part; H100 SXM measured 8820 GB/s = 36.51 B/clk/SM (the only measured Blackwell,
        // GB202, would put L2 below DRAM bandwidth); x 148 SMs x 2062.0 MHz
        .l2_gbps = 11142.0,
        .smem_bytes_per_clk = 128.0,  // source: 128 B/clk/SM (PipeWeave sharedMemoryBandwidth; docs/gpus.md#sm-rates)
        .smem_per_sm_bytes = 233472,  // source: CUDA Guide cc 10.0: 228 KB
        .smem_per_cta_bytes = 232448,  // source: CUDA Guide cc 10.0: 227 KB opt-in per block
        .regs_per_sm = 65536,  // source: CUDA Guide cc 10.0: 64K 32-bit registers
        .max_regs_per_thread = 255,  // source: CUDA Guide cc 10.0
        .max_warps_per_sm = 64,  // source: CUDA Guide cc 10.0
        .max_threads_per_sm = 2048,  // source: CUDA Guide cc 10.0
        .max_ctas_per_sm = 32,  // source: CUDA Guide cc 10.0
        .max_threads_per_cta = 1024,  // source: CUDA Guide cc 10.0
        .nvlink_gbps = 1800.0,  // source: NVLink 5; AIC gb200.yaml intra_node_bw 900 GB/s per direction x 2
        .pcie_gbps = 64.0,  // source: AIC gb200.yaml pcie_bw (PCIe 5.0, one direction)
        .memory_bytes = 198674743296.0,  // source: AIC gb200.yaml mem_capacity (189471 MiB, nvidia-smi)
    };
    /// Published dense peaks the derived ones are checked against (0 = not published).
    static constexpr gpu::datasheet published{
        .bf16_tflops = 2500.0,  // source: AIC gb200.yaml bfloat16_tc_flops
        .fp8_tflops = 5000.0,  // source: AIC gb200.yaml fp8_tc_flops
        .fp4_tflops = 10000.0,  // source: AIC gb200.yaml fp4_tc_flops
        .fp32_tflops = 80.0,  // source: GB200 NVL72 datasheet, per GPU (docs/gpus.md#datasheets)
    };
};

}  // namespace synperf::hw

static_assert(synperf::gpu::GpuSpec<synperf::hw::gb200>);
