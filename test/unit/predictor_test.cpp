// SPDX-License-Identifier: Apache-2.0
// predictor<G, F, S, C> and runtime_predictor<F, C>: composition, defaults, and what a prediction holds.
#include "synperf/predictor/predictor.hpp"

#include <doctest/doctest.h>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "synperf/models/tiny.hpp"  // generated from data/mlp/tiny.mlp
#include "synperf/cost/concept.hpp"
#include "synperf/cost/mlp_cost.hpp"
#include "synperf/cost/roofline_cost.hpp"
#include "synperf/error.hpp"
#include "synperf/features/analysis.hpp"
#include "synperf/family/gemm.hpp"
#include "synperf/gpu/numbers.hpp"
#include "synperf/hw/a100_sxm.hpp"
#include "synperf/hw/catalogue.hpp"
#include "synperf/hw/h100_sxm.hpp"
#include "synperf/scheduler/hardware_round_robin.hpp"
#include "synperf/scheduler/min_heap_persistent.hpp"
#include "synperf/scheduler/run.hpp"
#include "synperf/work/launch.hpp"
#include "test_gpus.hpp"

namespace {

using synperf::prediction;
using synperf::predictor;
using synperf::runtime_predictor;
using synperf::cost::roofline_cost;
using synperf::family::gemm;
using synperf::family::gemm_problem;
namespace hw = synperf::hw;
namespace scheduler = synperf::scheduler;

/// Shapes covering compute-bound, memory-bound, split-K and odd sizes.
const std::vector<gemm_problem>& shapes() {
    static const std::vector<gemm_problem> s{{1, 128, 1024},   {1, 8192, 8192},   {16, 4096, 14336},
                                             {128, 1024, 4096}, {1000, 3000, 70},  {2304, 2048, 8192},
                                             {4096, 4096, 4096}, {8192, 28672, 8192}};
    return s;
}

void check_same(const prediction& a, const prediction& b) {
    CHECK(a.latency_us == b.latency_us);
    CHECK(a.efficiency == b.efficiency);
    CHECK(a.theoretical_us == b.theoretical_us);
    CHECK(a.bottleneck == b.bottleneck);
    CHECK(a.features == b.features);
    REQUIRE(a.kernels.size() == b.kernels.size());
    for (std::size_t i = 0; i < a.kernels.size(); ++i) {
        CAPTURE(i);
        CHECK(a.kernels[i].name == b.kernels[i].name);
        CHECK(a.kernels[i].tasks == b.kernels[i].tasks);
        CHECK(a.kernels[i].waves == b.kernels[i].waves);
        CHECK(a.kernels[i].ctas_per_sm == b.kernels[i].ctas_per_sm);
        CHECK(a.kernels[i].busy_sms == b.kernels[i].busy_sms);
        CHECK(a.kernels[i].theoretical_us == b.kernels[i].theoretical_us);
        CHECK(a.kernels[i].bottleneck == b.kernels[i].bottleneck);
        CHECK(a.kernels[i].imbalance == b.kernels[i].imbalance);
    }
}

/// A user cost model: a fixed efficiency, and a record of what the predictor passed in.
struct recording_cost {
    double value = 0.5;
    mutable std::size_t calls = 0;
    mutable std::size_t last_level = 99;
    mutable std::vector<double> last_features;

    [[nodiscard]] double efficiency(std::span<const double> features, std::size_t framework_level) const {
        ++calls;
        last_level = framework_level;
        last_features.assign(features.begin(), features.end());
        return value;
    }
};
static_assert(synperf::cost::CostModel<recording_cost>);

/// Position of a named GEMM feature (the list may grow; tests look features up by name).
constexpr std::size_t feature_index(std::string_view name) {
    for (std::size_t i = 0; i < gemm::feature_count; ++i)
        if (gemm::feature_names[i] == name) return i;
    return gemm::feature_count;
}
constexpr std::size_t waves_feature = feature_index("waves");
constexpr std::size_t reduce_feature = feature_index("reduce_ratio");
static_assert(waves_feature < gemm::feature_count && reduce_feature < gemm::feature_count);

/// A user cost model that uses a feature: slower when the kernel needs more than one wave.
struct wave_penalty {
    [[nodiscard]] double efficiency(std::span<const double> x, std::size_t) const {
        return x[waves_feature] > 1 ? 0.6 : 0.9;
    }
};
static_assert(synperf::cost::CostModel<wave_penalty>);

/// One launch of `count` equal CTAs doing `cta`, and its schedule on `g`.
struct scheduled_launch {
    synperf::work::kernel_launch kernel;
    synperf::scheduler::schedule_result schedule;
};
scheduled_launch schedule_one_class(std::string name, synperf::work::launch_config launch, const synperf::work::task_work& cta,
                                    std::int64_t count, const synperf::gpu::gpu_numbers& g) {
    synperf::work::kernel_launch k;
    k.name = std::move(name);
    k.launch = launch;
    k.tasks.push_back({cta, count});
    auto s = synperf::scheduler::run_scheduler(k.dispatch, std::span<const synperf::work::task_class>(k.tasks), g, {});
    return {std::move(k), std::move(s)};
}

}  // namespace

