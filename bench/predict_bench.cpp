// SPDX-License-Identifier: Apache-2.0
// End-to-end prediction speed: decompose -> schedule -> features -> MLP, for one GEMM and one FP8 linear layer.
#include <benchmark/benchmark.h>

#include <synperf/cost/mlp_cost.hpp>
#include <synperf/family/fp8_linear.hpp>
#include <synperf/family/gemm.hpp>
#include <synperf/gpu/registry.hpp>
#include <synperf/mlp/compiled.hpp>
#include <synperf/models/fp8_linear.hpp>
#include <synperf/models/gemm.hpp>
#include <synperf/predictor/predictor.hpp>
#include <synperf/hw/h100_sxm.hpp>
#include <synperf/hw/a100_sxm.hpp>

namespace {

using namespace synperf;

const std::shared_ptr<const mlp::network>& shipped_gemm() {
    static const auto net = std::shared_ptr<const mlp::network>(&models::gemm(), [](const mlp::network*) {});
    return net;
}

/// One prediction, kept out of line so that bench/instructions.sh can count its calls and instructions.
template <class Predictor, class Problem>
[[gnu::noinline]] double predict_once(const Predictor& p, const Problem& problem, const char* framework) {
    return p.predict(problem, framework).latency_us;
}

// Compile-time composed predictor (persistent kernel on Hopper).
void bm_predict_gemm_h100_compile_time(benchmark::State& state) {
    const predictor<hw::h100_sxm, family::gemm> p{cost::mlp_cost(shipped_gemm())};
    const family::gemm_problem shape{state.range(0), 4096, 4096};
    for (auto _ : state) benchmark::DoNotOptimize(predict_once(p, shape, "trtllm"));
}
BENCHMARK(bm_predict_gemm_h100_compile_time)->Arg(1)->Arg(128)->Arg(4096);

// Run-time GPU (one CTA per tile with split-K on Ampere).
void bm_predict_gemm_a100_runtime(benchmark::State& state) {
    const runtime_predictor<family::gemm> p(gpu::find_gpu("a100_sxm").numbers, cost::mlp_cost(shipped_gemm()));
    const family::gemm_problem shape{state.range(0), 4096, 4096};
    for (auto _ : state) benchmark::DoNotOptimize(predict_once(p, shape, "sglang"));
}
BENCHMARK(bm_predict_gemm_a100_runtime)->Arg(1)->Arg(128)->Arg(4096);

// An FP8 linear layer (quantization kernels + GEMM), run-time GPU: TensorRT-LLM on H100 (three kernels).
void bm_predict_fp8_linear_h100_runtime(benchmark::State& state) {
    static const auto net = std::shared_ptr<const mlp::network>(&models::fp8_linear(), [](const mlp::network*) {});
    const runtime_predictor<family::fp8_linear> p(gpu::find_gpu("h100_sxm").numbers, cost::mlp_cost(net));
    const family::fp8_linear_problem shape{state.range(0), 4096, 4096, family::fp8_linear_framework::trtllm, 0.0};
    for (auto _ : state) benchmark::DoNotOptimize(p.predict(shape, "trtllm").latency_us);
}
BENCHMARK(bm_predict_fp8_linear_h100_runtime)->Arg(1)->Arg(128)->Arg(4096);

// The MLP forward pass alone: the compiled evaluator the cost model uses, and the reference evaluator.
void bm_mlp_forward_compiled(benchmark::State& state) {
    const mlp::compiled_network net(*shipped_gemm());
    std::vector<double> x(shipped_gemm()->feature_names.size(), 3.0);
    const std::array<std::size_t, 1> level{0};
    for (auto _ : state) benchmark::DoNotOptimize(net.evaluate(std::span<const double>(x), std::span<const std::size_t>(level)));
}
BENCHMARK(bm_mlp_forward_compiled);

void bm_mlp_forward_reference(benchmark::State& state) {
    const auto& net = *shipped_gemm();
    std::vector<double> x(net.feature_names.size(), 3.0);
    const std::array<std::size_t, 1> level{0};
    for (auto _ : state) benchmark::DoNotOptimize(mlp::evaluate(net, std::span<const double>(x), std::span<const std::size_t>(level)));
}
BENCHMARK(bm_mlp_forward_reference);

}  // namespace
