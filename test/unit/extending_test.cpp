// SPDX-License-Identifier: Apache-2.0
// The worked examples of docs/extending.md, compiled and run: a user kernel family, scheduler, cost model and
// GPU policy composed with the library's own, with no edit to the library.
#include <doctest/doctest.h>

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "synperf/cost/concept.hpp"
#include "synperf/cost/roofline_cost.hpp"
#include "synperf/error.hpp"
#include "synperf/family/concept.hpp"
#include "synperf/family/gemm.hpp"
#include "synperf/features/analysis.hpp"
#include "synperf/gpu/concept.hpp"
#include "synperf/gpu/numbers.hpp"
#include "synperf/hw/a100_sxm.hpp"
#include "synperf/hw/h100_sxm.hpp"
#include "synperf/predictor/predictor.hpp"
#include "synperf/scheduler/concept.hpp"
#include "synperf/scheduler/min_heap_persistent.hpp"
#include "synperf/testing/scheduler_conformance.hpp"
#include "synperf/work/launch.hpp"
#include "synperf/work/task.hpp"

// --- docs/extending.md §2: a kernel family -----------------------------------------------------------------
namespace my {

/// y[i] = a * x[i] over n bf16 elements.
struct scale_problem {
    std::int64_t n = 0;
};

/// The launches of one scale op (here a single kernel).
struct scale_plan {
    std::vector<synperf::work::kernel_launch> kernels;
};

/// An elementwise kernel: one CTA of 256 threads per 4096 elements, dispatched by the hardware.
struct scale {
    using problem_type = scale_problem;
    using plan_type = scale_plan;
    static constexpr std::string_view name = "scale";
    static constexpr std::array<std::string_view, 1> framework_levels{"torch"};
    static constexpr std::array<std::string_view, 4> feature_names{"dram_cycle", "fma_sm_max_cycle", "waves", "n"};
    static constexpr std::int64_t elements_per_cta = 4096;

    static std::size_t framework_level(std::string_view framework) {
        if (framework == "torch" || framework == "vllm" || framework == "sglang") return 0;
        throw synperf::invalid_argument("synperf: scale: unknown framework '" + std::string(framework) +
                                        "'; known: torch, vllm, sglang");
    }
    static void validate(const scale_problem& p) {
        if (p.n <= 0) throw synperf::invalid_argument("synperf: scale: n must be > 0, got " + std::to_string(p.n));
    }
    static constexpr synperf::work::dispatch_kind main_dispatch(const synperf::gpu::gpu_numbers&) noexcept {
        return synperf::work::dispatch_kind::hardware;
    }

    static scale_plan plan(const scale_problem& p, const synperf::gpu::gpu_numbers& g) {
        validate(p);
        const auto work_of = [](double elements) {
            synperf::work::task_work w;
            w.fma_ops = elements;         // one multiply per element
            w.dram_bytes = 4 * elements;  // read x, write y: 2 bytes each
            w.l2_bytes = 4 * elements;
            return w;
        };
        synperf::work::kernel_launch k;
        k.name = "scale_kernel";
        k.launch = {256, 32, 0};  // threads, registers per thread, shared memory per CTA
        k.dispatch = main_dispatch(g);
        const std::int64_t full = p.n / elements_per_cta, rest = p.n % elements_per_cta;
        if (full > 0) k.tasks.push_back({work_of(double(elements_per_cta)), full});
        if (rest > 0) k.tasks.push_back({work_of(double(rest)), 1});  // the tail CTA
        // The lower bound: bytes that cannot stay in L2 come from DRAM, the rest at least pass through L2.
        synperf::work::task_work floor = work_of(double(p.n));
        floor.dram_bytes = std::max(0.0, 4.0 * double(p.n) - g.l2_bytes);
        floor.l2_bytes = 4.0 * double(p.n) - floor.dram_bytes;
        k.compulsory = floor;
        return {{std::move(k)}};
    }

    static std::array<double, 4> features(const scale_problem& p, const scale_plan&,
                                          std::span<const synperf::features::kernel_features> kf,
                                          const synperf::gpu::gpu_numbers&) {
        return {kf[0].all.dram, kf[0].sm_max.fma, kf[0].waves, double(p.n)};
    }
};
static_assert(synperf::family::KernelFamily<scale>);

}  // namespace my

// --- docs/extending.md §3: a scheduler ---------------------------------------------------------------------
namespace my {

/// Persistent CTAs that always take the longest remaining work unit (LPT), whatever the kernel asks for.
struct longest_first {
    using dispatch = synperf::scheduler::persistent_dispatch_tag;
    static synperf::scheduler::schedule_result schedule(std::span<const synperf::work::task_class> tasks,
                                                        const synperf::gpu::gpu_numbers& g,
                                                        synperf::scheduler::schedule_options o) {
        o.order = synperf::scheduler::unit_order::longest_first;
        return synperf::scheduler::min_heap_persistent::schedule(tasks, g, o);
    }
};
static_assert(synperf::scheduler::Scheduler<longest_first>);

}  // namespace my