TEST_CASE("predictor: default scheduler follows the family's main dispatch on the GPU") {
    static_assert(std::is_same_v<synperf::default_scheduler_t<gemm, hw::h100_sxm>, scheduler::min_heap_persistent>);
    static_assert(std::is_same_v<synperf::default_scheduler_t<gemm, hw::a100_sxm>, scheduler::hardware_round_robin>);
    using h100 = predictor<hw::h100_sxm, gemm, synperf::default_scheduler_t<gemm, hw::h100_sxm>, roofline_cost>;
    using a100 = predictor<hw::a100_sxm, gemm, synperf::default_scheduler_t<gemm, hw::a100_sxm>, roofline_cost>;
    CHECK(std::is_same_v<h100::scheduler_type, scheduler::min_heap_persistent>);
    CHECK(std::is_same_v<a100::scheduler_type, scheduler::hardware_round_robin>);
    // Leaving S out gives the same type.
    CHECK(std::is_same_v<h100, predictor<hw::h100_sxm, gemm, scheduler::min_heap_persistent, roofline_cost>>);
    CHECK(std::is_same_v<predictor<hw::a100_sxm, gemm>::scheduler_type, scheduler::hardware_round_robin>);
    CHECK(std::is_same_v<predictor<hw::h100_sxm, gemm>::cost_model_type, synperf::cost::mlp_cost>);
}

TEST_CASE("predictor: re-exports the policies it was composed from") {
    using p = predictor<hw::h100_sxm, gemm, scheduler::min_heap_persistent, roofline_cost>;
    static_assert(std::is_same_v<p::gpu_type, hw::h100_sxm>);
    static_assert(std::is_same_v<p::family_type, gemm>);
    static_assert(std::is_same_v<p::scheduler_type, scheduler::min_heap_persistent>);
    static_assert(std::is_same_v<p::cost_model_type, roofline_cost>);
    static_assert(std::is_same_v<p::problem_type, gemm_problem>);
    using r = runtime_predictor<gemm, roofline_cost>;
    static_assert(std::is_same_v<r::family_type, gemm>);
    static_assert(std::is_same_v<r::problem_type, gemm_problem>);
    CHECK(p::gpu_type::name == "h100_sxm");
    CHECK(p::family_type::name == "gemm");
}

TEST_CASE("predictor: compile-time and run-time composition give identical predictions") {
    const predictor<hw::h100_sxm, gemm, synperf::default_scheduler_t<gemm, hw::h100_sxm>, roofline_cost> compile_time;
    const runtime_predictor<gemm, roofline_cost> run_time(hw::h100_sxm::numbers, roofline_cost{});
    CHECK(run_time.numbers().sm_count == hw::h100_sxm::numbers.sm_count);
    for (const gemm_problem& p : shapes()) {
        for (const char* fw : {"trtllm", "sglang", "vllm"}) {
            CAPTURE(p.m);
            CAPTURE(p.n);
            CAPTURE(p.k);
            CAPTURE(fw);
            check_same(compile_time.predict(p, fw), run_time.predict(p, fw));
        }
    }
}

