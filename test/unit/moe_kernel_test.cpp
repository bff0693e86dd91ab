// SPDX-License-Identifier: Apache-2.0
// One fused_moe_kernel launch with an explicit config: grid, padding and empty CTAs of w13 and w2, Triton's shared
// memory, the bound of weights that do not fit in L2, bad input, and the shipped model's monotonicity.
#include "synperf/family/moe_kernel.hpp"

#include <doctest/doctest.h>

#include <cstdint>
#include <memory>

#include "synperf/cost/mlp_cost.hpp"
#include "synperf/error.hpp"
#include "synperf/gpu/registry.hpp"
#include "synperf/models/moe_kernel.hpp"
#include "synperf/predictor/predictor.hpp"

namespace {

using synperf::family::moe_kernel;
using synperf::family::moe_kernel_config;
using synperf::family::moe_kernel_problem;
using synperf::family::moe_weight;

moe_kernel_problem launch(std::int64_t tokens, std::int64_t hidden, std::int64_t inter, std::int64_t experts, std::int64_t topk,
                          moe_weight w, moe_kernel_config c) {
    return {tokens, hidden, inter, experts, topk, w, c};
}

const synperf::cost::mlp_cost& shipped() {
    static const synperf::cost::mlp_cost model(
        std::shared_ptr<const synperf::mlp::network>(&synperf::models::moe_kernel(), [](const synperf::mlp::network*) {}));
    return model;
}

}  // namespace

TEST_CASE("moe_kernel: w13 computes 2 N columns over K = H, w2 H columns over K = N, both with the padded grid") {
    const auto g = synperf::gpu::find_gpu("h800").numbers;
    // 16 tokens, top 2 of 8 experts: 4 assignments per expert, BM = 16 -> post padded 128, buffer 32 + 9 * 15 = 167.
    const moe_kernel_config c{16, 32, 64, 1, 4, 3};
    const auto w13 = moe_kernel::plan(launch(16, 64, 64, 8, 2, moe_weight::w13, c), g);
    CHECK(w13.alignment.post_padded == 128);
    CHECK(w13.alignment.buffer == 167);
    CHECK(w13.gemm.n == 128);
    CHECK(w13.gemm.k == 64);
    // ceil(167 / 16) = 11 m-blocks x ceil(128 / 32) = 4 n-blocks: 44 CTAs, the 3 m-blocks past 128 rows empty.
    CHECK(w13.gemm.grid == 44);
    CHECK(w13.gemm.active_ctas == 32);
    CHECK(w13.gemm.empty_ctas == 12);
    CHECK(w13.kernels.size() == 1);
    std::int64_t tasks = 0;
    for (const auto& t : w13.kernels.front().tasks) tasks += t.count;
    CHECK(tasks == 44);
    CHECK(w13.gemm.useful_flop == doctest::Approx(2.0 * 32 * 128 * 64));
    CHECK(w13.gemm.weight_bytes == doctest::Approx(8.0 * 128 * 64 * 2));

    const auto w2 = moe_kernel::plan(launch(16, 64, 48, 8, 2, moe_weight::w2, c), g);
    CHECK(w2.gemm.n == 64);
    CHECK(w2.gemm.k == 48);
    CHECK(w2.gemm.a_rows == 32);
    CHECK(w2.gemm.grid == 22);  // 11 m-blocks x 2 n-blocks
    CHECK(w2.gemm.useful_flop == doctest::Approx(2.0 * 32 * 64 * 48));
}

TEST_CASE("moe_kernel: one token with fewer rows than BM shrinks EM to rows * topk * BM") {
    const auto g = synperf::gpu::find_gpu("a100_sxm").numbers;
    // M = 1, top 6 of 128: 6 experts of one row each. BM = 64 > 1 row: EM = min(buffer, 1 * 6 * 64) = 384, 6 m-blocks.
    const auto p = moe_kernel::plan(launch(1, 4096, 2048, 128, 6, moe_weight::w13, {64, 64, 64, 1, 4, 3}), g);
    CHECK(p.routing.active_experts() == 6);
    CHECK(p.gemm.em == 384);
    CHECK(p.gemm.grid_m == 6);
    CHECK(p.gemm.grid_n == 64);  // 2 x 2048 / 64
    CHECK(p.gemm.empty_ctas == 0);
}

TEST_CASE("moe_kernel: Triton keeps num_stages - 1 tile buffers in shared memory") {
    // 128 x 128 x 64 bf16, 4 stages: 3 x (128 + 128) x 64 x 2 = 96 KiB, which fits the A40's 99 KiB per CTA (PipeWeave
    // timed this config there); 4 buffers (128 KiB) would not.
    const auto a40 = synperf::gpu::find_gpu("a40").numbers;
    const auto p = moe_kernel::plan(launch(1024, 4096, 1536, 128, 8, moe_weight::w13, {128, 128, 64, 8, 8, 4}), a40);
    CHECK(p.gemm.smem_bytes == 3 * 256 * 64 * 2);
    CHECK(p.gemm.threads == 256);
    CHECK_THROWS_WITH_AS((void)moe_kernel::plan(launch(1024, 4096, 1536, 128, 8, moe_weight::w13, {128, 256, 128, 8, 8, 4}), a40),
                         doctest::Contains("shared memory"), synperf::invalid_argument);
}