TEST_CASE_TEMPLATE_APPLY(synperf_scheduler_conformance, std::tuple<my::longest_first>);

// --- docs/extending.md §4: a cost model --------------------------------------------------------------------
namespace my {

/// A fixed fraction of the theoretical bound is reached.
struct fixed_efficiency {
    double value = 0.8;
    [[nodiscard]] double efficiency(std::span<const double>, std::size_t) const noexcept { return value; }
};
static_assert(synperf::cost::CostModel<fixed_efficiency>);

}  // namespace my

// --- docs/extending.md §1: a GPU policy --------------------------------------------------------------------
namespace my {

/// An H100 with twice the DRAM bandwidth.
struct h100_fast_hbm {
    static constexpr std::string_view name = "h100_fast_hbm";
    static constexpr std::string_view display_name = "H100 with 6.7 TB/s HBM (hypothetical)";
    static constexpr std::array<std::string_view, 1> aliases{"h100-fast-hbm"};
    static constexpr synperf::gpu::gpu_numbers numbers = [] {
        auto n = synperf::hw::h100_sxm::numbers;
        n.dram_gbps *= 2;
        return n;
    }();
    static constexpr synperf::gpu::datasheet published = synperf::hw::h100_sxm::published;
};
static_assert(synperf::gpu::GpuSpec<h100_fast_hbm>);

}  // namespace my

TEST_CASE("extending: a user kernel family runs through both predictors") {
    using synperf::cost::roofline_cost;
    const synperf::predictor<synperf::hw::h100_sxm, my::scale, synperf::default_scheduler_t<my::scale, synperf::hw::h100_sxm>,
                             roofline_cost>
        compile_time;
    static_assert(std::is_same_v<decltype(compile_time)::scheduler_type, synperf::scheduler::hardware_round_robin>);
    const synperf::runtime_predictor<my::scale, roofline_cost> run_time(synperf::hw::a100_sxm::numbers, roofline_cost{});

    // 2^30 elements: 4 GiB moved, far beyond L2, so the bound is DRAM bandwidth.
    const my::scale_problem big{std::int64_t{1} << 30};
    const synperf::prediction r = compile_time.predict(big, "vllm");
    const double bytes = 4.0 * double(big.n);
    const auto& h100 = synperf::hw::h100_sxm::numbers;
    CHECK(r.bottleneck == "dram");
    CHECK(r.theoretical_us == doctest::Approx((bytes - h100.l2_bytes) / (h100.dram_gbps * 1e3)));
    CHECK(r.latency_us == r.theoretical_us);
    REQUIRE(r.kernels.size() == 1);
    CHECK(r.kernels[0].name == "scale_kernel");
    CHECK(r.kernels[0].tasks == big.n / my::scale::elements_per_cta);
    REQUIRE(r.features.size() == my::scale::feature_names.size());
    CHECK(r.features[3] == double(big.n));

    // A tail CTA: 4097 elements are two CTAs.
    const synperf::prediction tail = run_time.predict({4097});
    CHECK(tail.kernels[0].tasks == 2);
    CHECK(tail.kernels[0].waves == 1);

    CHECK_THROWS_WITH_AS((void)run_time.predict({0}), doctest::Contains("scale: n must be > 0, got 0"),
                         synperf::invalid_argument);
    CHECK_THROWS_WITH_AS((void)run_time.predict({1024}, "jax"), doctest::Contains("known: torch, vllm, sglang"),
                         synperf::invalid_argument);
}

TEST_CASE("extending: a user scheduler, cost model and GPU compose with the GEMM family") {
    const synperf::family::gemm_problem decode{16, 8192, 8192};
    const synperf::predictor<synperf::hw::h100_sxm, synperf::family::gemm, my::longest_first, my::fixed_efficiency> base{};
    const synperf::predictor<my::h100_fast_hbm, synperf::family::gemm, my::longest_first, my::fixed_efficiency> fast{};
    const synperf::prediction b = base.predict(decode);
    const synperf::prediction f = fast.predict(decode);
    CHECK(b.efficiency == doctest::Approx(0.8));
    CHECK(b.latency_us == doctest::Approx(b.theoretical_us / 0.8));
    CHECK(b.bottleneck == "dram");
    // Twice the DRAM bandwidth halves a DRAM-bound kernel's bound.
    REQUIRE(b.kernels.front().bottleneck == "dram");
    CHECK(f.kernels.front().theoretical_us == doctest::Approx(b.kernels.front().theoretical_us / 2));
    CHECK(f.latency_us < b.latency_us);

    // Identical work units: longest-first places them exactly like the built-in static-stride order.
    const synperf::predictor<synperf::hw::h100_sxm, synperf::family::gemm, synperf::scheduler::min_heap_persistent,
                             my::fixed_efficiency>
        builtin{};
    const synperf::prediction s = builtin.predict(decode);
    CHECK(s.features == b.features);
    CHECK(s.latency_us == b.latency_us);
}