TEST_CASE_TEMPLATE_DEFINE("predictor: compile-time and run-time agree on a catalogue GPU", G, predictor_catalogue) {
    const predictor<G, gemm, synperf::default_scheduler_t<gemm, G>, roofline_cost> compile_time;
    const runtime_predictor<gemm, roofline_cost> run_time(G::numbers, roofline_cost{});
    for (const gemm_problem& p : shapes()) {
        CAPTURE(G::name);
        CAPTURE(p.m);
        CAPTURE(p.n);
        CAPTURE(p.k);
        check_same(compile_time.predict(p), run_time.predict(p));
    }
}
TEST_CASE_TEMPLATE_APPLY(predictor_catalogue, hw::all_gpus);

TEST_CASE("predictor: an unknown framework throws and lists the known ones") {
    const runtime_predictor<gemm, roofline_cost> pred(hw::h100_sxm::numbers, roofline_cost{});
    const gemm_problem p{128, 4096, 4096};
    for (const char* bad : {"tensorrt", "", "TRTLLM"}) {
        CAPTURE(bad);
        try {
            (void)pred.predict(p, bad);
            FAIL("no exception for framework '" << bad << "'");
        } catch (const synperf::invalid_argument& e) {
            const std::string what = e.what();
            CHECK(what.find("unknown framework '" + std::string(bad) + "'") != std::string::npos);
            CHECK(what.find("trtllm") != std::string::npos);
            CHECK(what.find("sglang") != std::string::npos);
            CHECK(what.find("vllm") != std::string::npos);
        }
    }
    const predictor<hw::a100_sxm, gemm, scheduler::hardware_round_robin, roofline_cost> compile_time;
    CHECK_THROWS_WITH_AS((void)compile_time.predict(p, "pytorch"), doctest::Contains("known: trtllm, sglang, vllm"),
                         synperf::invalid_argument);
    // The framework is checked before any work, so a bad shape with a bad framework names the framework.
    CHECK_THROWS_WITH_AS((void)pred.predict({0, 1, 1}, "nope"), doctest::Contains("unknown framework"),
                         synperf::invalid_argument);
}

namespace {

/// The bound term a kernel's bottleneck names.
double bound_term(const synperf::kernel_report& k) {
    const synperf::bound_terms& b = k.bound;
    if (k.bottleneck == "tensor") return b.tensor_us;
    if (k.bottleneck == "fma") return b.fma_us;
    if (k.bottleneck == "xu") return b.xu_us;
    if (k.bottleneck == "dram") return b.dram_us;
    if (k.bottleneck == "l2") return b.l2_us;
    if (k.bottleneck == "latency") return b.latency_us;
    if (k.bottleneck == "launch") return b.launch_us;
    FAIL("unknown bottleneck " << k.bottleneck);
    return 0;
}

}  // namespace

