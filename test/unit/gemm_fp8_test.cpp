// SPDX-License-Identifier: Apache-2.0
// The FP8 GEMM family: vLLM's dispatch per M bucket, swap-AB, the persistent grid, the FP8 peak, bad shapes.
#include "synperf/family/gemm_fp8.hpp"

#include <doctest/doctest.h>

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "synperf/cost/roofline_cost.hpp"
#include "synperf/data/csv.hpp"
#include "synperf/data/gemm_fp8_rows.hpp"
#include "synperf/data/protocol.hpp"
#include "synperf/error.hpp"
#include "synperf/features/analysis.hpp"
#include "synperf/gpu/registry.hpp"
#include "synperf/hw/a100_sxm.hpp"
#include "synperf/hw/b200_sxm.hpp"
#include "synperf/hw/h20.hpp"
#include "synperf/hw/h800.hpp"
#include "synperf/hw/l40s.hpp"
#include "synperf/predictor/predictor.hpp"
#include "synperf/scheduler/run.hpp"

namespace {

using synperf::family::fp8_schedule;
using synperf::family::gemm_fp8;
using synperf::family::gemm_fp8_config;
using synperf::family::gemm_fp8_problem;
using synperf::gpu::gpu_numbers;
using synperf::work::dispatch_kind;

gemm_fp8_config config_of(std::int64_t m, std::int64_t n, std::int64_t k, const gpu_numbers& g) {
    return gemm_fp8::plan({m, n, k}, g).config;
}

struct expected_kernel {
    std::int64_t m, n, k;
    int bm, bn, bk, cluster_m, cluster_n;
    fp8_schedule schedule;
    bool swap_ab;
};

void check_kernel(const expected_kernel& e, const gpu_numbers& g) {
    CAPTURE(e.m);
    CAPTURE(e.n);
    CAPTURE(e.k);
    const gemm_fp8_config c = config_of(e.m, e.n, e.k, g);
    CHECK(c.bm == e.bm);
    CHECK(c.bn == e.bn);
    CHECK(c.bk == e.bk);
    CHECK(c.cluster_m == e.cluster_m);
    CHECK(c.cluster_n == e.cluster_n);
    CHECK(c.schedule == e.schedule);
    CHECK(c.swap_ab == e.swap_ab);
}

}  // namespace

TEST_CASE("gemm_fp8: sm90 tile per M bucket follows vLLM scaled_mm_sm90_fp8_dispatch.cuh") {
    const gpu_numbers& g = synperf::hw::h800::numbers;
    using enum fp8_schedule;
    // Hand-checked against the dispatch: m <= 16 / <= 64 split at n = 1280, swap-AB below M = 64.
    const expected_kernel cases[] = {
        {1, 1280, 4096, 64, 16, 256, 1, 2, tma_warp_specialized, true},
        {16, 1024, 4096, 64, 16, 256, 1, 2, tma_warp_specialized, true},
        {16, 1296, 4096, 64, 16, 256, 1, 1, tma_warp_specialized, true},
        {17, 1280, 4096, 64, 16, 256, 1, 4, tma_warp_specialized, true},
        {64, 1280, 4096, 64, 16, 256, 1, 4, tma_warp_specialized, true},
        {64, 8192, 4096, 64, 64, 256, 1, 1, tma_warp_specialized, true},
        {65, 8192, 4096, 64, 128, 128, 2, 1, pingpong, false},
        {128, 4096, 16384, 64, 128, 128, 2, 1, pingpong, false},
        {129, 4096, 4096, 128, 128, 128, 2, 1, pingpong, false},
        {8191, 4096, 8192, 128, 128, 128, 2, 1, pingpong, false},
        {8192, 4096, 6128, 128, 128, 128, 2, 1, pingpong, false},
        {8192, 4096, 6144, 256, 128, 128, 2, 1, cooperative, false},
        {65536, 1024, 8192, 256, 128, 128, 2, 1, cooperative, false},
    };
    for (const auto& e : cases) check_kernel(e, g);
}

