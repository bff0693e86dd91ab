// SPDX-License-Identifier: Apache-2.0
// A program that consumes synperf the way a user project does: the umbrella header, an embedded model and its
// own GPU policy, composed into a compile-time predictor; and the e2e add-on, which brings nlohmann-json along.
#include <array>
#include <cmath>
#include <cstdio>
#include <string_view>

#include <synperf.hpp>
#include <synperf/e2e/model_config.hpp>  // synperf::e2e
#include <synperf/models.hpp>            // the shipped weights (synperf::models)

namespace {

/// H100 SXM5 figures, written out here so the consumer depends on nothing but the core headers.
struct consumer_gpu {
    static constexpr std::string_view name = "consumer_gpu";
    static constexpr std::string_view display_name = "NVIDIA H100 80GB HBM3";
    static constexpr std::array<std::string_view, 1> aliases{"h100"};
    static constexpr synperf::gpu::gpu_numbers numbers{
        .cc_major = 9,
        .cc_minor = 0,
        .sm_count = 132,
        .tensor_clock_mhz = 1830,
        .boost_clock_mhz = 1980,
        .tensor_bf16_flop_per_clk = 4096,
        .tensor_fp8_flop_per_clk = 8192,
        .tensor_fp4_flop_per_clk = 0,
        .fma_fp32_per_clk = 128,
        .xu_per_clk = 16,
        .dram_gbps = 3350,
        .l2_bytes = 50.0 * 1024 * 1024,
        .l2_gbps = 5500,
        .smem_bytes_per_clk = 128,
        .smem_per_sm_bytes = 228 * 1024,
        .smem_per_cta_bytes = 227 * 1024,
        .regs_per_sm = 65536,
        .max_regs_per_thread = 255,
        .max_warps_per_sm = 64,
        .max_threads_per_sm = 2048,
        .max_ctas_per_sm = 32,
        .max_threads_per_cta = 1024,
        .nvlink_gbps = 900,
        .pcie_gbps = 64,
        .memory_bytes = 80e9,
    };
    static constexpr synperf::gpu::datasheet published{.bf16_tflops = 989.4, .fp8_tflops = 1978.9, .fp32_tflops = 66.9};
};
static_assert(synperf::gpu::GpuSpec<consumer_gpu>);

}  // namespace

int main() {
    constexpr double bf16 = consumer_gpu::numbers.tensor_tflops(synperf::gpu::tensor_dtype::bf16);
    static_assert(bf16 > 0.99 * consumer_gpu::published.bf16_tflops && bf16 < 1.01 * consumer_gpu::published.bf16_tflops);
    const synperf::gpu::runtime_gpu gpu = synperf::gpu::to_runtime<consumer_gpu>();
    std::printf("synperf consumer: %s, %d SMs, bf16 dense peak %.0f TFLOPS\n", gpu.display_name.c_str(),
                gpu.numbers.sm_count, bf16);
    // Default-constructed: the family's shipped weights, found at compile time.
    const synperf::predictor<consumer_gpu, synperf::family::gemm> gemm;
    const double us = gemm.predict({4096, 4096, 4096}, "trtllm").latency_us;
    std::printf("synperf consumer: gemm 4096^3 predicted in %.1f us\n", us);
    const synperf::e2e::model_config model = synperf::e2e::parse_model_config(
        R"({"model_type": "llama", "hidden_size": 4096, "intermediate_size": 14336, "num_attention_heads": 32,
            "num_key_value_heads": 8, "num_hidden_layers": 32, "vocab_size": 128256})",
        "consumer.json");
    std::printf("synperf consumer: config.json of %d layers read\n", model.layers);
    return gpu.name == "consumer_gpu" && std::isfinite(us) && us > 0 && model.layers == 32 ? 0 : 1;
}