TEST_CASE("moe_kernel: weights larger than L2 are bound by DRAM, weights that fit by L2") {
    const auto g = synperf::gpu::find_gpu("l40").numbers;  // 96 MB of L2
    const auto dram_us = [&](double bytes) { return bytes / (g.dram_gbps * 1e3); };
    const synperf::runtime_predictor<moe_kernel> analyze(g, shipped());
    // 16 tokens x top 8 of 128: all 128 experts' 2 x 3072 x 4096 bf16 weights, 6.4 GB, stream from DRAM every call.
    const auto cold = launch(16, 4096, 3072, 128, 8, moe_weight::w13, {16, 64, 128, 1, 4, 3});
    const auto cold_plan = moe_kernel::plan(cold, g);
    CHECK(cold_plan.gemm.weight_bytes == doctest::Approx(128.0 * 6144 * 4096 * 2));
    CHECK(analyze.predict(cold, "triton").theoretical_us >= dram_us(cold_plan.gemm.weight_bytes));
    // 1 token x top 6 of 128 experts of 2 x 2048 x 4096: 6 experts, 201 MB > L2, also from DRAM.
    const auto six = launch(1, 4096, 2048, 128, 6, moe_weight::w13, {16, 64, 128, 1, 4, 3});
    CHECK(analyze.predict(six, "triton").theoretical_us >= dram_us(moe_kernel::plan(six, g).gemm.weight_bytes));
    // 1 token x top 2 of 8 experts of 2 x 512 x 1024: 4 MiB stay in L2 between calls; the bound is below DRAM time.
    const auto hot = launch(1, 1024, 512, 8, 2, moe_weight::w13, {16, 64, 128, 1, 4, 3});
    const auto hot_plan = moe_kernel::plan(hot, g);
    CHECK(hot_plan.kernels.front().compulsory->dram_bytes == 0.0);
}

TEST_CASE("moe_kernel: invalid inputs are clear errors") {
    const auto g = synperf::gpu::find_gpu("h800").numbers;
    using synperf::invalid_argument;
    const moe_kernel_config c{64, 64, 32, 8, 4, 3};
    CHECK_THROWS_WITH_AS((void)moe_kernel::plan(launch(0, 4096, 1024, 8, 2, moe_weight::w13, c), g), doctest::Contains("tokens"),
                         invalid_argument);
    CHECK_THROWS_WITH_AS((void)moe_kernel::plan(launch(16, -4096, 1024, 8, 2, moe_weight::w13, c), g), doctest::Contains("hidden"),
                         invalid_argument);
    CHECK_THROWS_WITH_AS((void)moe_kernel::plan(launch(16, 4096, 1024, 8, 9, moe_weight::w13, c), g), doctest::Contains("topk"),
                         invalid_argument);
    CHECK_THROWS_WITH_AS((void)moe_kernel::plan(launch(16, 4096, 1024, 8, 2, static_cast<moe_weight>(7), c), g),
                         doctest::Contains("w13, w2"), invalid_argument);
    CHECK_THROWS_WITH_AS((void)moe_kernel::plan(launch(16, 4096, 1024, 8, 2, moe_weight::w13, {0, 64, 32, 8, 4, 3}), g),
                         doctest::Contains("BLOCK_SIZE"), invalid_argument);
    CHECK_THROWS_WITH_AS((void)moe_kernel::plan(launch(16, 4096, 1024, 8, 2, moe_weight::w13, {64, 64, 32, 0, 4, 3}), g),
                         doctest::Contains("GROUP_SIZE_M"), invalid_argument);
    CHECK_THROWS_WITH_AS((void)moe_kernel::plan(launch(16, 4096, 1024, 8, 2, moe_weight::w13, {64, 64, 32, 8, 4, 0}), g),
                         doctest::Contains("num_stages"), invalid_argument);
    CHECK_THROWS_WITH_AS((void)moe_kernel::plan(launch(std::int64_t{1} << 40, 4096, 1024, 8, 2, moe_weight::w13, c), g),
                         doctest::Contains("tokens"), invalid_argument);
    CHECK_THROWS_WITH_AS((void)moe_kernel::framework_level("tensorrt"), doctest::Contains("known: triton"), invalid_argument);
}

TEST_CASE("moe_kernel: with the shipped model more tokens are never faster beyond noise") {
    for (const char* name : {"h800", "a100_sxm", "l40", "rtx_pro_6000_server"}) {
        const auto g = synperf::gpu::find_gpu(name).numbers;
        const synperf::runtime_predictor<moe_kernel> pred(g, shipped());
        for (const auto& s : {launch(1, 4096, 1536, 128, 8, moe_weight::w13, {16, 64, 128, 1, 4, 3}),
                              launch(1, 1024, 512, 8, 2, moe_weight::w13, {64, 64, 64, 8, 4, 3}),
                              launch(1, 4096, 3072, 128, 8, moe_weight::w13, {128, 128, 64, 8, 8, 3})}) {
            double previous = 0;
            for (std::int64_t t = 1; t <= 4096; t *= 2) {
                moe_kernel_problem p = s;
                p.tokens = t;
                const double us = pred.predict(p, "triton").latency_us;
                CAPTURE(name);
                CAPTURE(t);
                CHECK(us > 0);
                CHECK(us >= 0.9 * previous);
                previous = us;
            }
        }
    }
}