TEST_CASE("gemm_fp8: sm100 and sm89 dispatch follow their vLLM dispatch files") {
    using enum fp8_schedule;
    const gpu_numbers& b200 = synperf::hw::b200_sxm::numbers;
    const expected_kernel sm100[] = {
        {16, 4096, 4096, 128, 32, 128, 4, 1, sm100_auto, true},
        {17, 4096, 4096, 128, 64, 256, 4, 1, sm100_auto, true},
        {64, 4096, 4096, 128, 64, 256, 4, 1, sm100_auto, true},
        {64, 4096, 4080, 64, 64, 128, 1, 1, sm100_auto, false},  // M == 64 and K < 4096: no swap
        {63, 4096, 1024, 128, 64, 256, 4, 1, sm100_auto, true},
        {256, 4096, 4096, 128, 128, 128, 2, 1, sm100_auto, false},
        {257, 4096, 4096, 256, 128, 128, 2, 2, sm100_auto, false},
    };
    for (const auto& e : sm100) check_kernel(e, b200);
    CHECK(config_of(257, 4096, 4096, b200).two_sm);
    CHECK_FALSE(config_of(64, 4096, 4080, b200).two_sm);

    // sm89: mp2 = max(32, next_pow2(m)), np2 = next_pow2(n); CUTLASS 2.x, one CTA per tile.
    const gpu_numbers& l40s = synperf::hw::l40s::numbers;
    const expected_kernel sm89[] = {
        {1, 4096, 4096, 32, 64, 128, 1, 1, sm89_multistage, false},  // the file's M16 bucket is unreachable
        {32, 16384, 4096, 32, 128, 128, 1, 1, sm89_multistage, false},
        {33, 8192, 4096, 64, 64, 128, 1, 1, sm89_multistage, false},
        {100, 8192, 4096, 64, 128, 128, 1, 1, sm89_multistage, false},
        {100, 16384, 4096, 128, 128, 64, 1, 1, sm89_multistage, false},
        {100, 32768, 4096, 128, 64, 128, 1, 1, sm89_multistage, false},
        {200, 4096, 4096, 64, 128, 128, 1, 1, sm89_multistage, false},
        {300, 4096, 4096, 128, 128, 64, 1, 1, sm89_multistage, false},
        {300, 8192, 4096, 256, 128, 64, 1, 1, sm89_multistage, false},
        {300, 16384, 4096, 128, 128, 64, 1, 1, sm89_multistage, false},
    };
    for (const auto& e : sm89) check_kernel(e, l40s);
    const gemm_fp8_config c = config_of(300, 8192, 4096, l40s);
    CHECK(c.stages == 3);
    CHECK(c.threads == 4 * 2 * 32);  // 256x128 tile of 64x64 warps
    CHECK(c.smem_bytes == 3 * (256 + 128) * 64);
    CHECK_FALSE(c.persistent);
}

TEST_CASE("gemm_fp8: swap-AB runs the kernel as (N, M, K)") {
    const gpu_numbers& g = synperf::hw::h800::numbers;
    // m = 40, n = 8192: tile 64x64 over (n, m) -> 128 x 1 tiles; without the swap it would be 1 x 128.
    const gemm_fp8_config c = config_of(40, 8192, 4096, g);
    REQUIRE(c.swap_ab);
    CHECK(c.kernel_m == 8192);
    CHECK(c.kernel_n == 40);
    CHECK(c.tiles_m == 128);
    CHECK(c.tiles_n == 1);
    // Cluster 1x4 along the tokens: 2 tiles of 16 tokens padded to a whole cluster of 4.
    const gemm_fp8_config d = config_of(32, 1024, 4096, g);
    CHECK(d.tiles_m == 16);
    CHECK(d.tiles_n == 4);
    CHECK(d.tiles == 64);
    // The non-persistent TmaWarpSpecialized kernel is one CTA per tile, hardware-dispatched.
    const auto plan = gemm_fp8::plan({32, 1024, 4096}, g);
    CHECK(plan.kernels[0].dispatch == dispatch_kind::hardware);
    CHECK(plan.kernels[0].tasks[0].count == 64);
    CHECK(plan.kernels[0].name.find("swapab") != std::string::npos);
}