TEST_CASE("predictor: a prediction's kernels, waves and bottleneck are filled") {
    const predictor<hw::h100_sxm, gemm, scheduler::min_heap_persistent, roofline_cost> h100;
    const predictor<hw::a100_sxm, gemm, scheduler::hardware_round_robin, roofline_cost> a100;
    const auto check_filled = [](const prediction& r, const synperf::gpu::gpu_numbers& g) {
        REQUIRE(!r.kernels.empty());
        CHECK(r.latency_us > 0);
        CHECK(r.theoretical_us > 0);
        CHECK(r.efficiency > 0);
        CHECK(r.efficiency <= 1);
        CHECK(!r.bottleneck.empty());
        CHECK(r.bottleneck == r.kernels.front().bottleneck);
        CHECK(r.kernels.front().theoretical_us > 0);
        CHECK(r.features.size() == gemm::feature_count);
        for (double f : r.features) CHECK(std::isfinite(f));
        for (double f : r.features) CHECK(f >= 0);
        double sum = 0;
        for (const auto& k : r.kernels) {
            CAPTURE(k.name);
            CHECK(!k.name.empty());
            CHECK(k.tasks >= 1);
            CHECK(k.waves >= 1);
            CHECK(k.ctas_per_sm >= 1);
            CHECK(k.busy_sms >= 1);
            CHECK(k.busy_sms <= g.sm_count);
            CHECK(k.theoretical_us >= 0);  // a split-K reduction adds nothing compulsory: it may be 0
            CHECK(!k.bottleneck.empty());
            CHECK(k.imbalance >= 1 - 1e-9);
            // The bound is the largest of its terms, and the term named by the bottleneck.
            CHECK(k.bound.max() == doctest::Approx(k.theoretical_us));
            CHECK(bound_term(k) == doctest::Approx(k.theoretical_us));
            CHECK(k.busiest_sm_us >= k.theoretical_us);
            sum += k.theoretical_us;
        }
        CHECK(r.theoretical_us == doctest::Approx(sum));
    };
    for (const gemm_problem& p : shapes()) {
        CAPTURE(p.m);
        CAPTURE(p.n);
        CAPTURE(p.k);
        check_filled(h100.predict(p), hw::h100_sxm::numbers);
        check_filled(a100.predict(p), hw::a100_sxm::numbers);
    }

    SUBCASE("the main kernel's report matches the plan") {
        const gemm_problem p{4096, 4096, 4096};
        const prediction r = h100.predict(p);
        const auto plan = gemm::plan(p, hw::h100_sxm::numbers);
        CHECK(r.kernels.front().name == plan.kernels.front().name);
        CHECK(r.kernels.front().tasks == plan.config.tiles);
        CHECK(r.kernels.front().ctas_per_sm == 1);  // persistent: one CTA per SM
        // 32 x 16 = 512 tiles of 128x256 on 132 persistent CTAs: ceil(512 / 132) = 4 per CTA.
        CHECK(r.kernels.front().waves == std::ceil(double(plan.config.tiles) / 132.0));
        CHECK(r.kernels.front().busy_sms == 132);
        CHECK(r.bottleneck == "tensor");
    }
    SUBCASE("memory-bound decode shapes are DRAM-bound") {
        CHECK(h100.predict({1, 8192, 8192}).bottleneck == "dram");
        CHECK(a100.predict({1, 8192, 8192}).bottleneck == "dram");
    }
    SUBCASE("a split-K plan reports its reduction kernel") {
        const gemm_problem p{1, 128, 4096};  // 1 output tile: K is split to use more SMs
        for (const prediction& r : {h100.predict(p), a100.predict(p)}) {
            REQUIRE(r.kernels.size() == 2);
            CHECK(r.kernels[1].name == "splitk_reduce");
            CHECK(r.features[reduce_feature] > 0);
        }
    }
}

TEST_CASE("predictor: roofline_cost (efficiency 1) predicts the theoretical time itself, or the launch floor") {
    const predictor<hw::h100_sxm, gemm, scheduler::min_heap_persistent, roofline_cost> h100;
    const runtime_predictor<gemm, roofline_cost> rt(synperf::test::sm86_like(), roofline_cost{});
    for (const gemm_problem& p : shapes()) {
        CAPTURE(p.m);
        CAPTURE(p.n);
        CAPTURE(p.k);
        const std::pair<prediction, const synperf::gpu::gpu_numbers*> runs[] = {{h100.predict(p), &hw::h100_sxm::numbers},
                                                                                 {rt.predict(p, "sglang"), &rt.numbers()}};
        for (const auto& [r, g] : runs) {
            const double launches = double(r.kernels.size()) * synperf::work::back_to_back_launch_us(*g);
            if (r.theoretical_us >= launches) {
                CHECK(r.efficiency == 1.0);
                CHECK(r.latency_us == r.theoretical_us);
            } else {
                CHECK(r.latency_us == launches);
                CHECK(r.efficiency == doctest::Approx(r.theoretical_us / launches));
            }
        }
    }
}

TEST_CASE("predictor: a user cost model plugs in") {
    const gemm_problem p{2048, 4096, 4096};

    SUBCASE("by value, with the features and framework level the family defines") {
        recording_cost cost;
        cost.value = 0.25;
        const predictor<hw::h100_sxm, gemm, scheduler::min_heap_persistent, recording_cost> pred(cost);
        const prediction r = pred.predict(p, "sglang");
        CHECK(pred.cost_model().calls == 1);
        CHECK(pred.cost_model().last_level == gemm::framework_level("sglang"));
        CHECK(pred.cost_model().last_level == 1);
        CHECK(pred.cost_model().last_features == r.features);
        CHECK(r.efficiency == 0.25);
        CHECK(r.latency_us == doctest::Approx(4 * r.theoretical_us));
        (void)pred.predict(p);  // default framework: the first level
        CHECK(pred.cost_model().last_level == 0);
        CHECK(pred.cost_model().calls == 2);
    }
    SUBCASE("in a runtime_predictor") {
        const runtime_predictor<gemm, recording_cost> pred(hw::a100_sxm::numbers, recording_cost{});
        const prediction r = pred.predict(p, "vllm");
        CHECK(pred.cost_model().last_level == 1);
        CHECK(r.latency_us == doctest::Approx(2 * r.theoretical_us));
    }
    SUBCASE("a cost model that reads the features") {
        const runtime_predictor<gemm, wave_penalty> pred(hw::h100_sxm::numbers, wave_penalty{});
        const prediction one_wave = pred.predict({128, 16384, 4096});  // well above the launch floor
        const prediction many = pred.predict({8192, 8192, 4096});
        CHECK(one_wave.efficiency == 0.9);
        CHECK(many.efficiency == 0.6);
    }
}

