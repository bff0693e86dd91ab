// SPDX-License-Identifier: Apache-2.0
// The RMSNorm family: launch shapes of the three kernels, hand-worked work per CTA, shape checks, monotone bound.
#include "synperf/family/rmsnorm.hpp"

#include <doctest/doctest.h>

#include <cmath>
#include <span>

#include "synperf/error.hpp"
#include "synperf/hw/a100_sxm.hpp"
#include "synperf/hw/a40.hpp"
#include "synperf/hw/h100_sxm.hpp"
#include "synperf/predictor/predictor.hpp"

namespace {

using synperf::family::rmsnorm;
using synperf::family::rmsnorm_impl;
using synperf::family::rmsnorm_problem;

const synperf::gpu::gpu_numbers& a100 = synperf::hw::a100_sxm::numbers;

}  // namespace

TEST_CASE("rmsnorm: vLLM scalar kernel, one CTA per token, hand-worked work") {
    // Llama-2-7B: hidden 4096, fp16: block = min(4096, 1024) = 1024 threads, 4 elements per thread per pass.
    const rmsnorm_problem p{512, 4096, false, 2, rmsnorm_impl::vllm_scalar};
    const auto plan = rmsnorm::plan(p, a100);
    REQUIRE(plan.kernels.size() == 1);
    const auto& k = plan.kernels[0];
    REQUIRE(k.tasks.size() == 1);
    CHECK(k.tasks[0].count == 512);  // grid = tokens
    CHECK(k.launch.threads_per_cta == 1024);
    CHECK(k.dispatch == synperf::work::dispatch_kind::hardware);
    const auto& cta = k.tasks[0].work;
    CHECK(cta.l2_bytes == doctest::Approx(3 * 4096 * 2));  // x, w, out: 8 KiB each
    CHECK(cta.fma_ops == doctest::Approx(3 * 4096 + 1024));  // x^2, x * rms, * w, + the block reduction
    CHECK(cta.xu_ops == 1);                                  // one rsqrt per row
    CHECK(plan.shapes[0].vector_bytes == 2);
    CHECK(plan.shapes[0].accesses_per_thread == 16);  // 4 rounds x (x, x again, w, out)
    CHECK(k.memory_rounds == 8);  // 4 x (load x; store out): pass 2's loads hit L1 / L2
    // Compulsory: x and out once per token, w once: 512 x 4096 x 2 x 2 + 8192 bytes, all in A100's 40 MB L2.
    REQUIRE(k.compulsory.has_value());
    CHECK(k.compulsory->l2_bytes == doctest::Approx(512.0 * 4096 * 4 + 8192));
    CHECK(k.compulsory->dram_bytes == 0);
    CHECK(k.compulsory->xu_ops == 512);
}

TEST_CASE("rmsnorm: vectorized and FlashInfer launch shapes, fused add") {
    rmsnorm_problem p{1024, 8192, true, 2, rmsnorm_impl::vllm_vectorized};
    auto s = synperf::family::rmsnorm_detail::shape(p);
    CHECK(s.vector_bytes == 16);  // 8 fp16 per access (hidden % 8 == 0)
    CHECK(s.threads == 256);      // fused add + norm, >= 256 tokens
    CHECK(s.cta.l2_bytes == doctest::Approx(6 * 8192 * 2));  // x, r, w read; r written, r re-read, x written
    CHECK(s.cta.fma_ops == doctest::Approx(4 * 8192 + 256));
    CHECK(s.memory_rounds == 12);  // 4 iterations x (load x and r; store r; store x)
    p.tokens = 100;
    CHECK(synperf::family::rmsnorm_detail::shape(p).threads == 1024);  // < 256 tokens: 1024 threads
    p.hidden = 4100;  // not a multiple of 8: scalar path
    CHECK(synperf::family::rmsnorm_detail::shape(p).vector_bytes == 2);

    // FlashInfer: vec = gcd(8, 5120) = 8, threads = min(1024, 640) = 640 = 20 warps; fused smem = (20 + 5120) x 4.
    const rmsnorm_problem f{64, 5120, true, 2, rmsnorm_impl::flashinfer};
    s = synperf::family::rmsnorm_detail::shape(f);
    CHECK(s.vector_bytes == 16);
    CHECK(s.threads == 640);
    CHECK(s.smem == (20 + 5120) * 4);
    const rmsnorm_problem odd{64, 4100, false, 2, rmsnorm_impl::flashinfer};  // gcd(8, 4100) = 4
    s = synperf::family::rmsnorm_detail::shape(odd);
    CHECK(s.vector_bytes == 8);
    CHECK(s.threads == 1024);  // min(1024, 1025) = 1024
    // Fused footprint: x, r read, r, x written per token, plus w.
    const auto plan = rmsnorm::plan(f, a100);
    CHECK(plan.footprint_bytes == doctest::Approx(64.0 * 5120 * 2 * 4 + 5120 * 2));
}

