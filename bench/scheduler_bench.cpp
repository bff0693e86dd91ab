// SPDX-License-Identifier: Apache-2.0
// Schedulers at 10^2..10^6 tasks: identical tasks (closed forms) and mixed tasks (event simulation / heap).
#include <benchmark/benchmark.h>

#include <cstdint>
#include <vector>

#include "synperf/gpu/numbers.hpp"
#include "synperf/scheduler.hpp"

namespace {

using synperf::scheduler::hardware_round_robin;
using synperf::scheduler::min_heap_persistent;
using synperf::scheduler::schedule_options;
using synperf::scheduler::unit_order;
using synperf::work::task_class;
using synperf::work::task_work;

/// A 132-SM GPU with round rates (1024 bf16 tensor flop and 64 DRAM bytes per SM per clock).
synperf::gpu::gpu_numbers bench_gpu() {
    synperf::gpu::gpu_numbers g;
    g.cc_major = 9;
    g.sm_count = 132;
    g.tensor_clock_mhz = 1000;
    g.boost_clock_mhz = 1000;
    g.tensor_bf16_flop_per_clk = 1024;
    g.fma_fp32_per_clk = 128;
    g.xu_per_clk = 16;
    g.dram_gbps = 64.0 * 132;
    g.l2_gbps = 256.0 * 132;
    g.smem_bytes_per_clk = 128;
    return g;
}

task_work tile(double tensor_cycles, double dram_cycles) {
    task_work w;
    w.tensor_flop = 1024 * tensor_cycles;
    w.dram_bytes = 64 * dram_cycles;
    return w;
}

/// `n` identical tasks in one class.
std::vector<task_class> homogeneous(std::int64_t n) { return {{tile(1000, 400), n}}; }

/// `n` tasks in up to 256 classes of 17 different costs, like causal-attention tiles or ragged GEMM edges.
std::vector<task_class> heterogeneous(std::int64_t n) {
    const std::int64_t classes = n < 256 ? n : 256;
    std::vector<task_class> t;
    for (std::int64_t k = 0; k < classes; ++k) {
        const double len = static_cast<double>(k % 17 + 1);
        t.push_back({tile(100 * len, 300), n / classes + (k < n % classes ? 1 : 0)});
    }
    return t;
}

template <class S>
void run(benchmark::State& state, const std::vector<task_class>& tasks, const schedule_options& o) {
    const synperf::gpu::gpu_numbers g = bench_gpu();
    for (auto _ : state) {
        auto r = S::schedule(tasks, g, o);
        benchmark::DoNotOptimize(r.makespan_cycles);
    }
    state.SetItemsProcessed(state.iterations() * state.range(0));
}

schedule_options two_slots(unit_order order = unit_order::static_stride) {
    schedule_options o;
    o.slots_per_sm = 2;
    o.order = order;
    return o;
}

void hardware_homogeneous(benchmark::State& s) { run<hardware_round_robin>(s, homogeneous(s.range(0)), two_slots()); }
void hardware_heterogeneous(benchmark::State& s) { run<hardware_round_robin>(s, heterogeneous(s.range(0)), two_slots()); }
void persistent_homogeneous(benchmark::State& s) { run<min_heap_persistent>(s, homogeneous(s.range(0)), two_slots()); }
void persistent_static_heterogeneous(benchmark::State& s) {
    run<min_heap_persistent>(s, heterogeneous(s.range(0)), two_slots(unit_order::static_stride));
}
void persistent_longest_first_heterogeneous(benchmark::State& s) {
    run<min_heap_persistent>(s, heterogeneous(s.range(0)), two_slots(unit_order::longest_first));
}
/// The simulation on identical tasks, for comparison with the closed form.
void hardware_homogeneous_simulated(benchmark::State& state) {
    const synperf::gpu::gpu_numbers g = bench_gpu();
    const auto tasks = homogeneous(state.range(0));
    for (auto _ : state) {
        auto r = synperf::scheduler::detail::round_robin_simulate(tasks, g, two_slots());
        benchmark::DoNotOptimize(r.makespan_cycles);
    }
    state.SetItemsProcessed(state.iterations() * state.range(0));
}

}  // namespace

BENCHMARK(hardware_homogeneous)->RangeMultiplier(10)->Range(100, 1'000'000);
BENCHMARK(hardware_homogeneous_simulated)->RangeMultiplier(10)->Range(100, 1'000'000)->Unit(benchmark::kMicrosecond);
BENCHMARK(hardware_heterogeneous)->RangeMultiplier(10)->Range(100, 1'000'000)->Unit(benchmark::kMicrosecond);
BENCHMARK(persistent_homogeneous)->RangeMultiplier(10)->Range(100, 1'000'000);
BENCHMARK(persistent_static_heterogeneous)->RangeMultiplier(10)->Range(100, 1'000'000)->Unit(benchmark::kMicrosecond);
BENCHMARK(persistent_longest_first_heterogeneous)->RangeMultiplier(10)->Range(100, 1'000'000)->Unit(benchmark::kMicrosecond);