TEST_CASE("predictor: no prediction is shorter than one back-to-back launch per kernel") {
    // A 1 x 1 x 1 GEMM's bound is nanoseconds; the op still takes at least one launch.
    const runtime_predictor<gemm, roofline_cost> rt(hw::h100_sxm::numbers, roofline_cost{});
    const prediction r = rt.predict({1, 1, 1});
    REQUIRE(r.theoretical_us < 0.01);
    // 1980 cycles at H100's 1980 MHz boost clock: one microsecond per kernel; A100's 1410 MHz take longer.
    CHECK(synperf::work::back_to_back_launch_us(hw::h100_sxm::numbers) == doctest::Approx(1.0));
    CHECK(synperf::work::back_to_back_launch_us(hw::a100_sxm::numbers) == doctest::Approx(1980.0 / 1410.0));
    CHECK(r.latency_us == doctest::Approx(double(r.kernels.size()) * 1.0));
    CHECK(r.kernel_floor_us == r.latency_us);
    CHECK(r.efficiency == doctest::Approx(r.theoretical_us / r.latency_us));
    // Large shapes are far above it and keep the cost model's efficiency.
    const prediction big = rt.predict({4096, 4096, 4096});
    CHECK(big.latency_us == big.theoretical_us);
}

TEST_CASE("predictor: a cost model's efficiency must lie in [1e-9, 1], else an error, not a latency") {
    // 6e-39: a sigmoid saturated by a corrupt bias (a latency 1e38 times its bound).
    for (const double bad : {0.0, -0.5, 1.5, std::nan(""), 6e-39, 0.99e-9}) {
        CAPTURE(bad);
        recording_cost cost;
        cost.value = bad;
        const runtime_predictor<gemm, recording_cost> pred(hw::h100_sxm::numbers, cost);
        CHECK_THROWS_WITH_AS((void)pred.predict({64, 4096, 4096}), doctest::Contains("the cost model returned efficiency"),
                             synperf::invalid_argument);
    }
    recording_cost least;
    least.value = synperf::cost::min_credible_efficiency;
    CHECK(runtime_predictor<gemm, recording_cost>(hw::h100_sxm::numbers, least).predict({4096, 4096, 4096}).latency_us > 0.0);
}

TEST_CASE("predictor: an MLP trained for another family is refused on construction") {
    const synperf::cost::mlp_cost tiny(synperf::models::tiny());  // family "tiny": features x, y; levels a, b
    CHECK_THROWS_WITH_AS((runtime_predictor<gemm>(hw::h100_sxm::numbers, tiny)),
                         doctest::Contains("cost model: weights are for family 'tiny', expected 'gemm'"), synperf::load_error);
    CHECK_THROWS_AS((predictor<hw::h100_sxm, gemm>(tiny)), synperf::load_error);
}

TEST_CASE("runtime_predictor: rejects invalid GPU numbers on construction") {
    synperf::gpu::gpu_numbers g = hw::h100_sxm::numbers;
    g.sm_count = 0;
    CHECK_THROWS_WITH_AS((runtime_predictor<gemm, roofline_cost>(g, roofline_cost{})), doctest::Contains("sm_count"),
                         synperf::invalid_argument);
    g = hw::h100_sxm::numbers;
    g.dram_gbps = -1;
    CHECK_THROWS_WITH_AS((runtime_predictor<gemm, roofline_cost>(g, roofline_cost{})), doctest::Contains("dram_gbps"),
                         synperf::invalid_argument);
}