TEST_CASE("rmsnorm: invalid shapes give clear errors") {
    CHECK_THROWS_WITH_AS(rmsnorm::plan({0, 4096}, a100), doctest::Contains("rmsnorm: tokens must be > 0, got 0"),
                         synperf::invalid_argument);
    CHECK_THROWS_WITH_AS(rmsnorm::plan({16, -1}, a100), doctest::Contains("rmsnorm: hidden must be > 0, got -1"),
                         synperf::invalid_argument);
    CHECK_THROWS_WITH_AS(rmsnorm::plan({16, 4096, false, 3}, a100), doctest::Contains("element_bytes must be 2"),
                         synperf::invalid_argument);
    CHECK_THROWS_WITH_AS(rmsnorm::plan({std::int64_t{1} << 32, 4096}, a100), doctest::Contains("tokens must be <= 2^31 - 1"),
                         synperf::invalid_argument);
    CHECK_THROWS_WITH_AS(rmsnorm::framework_level("trtllm"), doctest::Contains("unknown framework 'trtllm'"),
                         synperf::invalid_argument);
    // An impl cast from an out-of-range integer (the launch rules would divide by a zero vector width).
    CHECK_THROWS_WITH_AS(rmsnorm::plan({1, 1, false, 2, static_cast<rmsnorm_impl>(3)}, a100), doctest::Contains("rmsnorm: unknown impl 3"),
                         synperf::invalid_argument);
}

TEST_CASE("rmsnorm: theoretical time is non-decreasing in tokens, and DRAM takes over beyond L2") {
    for (const auto* g : {&synperf::hw::a100_sxm::numbers, &synperf::hw::a40::numbers, &synperf::hw::h100_sxm::numbers}) {
        for (auto impl : {rmsnorm_impl::vllm_scalar, rmsnorm_impl::flashinfer}) {
            double last = 0;
            for (std::int64_t t = 1; t <= 65536; t *= 2) {
                const auto r = synperf::predictor_detail::analyze<rmsnorm>(rmsnorm_problem{t, 8192, false, 2, impl}, *g,
                                                                           synperf::predictor_detail::schedule_by_dispatch{});
                CHECK(r.theoretical_us >= last);
                last = r.theoretical_us;
                CHECK(r.features.size() == rmsnorm::feature_count);
                for (double f : r.features) CHECK(f >= 0);
            }
            // 65536 x 8192 x 2 x 2 B = 2 GiB: far beyond L2. With 16-byte accesses the bound is the bytes at DRAM
            // bandwidth; with 2-byte accesses the threads wait out their memory rounds on top of the footprint's
            // pass through L2, which exceeds the DRAM time where DRAM is fast against L2 (A100, H100; not A40's
            // GDDR6, where DRAM stays the bound).
            const double bytes = 65536.0 * 8192 * 4 + 8192 * 2;
            const double dram_us = (bytes - g->l2_bytes) / (g->dram_gbps * 1e3);
            if (impl == rmsnorm_impl::flashinfer)
                CHECK(last == doctest::Approx(dram_us).epsilon(0.01));
            else if (g == &synperf::hw::a40::numbers)
                CHECK(last == doctest::Approx(dram_us).epsilon(0.01));
            else
                CHECK(last > 1.2 * dram_us);
        }
    }
}

TEST_CASE("rmsnorm: the floor adds the waves' memory rounds and CTA dispatches to the footprint's pass through L2") {
    // A100, hidden 4096, fp16, scalar kernel: 1024 threads per CTA, 2 CTAs per SM (2048 threads), 216 slots.
    // 1000 tokens: ceil(1000 / 216) = 5 waves, each of 2 x ceil(4096 / 1024) = 8 rounds at the nominal L2 hit and
    // 2 CTA dispatches per SM, plus the footprint (x read, out written, w once) at L2 bandwidth; it fits in A100's
    // 40 MB L2, so DRAM adds nothing.
    const rmsnorm_problem p{1000, 4096, false, 2, rmsnorm_impl::vllm_scalar};
    const auto r = synperf::predictor_detail::analyze<rmsnorm>(p, a100, synperf::predictor_detail::schedule_by_dispatch{});
    const double footprint = 2.0 * 1000 * 4096 * 2 + 4096 * 2;
    const double rounds_cycles = 5.0 * (8.0 * synperf::features::nominal_l2_hit_cycles +
                                        2.0 * synperf::features::nominal_cta_dispatch_cycles);
    const double floor_cycles = rounds_cycles + footprint / a100.l2_bytes_per_clk();
    CHECK(r.theoretical_us == doctest::Approx(floor_cycles / a100.tensor_clock_mhz));
    CHECK(r.bottleneck == "latency");
    // The report's bound terms: the floor binds; the FMA work (3 per element and the block reduction's adds) and the
    // footprint at L2 bandwidth are there too, no tensor work and no DRAM term.
    const synperf::bound_terms& b = r.kernels.front().bound;
    CHECK(b.latency_us == doctest::Approx(r.theoretical_us));
    CHECK(b.l2_us == doctest::Approx(footprint / a100.l2_bytes_per_clk() / a100.tensor_clock_mhz));
    CHECK(b.fma_us > 0);
    CHECK(b.tensor_us == 0.0);
    CHECK(b.dram_us == 0.0);
    CHECK(r.kernels.front().busiest_sm_us == doctest::Approx(r.theoretical_us));  // the floor binds, not the FMA work
    // The model reads only counts of the launch: log2 of the waves, the busy SMs' share, the access width.
    REQUIRE(r.features.size() == rmsnorm::feature_count);
    CHECK(r.features[0] == doctest::Approx(std::log2(5.0)));
    CHECK(r.features[1] == doctest::Approx(1.0));
    CHECK(r.features[2] == doctest::Approx(2.0));
    CHECK(r.features[3] == 0.0);  // not fused
}
