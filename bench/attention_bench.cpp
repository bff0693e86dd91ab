// SPDX-License-Identifier: Apache-2.0
// End-to-end prediction speed of attention ops: ragged prefill batches and a decode batch on H100.
#include <benchmark/benchmark.h>

#include <cstdint>
#include <memory>
#include <vector>

#include <synperf/cost/mlp_cost.hpp>
#include <synperf/family/attention.hpp>
#include <synperf/hw/h100_sxm.hpp>
#include <synperf/models/attention_decode.hpp>
#include <synperf/models/attention_prefill.hpp>
#include <synperf/predictor/predictor.hpp>

namespace {

using namespace synperf;
namespace at = family::attention;

template <class Net>
std::shared_ptr<const mlp::network> borrow(const Net& net) {
    return std::shared_ptr<const mlp::network>(&net, [](const mlp::network*) {});
}

/// `n` prompt lengths in [2648, 3866], fixed by a linear congruential sequence (the same on every run).
std::vector<std::int64_t> prompt_lengths(int n) {
    std::vector<std::int64_t> out;
    std::uint64_t x = 12345;
    for (int i = 0; i < n; ++i) {
        x = x * 6364136223846793005ull + 1442695040888963407ull;
        out.push_back(2648 + static_cast<std::int64_t>((x >> 33) % (3866 - 2648 + 1)));
    }
    out.front() = 2648;
    out.back() = 3866;
    return out;
}

at::attention_problem ragged_prefill(int requests, at::framework fw) {
    at::attention_problem p;
    p.stage = at::phase::prefill;
    const auto lens = prompt_lengths(requests);
    p.requests = at::ragged_batch(lens, lens);
    p.heads = 40;
    p.kv_heads = 8;
    p.head_dim = 128;
    p.causal = true;
    p.backend = fw;
    return p;
}

/// One prediction, kept out of line so that bench/instructions.sh can count its calls and instructions.
template <class Predictor>
[[gnu::noinline]] double predict_once(const Predictor& p, const at::attention_problem& problem, const char* framework) {
    return p.predict(problem, framework).latency_us;
}

// Ragged causal prefill, 40/8 heads, d = 128, on H100 (SGLang: FA3's persistent longest-first scheduler;
// TRT-LLM: context FMHA).
void bm_prefill_ragged_h100(benchmark::State& state) {
    const predictor<hw::h100_sxm, family::attention_prefill> p{cost::mlp_cost(borrow(models::attention_prefill()))};
    const auto fw = state.range(1) == 0 ? at::framework::sglang : at::framework::trtllm;
    const at::attention_problem problem = ragged_prefill(static_cast<int>(state.range(0)), fw);
    const char* level = fw == at::framework::sglang ? "sglang" : "trtllm";
    for (auto _ : state) benchmark::DoNotOptimize(predict_once(p, problem, level));
}
BENCHMARK(bm_prefill_ragged_h100)->Args({8, 0})->Args({64, 0})->Args({8, 1})->Args({64, 1})->Unit(benchmark::kMicrosecond);

// Decode: 64 requests over ragged KV lengths.
void bm_decode_ragged_h100(benchmark::State& state) {
    const predictor<hw::h100_sxm, family::attention_decode> p{cost::mlp_cost(borrow(models::attention_decode()))};
    at::attention_problem problem;
    problem.stage = at::phase::decode;
    const auto kv = prompt_lengths(64);
    problem.requests = at::ragged_batch(std::vector<std::int64_t>(kv.size(), 1), kv);
    problem.heads = 40;
    problem.kv_heads = 8;
    problem.head_dim = 128;
    problem.causal = false;
    for (auto _ : state) benchmark::DoNotOptimize(predict_once(p, problem, "sglang"));
}
BENCHMARK(bm_decode_ragged_h100)->Unit(benchmark::kMicrosecond);

}  // namespace