TEST_CASE("gemm_fp8: persistent kernels use the static persistent schedule on a CUTLASS-sized grid") {
    CHECK(gemm_fp8::main_dispatch(synperf::hw::h800::numbers) == dispatch_kind::persistent_static);
    CHECK(gemm_fp8::main_dispatch(synperf::hw::b200_sxm::numbers) == dispatch_kind::persistent_static);
    CHECK(gemm_fp8::main_dispatch(synperf::hw::l40s::numbers) == dispatch_kind::hardware);
    // get_max_cta_occupancy with 18-SM GPCs: cluster 2 keeps all 132 SMs; cluster 4 on 148 SMs leaves 16 idle.
    CHECK(synperf::family::gemm_fp8_detail::persistent_cta_capacity(132, 2) == 132);
    CHECK(synperf::family::gemm_fp8_detail::persistent_cta_capacity(132, 8) == 7 * 16);
    CHECK(synperf::family::gemm_fp8_detail::persistent_cta_capacity(148, 4) == 8 * 16 + 4);  // + the residual GPC
    CHECK(synperf::family::gemm_fp8_detail::persistent_cta_capacity(78, 1) == 78);

    const gpu_numbers& g = synperf::hw::h800::numbers;
    const auto big = gemm_fp8::plan({4096, 4096, 4096}, g);
    REQUIRE(big.kernels.size() == 1);
    const auto& k = big.kernels[0];
    CHECK(k.dispatch == dispatch_kind::persistent_static);
    CHECK(big.config.tiles == 32 * 32);
    CHECK(k.persistent_ctas == 132);
    CHECK(k.launch.threads_per_cta == 384);
    // 1024 units over 132 persistent CTAs: ceil(1024 / 132) = 8 units on the busiest SM.
    const auto o = synperf::predictor_detail::options_for(k, g);
    CHECK(o.slots_per_sm == 1);
    const auto s = synperf::scheduler::run_scheduler(k.dispatch, std::span<const synperf::work::task_class>(k.tasks), g, o);
    CHECK(s.grid_ctas == 132);
    CHECK(s.sm_max.tensor_flop == doctest::Approx(8 * 2.0 * 128 * 128 * 4096));
    // Fewer tiles than SMs: the grid shrinks to the tiles (cluster 2 rounds 65 row tiles up to 66).
    const auto small = gemm_fp8::plan({129 * 64, 128, 1024}, g);
    CHECK(small.config.tiles_m == 66);
    CHECK(small.kernels[0].persistent_ctas == 66);
}

TEST_CASE("gemm_fp8: the compile-time predictor runs sm_90's one-CTA-per-tile kernels of small M too") {
    // M <= 64 on sm_90 runs a swap-AB kernel the hardware dispatches, though the family's main dispatch there is
    // persistent: the default scheduler hands it to the hardware dispatcher, as the run-time predictor does.
    using synperf::cost::roofline_cost;
    const gemm_fp8_problem p{64, 8192, 8192};
    REQUIRE(gemm_fp8::plan(p, synperf::hw::h800::numbers).kernels[0].dispatch == dispatch_kind::hardware);
    const synperf::predictor<synperf::hw::h800, gemm_fp8, synperf::default_scheduler_t<gemm_fp8, synperf::hw::h800>, roofline_cost>
        compile_time;
    const synperf::runtime_predictor<gemm_fp8, roofline_cost> run_time(synperf::hw::h800::numbers, roofline_cost{});
    CHECK(compile_time.predict(p).latency_us == run_time.predict(p).latency_us);
    CHECK(compile_time.predict({4096, 4096, 4096}).latency_us == run_time.predict({4096, 4096, 4096}).latency_us);
}

TEST_CASE("gemm_fp8: the lower bound uses the FP8 tensor peak") {
    const gpu_numbers& g = synperf::hw::h800::numbers;
    const gemm_fp8_problem p{8192, 8192, 8192};
    const auto plan = gemm_fp8::plan(p, g);
    CHECK(plan.kernels[0].tasks[0].work.tensor_type == synperf::gpu::tensor_dtype::fp8);
    CHECK(plan.kernels[0].compulsory->tensor_type == synperf::gpu::tensor_dtype::fp8);
    const auto r = synperf::predictor_detail::analyze<gemm_fp8>(p, g, synperf::predictor_detail::schedule_by_dispatch{});
    // 2 * 8192^3 flop at 8192 flop/clk/SM x 132 SMs x 1830 MHz = 1979 TFLOPS: about 556 us (half the bf16 time).
    const double expected_us = 2.0 * 8192.0 * 8192.0 * 8192.0 / (g.tensor_fp8_flop_per_clk * g.sm_count * g.tensor_clock_mhz);
    CHECK(r.theoretical_us == doctest::Approx(expected_us).epsilon(1e-9));
    CHECK(r.bottleneck == "tensor");
    CHECK(r.features.size() == gemm_fp8::feature_count);
    for (double f : r.features) CHECK(f >= 0);
    // H20's FP8 rate is a quarter of H800's per SM.
    const auto h20 = synperf::predictor_detail::analyze<gemm_fp8>(p, synperf::hw::h20::numbers, synperf::predictor_detail::schedule_by_dispatch{});
    CHECK(h20.theoretical_us ==
          doctest::Approx(2.0 * 8192.0 * 8192.0 * 8192.0 / (2048.0 * 78 * synperf::hw::h20::numbers.tensor_clock_mhz)));
    // A small decode GEMM is bound by reading the weights (or L2-resident bytes), never by the tensor pipe.
    const auto d = synperf::predictor_detail::analyze<gemm_fp8>({8, 8192, 8192}, g, synperf::predictor_detail::schedule_by_dispatch{});
    CHECK(d.bottleneck != "tensor");
}

