// SPDX-License-Identifier: Apache-2.0
// End-to-end run prediction speed: Llama-3.1-70B on 8 H100s (TP 8), 32 prompts (88,752 prompt tokens),
// 67 decode steps — workload generation, every family's pipeline for each distinct op, memo, overheads.
#include <benchmark/benchmark.h>

#include <cmath>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include <synperf/e2e.hpp>
#include <synperf/e2e/shipped_models.hpp>
#include <synperf/gpu/registry.hpp>
#include <synperf/system/catalogue.hpp>

namespace {

using namespace synperf;

/// A random network of the shipped architecture (256-128-64) for family F: same evaluation cost as trained
/// weights, used only when this build embeds no weights for F (the label names those families).
template <class F>
std::shared_ptr<const mlp::network> same_shape_network() {
    mlp::network n;
    n.family = std::string(F::name);
    for (auto f : F::feature_names) n.feature_names.emplace_back(f);
    mlp::categorical_input c;
    c.name = "framework";
    for (auto l : F::framework_levels) c.levels.emplace_back(l);
    n.categoricals.push_back(c);
    std::mt19937 rng(7);
    std::normal_distribution<float> w(0.0f, 0.05f);
    std::size_t in = n.input_width();
    for (std::size_t out : {256u, 128u, 64u, 1u}) {
        mlp::dense_layer l;
        l.in = in;
        l.out = out;
        l.act = out == 1 ? mlp::activation::sigmoid : mlp::activation::relu;
        l.weights.resize(in * out);
        for (auto& x : l.weights) x = w(rng);
        l.bias.assign(out, 0.01f);
        n.layers.push_back(std::move(l));
        in = out;
    }
    return std::make_shared<const mlp::network>(std::move(n));
}

template <class F>
void complete(std::shared_ptr<const mlp::network>& slot, std::string& label) {
    if (slot) return;
    slot = same_shape_network<F>();
    label += (label.empty() ? "same-shape random weights for: " : ", ") + std::string(F::name);
}

e2e::family_models bench_models(std::string& label) {
    e2e::family_models m = e2e::shipped_models();
    builtin_families::for_each([&](auto family) {
        using F = typename decltype(family)::type;
        complete<F>(m.get<F>(), label);
    });
    return m;
}

e2e::run_request llama70b_tp8() {
    e2e::run_request r;
    r.model = e2e::find_model("llama-3.1-70b");
    r.deploy.tp = 8;
    r.deploy.node = system::builtin_system("h100_sxm");
    for (int i = 0; i < 32; ++i) r.prompt_lens.push_back(1200 + (i * 1237) % 3200);  // 88,752 tokens
    r.decode_steps = 67;
    return r;
}

// A whole run from a cold memo: a new estimator per run, as a user's first call.
void bm_e2e_llama70b_tp8_run(benchmark::State& state) {
    std::string label;
    const e2e::family_models models = bench_models(label);
    const auto g = gpu::find_gpu("h100_sxm").numbers;
    const e2e::run_request r = llama70b_tp8();
    std::size_t evaluations = 0;
    for (auto _ : state) {
        e2e::kernel_estimator est(g, models);
        const e2e::run_result res = e2e::run(r, est);
        evaluations = res.evaluations;
        benchmark::DoNotOptimize(res.total_ms);
    }
    state.counters["distinct_ops"] = double(evaluations);
    state.SetLabel(label);
}
BENCHMARK(bm_e2e_llama70b_tp8_run)->Unit(benchmark::kMillisecond);

// The same run with a warm memo (a sweep that revisits shapes): only the decode attentions are new work
// the first time; here nothing is.
void bm_e2e_llama70b_tp8_run_warm(benchmark::State& state) {
    std::string label;
    const e2e::family_models models = bench_models(label);
    const auto g = gpu::find_gpu("h100_sxm").numbers;
    const e2e::run_request r = llama70b_tp8();
    e2e::kernel_estimator est(g, models);
    for (auto _ : state) benchmark::DoNotOptimize(e2e::run(r, est).total_ms);
    state.SetLabel(label);
}
BENCHMARK(bm_e2e_llama70b_tp8_run_warm)->Unit(benchmark::kMillisecond);

// Workload generation alone (no prediction): one prefill and 67 decode iterations.
void bm_e2e_workload_only(benchmark::State& state) {
    const auto g = gpu::find_gpu("h100_sxm").numbers;
    const e2e::run_request r = llama70b_tp8();
    for (auto _ : state) {
        std::vector<std::int64_t> kv = r.prompt_lens;
        benchmark::DoNotOptimize(e2e::prefill_iteration(r.model, r.deploy, g, r.prompt_lens).ops.size());
        for (int s = 0; s < 67; ++s) {
            for (auto& x : kv) ++x;
            benchmark::DoNotOptimize(e2e::decode_iteration(r.model, r.deploy, g, kv).ops.size());
        }
    }
}
BENCHMARK(bm_e2e_workload_only)->Unit(benchmark::kMicrosecond);

}  // namespace
