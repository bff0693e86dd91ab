// SPDX-License-Identifier: Apache-2.0
// The SiLU-and-mul family: launch shapes, hand-worked work per CTA, shape checks, monotone bound.
#include "synperf/family/silu_mul.hpp"

#include <doctest/doctest.h>

#include "synperf/error.hpp"
#include "synperf/hw/a100_sxm.hpp"
#include "synperf/hw/a40.hpp"
#include "synperf/hw/h100_sxm.hpp"
#include "synperf/predictor/predictor.hpp"

namespace {

using synperf::family::silu_mul;
using synperf::family::silu_mul_impl;
using synperf::family::silu_mul_problem;

const synperf::gpu::gpu_numbers& h100 = synperf::hw::h100_sxm::numbers;

}  // namespace

TEST_CASE("silu_mul: vLLM scalar kernel, one CTA per token, hand-worked work") {
    // Llama-2-7B at TP 1: d = 11008; block = min(11008, 1024) = 1024, 11 rounds of (x, gate, out) per thread.
    const silu_mul_problem p{300, 11008, 2, silu_mul_impl::vllm_scalar};
    const auto plan = silu_mul::plan(p, h100);
    REQUIRE(plan.kernels.size() == 1);
    const auto& k = plan.kernels[0];
    CHECK(k.tasks[0].count == 300);
    CHECK(k.launch.threads_per_cta == 1024);
    const auto& cta = k.tasks[0].work;
    CHECK(cta.l2_bytes == doctest::Approx(3 * 11008 * 2));  // 2d read, d written
    CHECK(cta.fma_ops == doctest::Approx(5 * 11008));        // FMUL, FADD, 2 FFMA of the divide, * gate
    CHECK(cta.xu_ops == doctest::Approx(2 * 11008));         // ex2, rcp
    CHECK(plan.shapes[0].accesses_per_thread == 33);
    CHECK(k.memory_rounds == 22);  // per iteration: the two loads (together), then the store
    CHECK(plan.shapes[0].vector_bytes == 2);
    REQUIRE(k.compulsory.has_value());
    CHECK(k.compulsory->xu_ops == doctest::Approx(2.0 * 300 * 11008));
    CHECK(k.compulsory->l2_bytes + k.compulsory->dram_bytes == doctest::Approx(3.0 * 300 * 11008 * 2));
}

TEST_CASE("silu_mul: FlashInfer shape") {
    // vec = 16 / 2 = 8, block = min(14336 / 8, 1024) = 1024, ceil(14336 / 8192) = 2 rounds.
    const auto s = synperf::family::silu_mul_detail::shape({8, 14336, 2, silu_mul_impl::flashinfer});
    CHECK(s.vector_bytes == 16);
    CHECK(s.threads == 1024);
    CHECK(s.accesses_per_thread == 6);
    const auto small = synperf::family::silu_mul_detail::shape({8, 256, 2, silu_mul_impl::flashinfer});
    CHECK(small.threads == 32);
}

TEST_CASE("silu_mul: invalid shapes give clear errors") {
    CHECK_THROWS_WITH_AS(silu_mul::plan({-3, 4096}, h100), doctest::Contains("silu_mul: tokens must be > 0, got -3"),
                         synperf::invalid_argument);
    CHECK_THROWS_WITH_AS(silu_mul::plan({4, 0}, h100), doctest::Contains("silu_mul: d must be > 0, got 0"),
                         synperf::invalid_argument);
    CHECK_THROWS_WITH_AS(silu_mul::plan({4, 100, 2, silu_mul_impl::flashinfer}, h100),
                         doctest::Contains("needs d divisible by 8"), synperf::invalid_argument);
}

TEST_CASE("silu_mul: theoretical time is non-decreasing in tokens") {
    for (const auto* g : {&synperf::hw::a100_sxm::numbers, &synperf::hw::a40::numbers, &synperf::hw::h100_sxm::numbers}) {
        double last = 0;
        for (std::int64_t t = 1; t <= 32768; t *= 2) {
            const auto r = synperf::predictor_detail::analyze<silu_mul>(silu_mul_problem{t, 3584}, *g,
                                                                        synperf::predictor_detail::schedule_by_dispatch{});
            CHECK(r.theoretical_us >= last);
            last = r.theoretical_us;
            for (double f : r.features) CHECK(f >= 0);
        }
    }
}

TEST_CASE("silu_mul: the floor adds the memory rounds and CTA dispatches to the footprint's pass through L2") {
    // H100, d = 3584, fp16, scalar kernel: 1024 threads per CTA, 2 CTAs per SM (2048 threads), 264 slots. 1000 tokens:
    // ceil(1000 / 264) = 4 waves, each of 2 x ceil(3584 / 1024) = 8 rounds at the nominal L2 hit and 2 CTA dispatches
    // per SM, plus the footprint (x and gate read, out written: 3 x 1000 x 3584 x 2 B = 21.5 MB, inside H100's 50 MB
    // L2) at L2 bandwidth.
    const silu_mul_problem p{1000, 3584, 2, silu_mul_impl::vllm_scalar};
    const auto r = synperf::predictor_detail::analyze<silu_mul>(p, h100, synperf::predictor_detail::schedule_by_dispatch{});
    const double footprint = 3.0 * 1000 * 3584 * 2;
    const double floor_cycles = 4.0 * (8.0 * synperf::features::nominal_l2_hit_cycles +
                                       2.0 * synperf::features::nominal_cta_dispatch_cycles) +
                                footprint / h100.l2_bytes_per_clk();
    CHECK(r.theoretical_us == doctest::Approx(floor_cycles / h100.tensor_clock_mhz));
    CHECK(r.bottleneck == "latency");
    // Counts of the launch (log2 waves, busy SMs, access width) and the footprint over L2 size.
    REQUIRE(r.features.size() == silu_mul::feature_count);
    CHECK(r.features[0] == doctest::Approx(2.0));
    CHECK(r.features[1] == doctest::Approx(1.0));
    CHECK(r.features[2] == doctest::Approx(2.0));
    CHECK(r.features[3] == doctest::Approx(footprint / h100.l2_bytes));
}