TEST_CASE("analysis: a kernel's memory rounds set a latency floor of waves x rounds x nominal latency") {
    const synperf::gpu::gpu_numbers& g = hw::a100_sxm::numbers;
    synperf::work::task_work cta;
    cta.l2_bytes = 3.0 * 4096 * 2;
    auto [k, s] = schedule_one_class("one_cta_per_token", {1024, 32, 0}, cta, 8, g);  // 8 CTAs: one wave on a 108-SM GPU
    const auto bandwidth_only = synperf::features::analyze(k, s, g);
    CHECK(bandwidth_only.limiter != synperf::features::bottleneck::latency);
    CHECK(bandwidth_only.latency_floor_cycles == 0.0);

    k.memory_rounds = 4;
    const auto floored = synperf::features::analyze(k, s, g);
    CHECK(floored.latency_floor_cycles == doctest::Approx(s.waves * 4 * synperf::features::nominal_memory_latency_cycles));
    CHECK(floored.theoretical_cycles == doctest::Approx(floored.latency_floor_cycles));
    CHECK(floored.limiter == synperf::features::bottleneck::latency);
    CHECK(synperf::features::to_string(floored.limiter) == "latency");

    k.memory_rounds = -1;
    CHECK_THROWS_WITH_AS((void)synperf::features::analyze(k, s, g), doctest::Contains("memory_rounds must be finite and >= 0"),
                         synperf::invalid_argument);
    k.memory_rounds = std::nan("");
    CHECK_THROWS_AS((void)synperf::features::analyze(k, s, g), synperf::invalid_argument);
}

TEST_CASE("analysis: CTA round trips floor the kernel, not its theoretical time") {
    const synperf::gpu::gpu_numbers& g = hw::h100_sxm::numbers;
    const auto launch = [&](int smem_per_cta) {
        synperf::work::kernel_launch k;
        k.name = "split_ctas";
        k.launch = {128, 32, smem_per_cta};
        synperf::work::task_work cta;
        cta.l2_bytes = 512;
        k.tasks.push_back({cta, 1320});  // 10 CTAs per SM
        return k;
    };
    // 128 KB of shared memory each: one slot per SM.
    synperf::work::kernel_launch k = launch(128 * 1024);
    const synperf::scheduler::schedule_result s = synperf::scheduler::schedule_launch(k, g);
    REQUIRE(s.slots_per_sm == 1);
    const auto plain = synperf::features::analyze(k, s, g);
    CHECK(plain.cta_residency_cycles == 0.0);

    k.cta_round_trips = 1320.0 * 3;  // three dependent round trips per CTA
    const auto floored = synperf::features::analyze(k, s, g);
    // One slot: each CTA's dispatch and its three round trips follow one another.
    const double per_sm = 10 * (synperf::features::nominal_cta_dispatch_cycles + 3 * synperf::features::nominal_l2_hit_cycles);
    CHECK(floored.cta_residency_cycles == doctest::Approx(per_sm));
    CHECK(floored.kernel_floor_cycles == doctest::Approx(per_sm));
    CHECK(floored.theoretical_cycles == doctest::Approx(plain.theoretical_cycles));  // the cost model's bound is unchanged
    CHECK(floored.limiter == plain.limiter);

    // Without shared memory many slots share the round trips; the dispatches stay serial.
    synperf::work::kernel_launch many = launch(0);
    const synperf::scheduler::schedule_result s_many = synperf::scheduler::schedule_launch(many, g);
    REQUIRE(s_many.slots_per_sm >= 8);
    many.cta_round_trips = 1320.0 * 3;
    const auto shared = synperf::features::analyze(many, s_many, g);
    CHECK(shared.cta_residency_cycles ==
          doctest::Approx(std::max(10 * synperf::features::nominal_cta_dispatch_cycles, per_sm / s_many.slots_per_sm)));

    k.cta_round_trips = -1;
    CHECK_THROWS_WITH_AS((void)synperf::features::analyze(k, s, g), doctest::Contains("cta_round_trips must be finite and >= 0"),
                         synperf::invalid_argument);
}