TEST_CASE("gemm_fp8: invalid shapes and GPUs without FP8 are rejected with a message") {
    const gpu_numbers& g = synperf::hw::h800::numbers;
    CHECK_THROWS_WITH_AS(gemm_fp8::plan({0, 4096, 4096}, g), doctest::Contains("m must be > 0"), synperf::invalid_argument);
    CHECK_THROWS_WITH_AS(gemm_fp8::plan({16, -4, 4096}, g), doctest::Contains("n must be > 0"), synperf::invalid_argument);
    CHECK_THROWS_WITH_AS(gemm_fp8::plan({16, 4096, 4100}, g), doctest::Contains("k must be a multiple of 16"), synperf::invalid_argument);
    CHECK_THROWS_WITH_AS(gemm_fp8::plan({16, 4104, 4096}, g), doctest::Contains("n must be a multiple of 16"), synperf::invalid_argument);
    CHECK_THROWS_WITH_AS(gemm_fp8::plan({std::int64_t{1} << 32, 4096, 4096}, g), doctest::Contains("<= 2^31"), synperf::invalid_argument);
    CHECK_THROWS_WITH_AS(gemm_fp8::plan({1 << 30, 1 << 30, 4096}, g), doctest::Contains("exceeds 2^40"), synperf::invalid_argument);
    CHECK_THROWS_WITH_AS(gemm_fp8::plan({16, 4096, 4096}, synperf::hw::a100_sxm::numbers), doctest::Contains("no FP8 tensor cores"),
                         synperf::invalid_argument);
    CHECK_THROWS_WITH_AS(gemm_fp8::framework_level("trtllm"), doctest::Contains("unknown framework"), synperf::invalid_argument);
    // A TMA pipeline needs two stages and the epilogue; a GPU whose CTAs hold less does not run the kernel.
    gpu_numbers small_smem = g;
    small_smem.smem_per_cta_bytes = 40000;
    CHECK_THROWS_WITH_AS(gemm_fp8::plan({4096, 4096, 4096}, small_smem),
                         doctest::Contains("needs two pipeline stages and its epilogue"), synperf::invalid_argument);
    gpu_numbers one_sm = synperf::hw::b200_sxm::numbers;
    one_sm.sm_count = 1;
    CHECK_THROWS_WITH_AS(gemm_fp8::plan({4096, 4096, 4096}, one_sm), doctest::Contains("CTAs does not fit a GPU with 1 SMs"),
                         synperf::invalid_argument);
}

TEST_CASE("gemm_fp8: protocol and row reader") {
    const auto proto = synperf::data::gemm_fp8_protocol();
    CHECK(proto.label("h20") == synperf::data::split::seen);
    CHECK(proto.label("h800") == synperf::data::split::seen);
    CHECK(proto.label("h200_sxm") == synperf::data::split::unseen_sku);
    CHECK(proto.label("h100_sxm") == synperf::data::split::sibling);

    namespace fs = std::filesystem;
    const fs::path dir = fs::temp_directory_path() / "synperf_gemm_fp8_rows_test";
    fs::create_directories(dir / "pipeweave");
    const auto write = [&](const std::string& text) {
        std::FILE* f = std::fopen((dir / "pipeweave" / "gemm_fp8_train.csv").string().c_str(), "wb");
        REQUIRE(f != nullptr);
        std::fputs(text.c_str(), f);
        std::fclose(f);
    };
    write("M,N,K,avg_duration,hardware,tc_bf16\n108,8192,1024,13.6596,NVIDIA H20,1024\n96,6144,2560,11.68,NVIDIA H100,4096\n");
    const auto rows = synperf::data::read_gemm_fp8_rows(dir);
    REQUIRE(rows.size() == 2);
    CHECK(rows[0].gpu == "h20");
    CHECK(rows[1].gpu == "h100_sxm");
    CHECK(rows[0].problem.m == 108);
    CHECK(rows[0].latency_us == doctest::Approx(13.6596));
    CHECK(rows[0].shape_hash == synperf::data::shape_hash({8192, 1024}));
    write("M,N,K,avg_duration,hardware\n108,8192,1024,13.6,NVIDIA X999\n");
    CHECK_THROWS_WITH_AS(static_cast<void>(synperf::data::read_gemm_fp8_rows(dir)), doctest::Contains("gemm_fp8_train.csv:2"), synperf::load_error);
    write("M,N,K,avg_duration,hardware\n108,8192,1024,-1,NVIDIA H20\n");
    CHECK_THROWS_WITH_AS(static_cast<void>(synperf::data::read_gemm_fp8_rows(dir)), doctest::Contains("avg_duration"), synperf::load_error);
    fs::remove_all(dir);
    CHECK_THROWS_AS(static_cast<void>(synperf::data::read_gemm_fp8_rows(dir)), synperf::load_error);
}
