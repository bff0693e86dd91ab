// SPDX-License-Identifier: Apache-2.0
// End-to-end prediction speed of the families without a bench of their own: FP8 GEMM, RMSNorm, SiLU&Mul,
// elementwise, the fused MoE block, one fused_moe_kernel launch and all-reduce. One typical serving shape each, GPU looked up by name at
// run time (the CLI's path), shipped embedded weights.
#include <benchmark/benchmark.h>

#include <memory>
#include <string_view>

#include <synperf/cost/mlp_cost.hpp>
#include <synperf/family/allreduce.hpp>
#include <synperf/family/elementwise.hpp>
#include <synperf/family/gemm_fp8.hpp>
#include <synperf/family/moe.hpp>
#include <synperf/family/moe_kernel.hpp>
#include <synperf/family/rmsnorm.hpp>
#include <synperf/family/silu_mul.hpp>
#include <synperf/gpu/registry.hpp>
#include <synperf/models/allreduce.hpp>
#include <synperf/models/elementwise.hpp>
#include <synperf/models/gemm_fp8.hpp>
#include <synperf/models/moe.hpp>
#include <synperf/models/moe_kernel.hpp>
#include <synperf/models/rmsnorm.hpp>
#include <synperf/models/silu_mul.hpp>
#include <synperf/predictor/predictor.hpp>
#include <synperf/system/catalogue.hpp>

namespace {

using namespace synperf;

std::shared_ptr<const mlp::network> borrow(const mlp::network& net) {
    return std::shared_ptr<const mlp::network>(&net, [](const mlp::network*) {});
}

template <class Family>
runtime_predictor<Family> on(std::string_view gpu, const mlp::network& net) {
    return runtime_predictor<Family>(gpu::find_gpu(gpu).numbers, cost::mlp_cost(borrow(net)));
}

// FP8 scaled_mm (CUTLASS, persistent on Hopper): m tokens x 4096 x 4096 on H100.
void bm_predict_gemm_fp8_h100(benchmark::State& state) {
    const auto p = on<family::gemm_fp8>("h100_sxm", models::gemm_fp8());
    const family::gemm_fp8_problem shape{state.range(0), 4096, 4096};
    for (auto _ : state) benchmark::DoNotOptimize(p.predict(shape).latency_us);
}
BENCHMARK(bm_predict_gemm_fp8_h100)->Arg(1)->Arg(128)->Arg(4096);

// RMSNorm, hidden 8192 (fused residual add, FlashInfer's launch) on A100.
void bm_predict_rmsnorm_a100(benchmark::State& state) {
    const auto p = on<family::rmsnorm>("a100_sxm", models::rmsnorm());
    const family::rmsnorm_problem shape{state.range(0), 8192, true, 2, family::rmsnorm_impl::flashinfer};
    for (auto _ : state) benchmark::DoNotOptimize(p.predict(shape).latency_us);
}
BENCHMARK(bm_predict_rmsnorm_a100)->Arg(1)->Arg(4096);

// SiLU&Mul over 2 x 28672 (Llama-3-70B's MLP, FlashInfer's launch) on H100.
void bm_predict_silu_mul_h100(benchmark::State& state) {
    const auto p = on<family::silu_mul>("h100_sxm", models::silu_mul());
    const family::silu_mul_problem shape{state.range(0), 28672, 2, family::silu_mul_impl::flashinfer};
    for (auto _ : state) benchmark::DoNotOptimize(p.predict(shape).latency_us);
}
BENCHMARK(bm_predict_silu_mul_h100)->Arg(1)->Arg(4096);

// RoPE over 64 / 8 heads of 128 (Llama-3-70B) on H100.
void bm_predict_rope_h100(benchmark::State& state) {
    const auto p = on<family::elementwise>("h100_sxm", models::elementwise());
    family::elementwise_problem shape;
    shape.kind = family::elementwise_kind::rope;
    shape.rows = state.range(0);
    shape.heads = 64;
    shape.kv_heads = 8;
    shape.head_dim = 128;
    for (auto _ : state) benchmark::DoNotOptimize(p.predict(shape, "vidur").latency_us);
}
BENCHMARK(bm_predict_rope_h100)->Arg(1)->Arg(4096);

// Mixtral-8x7B's MoE block (8 experts, top 2, hidden 4096, intermediate 14336), bf16, on H100.
void bm_predict_moe_h100(benchmark::State& state) {
    const auto p = on<family::moe>("h100_sxm", models::moe());
    family::moe_problem shape;
    shape.tokens = state.range(0);
    shape.hidden = 4096;
    shape.inter = 14336;
    shape.experts = 8;
    shape.topk = 2;
    for (auto _ : state) benchmark::DoNotOptimize(p.predict(shape).latency_us);
}
BENCHMARK(bm_predict_moe_h100)->Arg(1)->Arg(4096);

// Qwen3-30B-A3B's gate/up GEMM (128 experts, top 8, hidden 2048, intermediate 768) as one fused_moe_kernel launch with a
// 64 x 128 x 64 config, on L40.
void bm_predict_moe_kernel_l40(benchmark::State& state) {
    const auto p = on<family::moe_kernel>("l40", models::moe_kernel());
    family::moe_kernel_problem shape;
    shape.tokens = state.range(0);
    shape.hidden = 2048;
    shape.inter = 768;
    shape.experts = 128;
    shape.topk = 8;
    shape.config = {64, 128, 64, 8, 4, 3};
    for (auto _ : state) benchmark::DoNotOptimize(p.predict(shape).latency_us);
}
BENCHMARK(bm_predict_moe_kernel_l40)->Arg(1)->Arg(4096);

// All-reduce of a Llama-3-70B activation (tokens x 8192 bf16) over 8 H100 (NVSwitch), SGLang's custom kernels.
void bm_predict_allreduce_h100x8(benchmark::State& state) {
    const auto p = on<family::allreduce>("h100_sxm", models::allreduce());
    family::allreduce_problem shape;
    shape.system = system::builtin_system("h100_sxm");
    shape.bytes = state.range(0) * 8192 * 2;
    shape.gpus = 8;
    for (auto _ : state) benchmark::DoNotOptimize(p.predict(shape, "sglang").latency_us);
}
BENCHMARK(bm_predict_allreduce_h100x8)->Arg(1)->Arg(4096);

}  // namespace