TEST_CASE("analysis: a launch floor bounds a kernel whose work is smaller") {
    const synperf::gpu::gpu_numbers& g = hw::h100_sxm::numbers;
    synperf::work::task_work cta;
    cta.dram_bytes = 4096;
    auto [k, s] = schedule_one_class("tiny", {128, 32, 0}, cta, 1, g);
    const auto unfloored = synperf::features::analyze(k, s, g);
    CHECK(unfloored.launch_floor_cycles == 0.0);
    CHECK(synperf::features::cycles_to_us(unfloored.theoretical_cycles, g) < 0.01);

    k.launch_floor_us = synperf::work::back_to_back_launch_us(g);
    const auto floored = synperf::features::analyze(k, s, g);
    CHECK(synperf::features::cycles_to_us(floored.theoretical_cycles, g) == doctest::Approx(1.0));
    CHECK(floored.limiter == synperf::features::bottleneck::launch);
    CHECK(synperf::features::to_string(floored.limiter) == "launch");

    // Work above the floor keeps its own bound and limiter.
    cta.dram_bytes = 64e6;
    auto [big_kernel, big_schedule] = schedule_one_class("tiny", {128, 32, 0}, cta, 1, g);
    big_kernel.launch_floor_us = synperf::work::back_to_back_launch_us(g);
    const auto big = synperf::features::analyze(big_kernel, big_schedule, g);
    CHECK(big.limiter == synperf::features::bottleneck::dram);
    CHECK(synperf::features::cycles_to_us(big.theoretical_cycles, g) > 1.0);

    k.launch_floor_us = -1;
    CHECK_THROWS_WITH_AS((void)synperf::features::analyze(k, s, g), doctest::Contains("launch_floor_us must be finite and >= 0"),
                         synperf::invalid_argument);
}

TEST_CASE("predictor: warnings name the inputs outside the model's training range and an op larger than the GPU") {
    // A GEMM model of efficiency 0.5 whose training rows had every feature in [0, 1] and efficiencies in [0.5, 0.9].
    synperf::mlp::network n;
    n.family = "gemm";
    for (auto f : gemm::feature_names) n.feature_names.emplace_back(f);
    n.categoricals.push_back({"framework", {gemm::framework_levels.begin(), gemm::framework_levels.end()}});
    synperf::mlp::dense_layer l;
    l.in = n.input_width();
    l.out = 1;
    l.act = synperf::mlp::activation::sigmoid;
    l.weights.assign(l.in, 0.0f);
    l.bias.assign(1, 0.0f);
    n.layers.push_back(l);
    n.feature_min.assign(n.feature_names.size(), 0.0);
    n.feature_max.assign(n.feature_names.size(), 1.0);
    n.efficiency_min = 0.5;
    n.efficiency_max = 0.9;
    const runtime_predictor<gemm> rt(hw::h100_sxm::numbers, synperf::cost::mlp_cost(n));

    const prediction small = rt.predict(gemm_problem{4096, 4096, 4096}, "sglang");
    REQUIRE(!small.warnings.empty());
    CHECK(small.warnings.front().find("the lowest the model was trained on") != std::string::npos);
    bool named_feature = false;
    for (const std::string& w : small.warnings)
        named_feature |= w.starts_with("outside the training range: ") && w.find("(trained on 0 .. 1") != std::string::npos;
    CHECK(named_feature);
    for (const std::string& w : small.warnings) CHECK(w.find("device memory") == std::string::npos);

    const prediction huge = rt.predict(gemm_problem{1000000, 100000, 100000}, "sglang");
    CHECK(huge.warnings.front() == "the op's tensors take 420 GB, more than the 84.93 GB of device memory: no single GPU runs it");

    // A network whose output exceeds every training efficiency (a corrupt weight can do it) reads as the highest one.
    n.efficiency_min = 0.1;
    n.efficiency_max = 0.4;
    const runtime_predictor<gemm> capped(hw::h100_sxm::numbers, synperf::cost::mlp_cost(n));
    const prediction top = capped.predict(gemm_problem{4096, 4096, 4096}, "sglang");
    CHECK(top.efficiency == doctest::Approx(0.4));
    REQUIRE(!top.warnings.empty());
    CHECK(top.warnings.front() == "outside the training range: efficiency = 0.4, the highest the model was trained on (the network's own output is higher)");

    // A cost model without a training range gives none.
    const runtime_predictor<gemm, roofline_cost> roofline(hw::h100_sxm::numbers, roofline_cost{});
    CHECK(roofline.predict(gemm_problem{4096, 4096, 4096}, "sglang").warnings.empty());
}
