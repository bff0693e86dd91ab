// SPDX-License-Identifier: Apache-2.0
#pragma once
/// \file NVIDIA B300 SXM6 (Blackwell Ultra, sm_103).
#include <array>
#include <string_view>

#include "synperf/gpu/concept.hpp"
#include "synperf/gpu/numbers.hpp"

namespace synperf::hw {

/// NVIDIA B300 SXM6 (HGX): Blackwell Ultra, 160 SMs, 288 GB HBM3e, NVLink 5.
/// The SM count (160) comes from NVIDIA's Blackwell Ultra material. Clocks are not published. B300 is
/// GB300's GPU under a lower power limit (1100 W against 1400 W), and both are quoted at the same exponential
/// rate (10.7 TeraExponentials/s), so the two run at the same clock wherever the power limit does not bind
/// (latency, small grids, memory-bound work); B300's lower dense peaks (2250 against 2500 TFLOPS, FP32 75
/// against 80) are what it sustains at its power limit. The catalogue therefore gives it GB300's derived
/// clocks and per-clock tensor and FP32 rates that reproduce its own published peaks at them (docs/gpus.md §3).
/// NVIDIA's own dense FP4 figures disagree (13125 TFLOPS in the HGX B300 table, 14000 elsewhere); the fp4
/// rate follows the 14000 that aiconfigurator's data were collected against.
/// Sources: PipeWeave = data/pipeweave/hardware/*.json, AIC = data/aiconfigurator/systems/*.yaml,
/// NeuSight = data/neusight/device_configs/*.json, CUDA Guide = CUDA C++ Programming Guide compute-capability
/// tables; see docs/gpus.md.
struct b300_sxm {
    /// Canonical id.
    static constexpr std::string_view name = "b300_sxm";
    /// CUDA device string.
    // source: CUDA device string (aiconfigurator inventory)
    static constexpr std::string_view display_name = "NVIDIA B300 SXM6 AC";
    /// Other accepted names (matched case-insensitively, '-', '_' and ' ' alike).
    static constexpr std::array<std::string_view, 3> aliases{
        "NVIDIA B300 SXM6 AC",  // CUDA device string
        "NVIDIA B300",  // device string family
        "B300",  // short name
    };
    /// The numbers a prediction reads; every one names its source.
    static constexpr gpu::gpu_numbers numbers{
        .cc_major = 10,  // source: sm_103; AIC b300_sxm.yaml sm_version 103
        .cc_minor = 3,  // source: as cc_major
        // source: NVIDIA Blackwell Ultra material: 160 SMs, 640 tensor cores, 20480 CUDA cores (uncertain)
        .sm_count = 160,
        .tensor_clock_mhz = 1907.3,  // derived: GB300's (same GPU; its power limit binds only under dense load) (uncertain)
        .boost_clock_mhz = 1953.1,  // derived: GB300's, as the tensor clock (uncertain)
        // derived: power-limited sustained rate: 2250 TFLOPS / (160 SMs x 1907.3 MHz) = 7373 (0.9 x the 8192 of
        // the SM; uncertain)
        .tensor_bf16_flop_per_clk = 7373.0,
        .tensor_fp8_flop_per_clk = 14746.0,  // derived: 2 x bf16; 160 x 14746 x 1907.3 MHz = 4500 TFLOPS
        // derived: 14000 TFLOPS / (160 SMs x 1907.3 MHz) = 45876 (about 6.2 x bf16; GB300 has 6 x)
        .tensor_fp4_flop_per_clk = 45876.0,
        // derived: power-limited sustained rate: 75 TFLOPS / (2 x 160 SMs x 1953.1 MHz) = 120 of the SM's 128 FP32
        // lanes (160 SMs x 128 = 20480 CUDA cores)
        .fma_fp32_per_clk = 120.0,
        // source: Blackwell Ultra doubles the SFU (MUFU.EX2) rate over B200 (NVIDIA Blackwell Ultra material,
        // docs/gpus.md#sm-rates)
        .xu_per_clk = 32.0,
        .dram_gbps = 7750.0,  // source: AIC b300_sxm.yaml mem_bw 7.75 TB/s (62 TB/s / 8)
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
        .nvlink_gbps = 1800.0,  // source: NVLink 5; AIC b300_sxm.yaml intra_node_bw 900 GB/s per direction x 2
        .pcie_gbps = 128.0,  // source: AIC b300_sxm.yaml pcie_bw (PCIe 6.0, one direction)
        .memory_bytes = 288400343040.0,  // source: AIC b300_sxm.yaml mem_capacity (275040 MiB, nvidia-smi)
    };
    /// Published dense peaks the derived ones are checked against (0 = not published).
    static constexpr gpu::datasheet published{
        .bf16_tflops = 2250.0,  // source: AIC b300_sxm.yaml bfloat16_tc_flops (4.5 PF sparse / 2)
        .fp8_tflops = 4500.0,  // source: AIC b300_sxm.yaml fp8_tc_flops
        .fp4_tflops = 14000.0,  // source: AIC b300_sxm.yaml fp4_tc_flops (dense; uncertain, see above)
        .fp32_tflops = 75.0,  // source: HGX B300 per-GPU table (glennklockwood.com B300 page; verda.com GB300 article)
        // power limits (B300 1.1 kW, GB300 1.4 kW) and the equal 10.7 TeraExponentials/s: verda.com GB300 article
    };
};

}  // namespace synperf::hw

static_assert(synperf::gpu::GpuSpec<synperf::hw::b300_sxm>);
