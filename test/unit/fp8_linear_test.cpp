// SPDX-License-Identifier: Apache-2.0
// The FP8 linear-layer family: each framework's kernels, the CUDA-core path on sm_89, quantization bytes, the
// timing loops' reuse distances, monotonicity in m, bad inputs, the row reader.
#include "synperf/family/fp8_linear.hpp"

#include <doctest/doctest.h>

#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <string>

#include "synperf/cost/roofline_cost.hpp"
#include "synperf/data/fp8_linear_rows.hpp"
#include "synperf/error.hpp"
#include "synperf/hw/a100_sxm.hpp"
#include "synperf/hw/b200_sxm.hpp"
#include "synperf/hw/h100_sxm.hpp"
#include "synperf/hw/l40s.hpp"
#include "synperf/hw/rtx_pro_6000_server.hpp"
#include "synperf/predictor/predictor.hpp"

namespace {

using synperf::family::fp8_linear;
using synperf::family::fp8_linear_framework;
using synperf::family::fp8_linear_plan;
using synperf::family::fp8_linear_problem;
using synperf::gpu::gpu_numbers;

fp8_linear_problem problem(std::int64_t m, std::int64_t n, std::int64_t k, fp8_linear_framework f) { return {m, n, k, f, 0.0}; }

double total_l2_bytes(const synperf::work::kernel_launch& k) {
    double b = 0;
    for (const auto& t : k.tasks) b += t.work.l2_bytes * double(t.count);
    return b;
}

}  // namespace

TEST_CASE("fp8_linear: TensorRT-LLM runs an amax reduction, the per-tensor quantize, then the GEMM") {
    const gpu_numbers& g = synperf::hw::h100_sxm::numbers;
    const fp8_linear_plan p = fp8_linear::plan(problem(256, 4096, 8192, fp8_linear_framework::trtllm), g);
    REQUIRE(p.kernels.size() == 3);
    CHECK(p.quant_kernels == 2);
    CHECK_FALSE(p.cuda_core_gemm);
    CHECK(p.kernels[1].name == "computeFP8QuantizeScale_per_tensor");
    CHECK(p.kernels[2].name == "scaleMatrixPerTensorVec");
    // The GEMM is vLLM's sm90 CUTLASS choice for M in (128, 8192): 128x128x128, cluster 2x1, pingpong.
    CHECK(p.gemm.bm == 128);
    CHECK(p.gemm.bn == 128);
    CHECK(p.gemm.cluster_m == 2);
    // The amax reads the 256 x 8192 bf16 activation once; the quantize reads it and writes e4m3 (3 bytes per element).
    CHECK(total_l2_bytes(p.kernels[1]) == doctest::Approx(256.0 * 8192 * 2));
    CHECK(total_l2_bytes(p.kernels[2]) == doctest::Approx(256.0 * 8192 * 3));
    CHECK(p.footprint_bytes == doctest::Approx(2.0 * 256 * 8192 + 4096.0 * 8192 + 2.0 * 256 * 4096));
    // Every kernel of the op costs at least one back-to-back launch.
    for (const auto& k : p.kernels) CHECK(k.launch_floor_us == synperf::work::back_to_back_launch_us(g));
}

TEST_CASE("fp8_linear: SGLang quantizes per token, eight tokens per CTA, then runs CUTLASS fp8_scaled_mm") {
    const gpu_numbers& g = synperf::hw::b200_sxm::numbers;
    const fp8_linear_plan p = fp8_linear::plan(problem(100, 4096, 2048, fp8_linear_framework::sglang), g);
    REQUIRE(p.kernels.size() == 2);
    CHECK(p.quant_kernels == 1);
    CHECK(p.kernels[1].name == "per_token_quant_fp8");
    REQUIRE(p.kernels[1].tasks.size() == 1);
    CHECK(p.kernels[1].tasks[0].count == 13);                     // ceil(100 / 8)
    CHECK(p.kernels[1].launch.threads_per_cta == 256);                    // a warp per token
    CHECK(p.kernels[1].tasks[0].work.l2_bytes == doctest::Approx(8.0 * (2048 * 3 + 4)));  // 8 rows: read bf16, write e4m3 + scale
    // sgl-kernel sm100: mp2 = 128 in (64, 256] -> 128x128x128, cluster 2x1 (2-SM UMMA), no swap-AB.
    CHECK(p.gemm.bm == 128);
    CHECK(p.gemm.bn == 128);
    CHECK(p.gemm.cluster_m == 2);
    CHECK(p.gemm.two_sm);
    CHECK_FALSE(p.gemm.swap_ab);
    // m <= 16: 64x64x128, cluster 1x4; (16, 64]: 64x64x128, 1x1; > 256: 256x128x64, 2x2.
    const auto small = fp8_linear::plan(problem(8, 4096, 2048, fp8_linear_framework::sglang), g).gemm;
    CHECK((small.bm == 64 && small.bn == 64 && small.cluster_n == 4 && !small.swap_ab));
    const auto mid = fp8_linear::plan(problem(64, 4096, 2048, fp8_linear_framework::sglang), g).gemm;
    CHECK((mid.bm == 64 && mid.cluster_m == 1 && mid.cluster_n == 1));
    const auto large = fp8_linear::plan(problem(4096, 4096, 2048, fp8_linear_framework::sglang), g).gemm;
    CHECK((large.bm == 256 && large.bn == 128 && large.bk == 64 && large.cluster_m == 2 && large.cluster_n == 2));
    // TensorRT-LLM on sm100 keeps vLLM's entries (swap-AB at small M).
    CHECK(fp8_linear::plan(problem(8, 4096, 2048, fp8_linear_framework::trtllm), g).gemm.swap_ab);
}

TEST_CASE("fp8_linear: on sm_89 TensorRT-LLM takes the CUDA-core GEMM up to m = 8, cuBLAS above") {
    const gpu_numbers& g = synperf::hw::l40s::numbers;
    const fp8_linear_plan small = fp8_linear::plan(problem(8, 4096, 4096, fp8_linear_framework::trtllm), g);
    CHECK(small.cuda_core_gemm);
    CHECK(small.kernels[0].name == "cudaCoreGemm_fp8_m8");
    REQUIRE(small.kernels[0].tasks.size() == 1);
    CHECK(small.kernels[0].tasks[0].count == 2048);  // n / 2 CTAs
    CHECK(small.kernels[0].launch.threads_per_cta == 128);
    CHECK_FALSE(fp8_linear::plan(problem(9, 4096, 4096, fp8_linear_framework::trtllm), g).cuda_core_gemm);
    // Not on other architectures, and never for SGLang.
    CHECK_FALSE(fp8_linear::plan(problem(8, 4096, 4096, fp8_linear_framework::trtllm), synperf::hw::h100_sxm::numbers).cuda_core_gemm);
    CHECK_FALSE(fp8_linear::plan(problem(8, 4096, 4096, fp8_linear_framework::sglang), g).cuda_core_gemm);
}

TEST_CASE("fp8_linear: on sm_120 TensorRT-LLM's cuBLAS runs one CTA per tile, SGLang's CUTLASS its one persistent kernel") {
    const gpu_numbers& g = synperf::hw::rtx_pro_6000_server::numbers;
    const fp8_linear_plan trt = fp8_linear::plan(problem(16, 4096, 4096, fp8_linear_framework::trtllm), g);
    CHECK(trt.gemm.schedule == synperf::family::fp8_schedule::sm89_multistage);  // the M <= 32 bucket: 32x64x128
    CHECK(trt.gemm.bm == 32);
    CHECK(trt.gemm.bn == 64);
    CHECK_FALSE(trt.gemm.persistent);
    CHECK(trt.kernels[0].dispatch == synperf::work::dispatch_kind::hardware);
    const fp8_linear_plan sgl = fp8_linear::plan(problem(16, 4096, 4096, fp8_linear_framework::sglang), g);
    CHECK(sgl.gemm.schedule == synperf::family::fp8_schedule::sm120_auto);
    CHECK((sgl.gemm.bm == 128 && sgl.gemm.bn == 128 && sgl.gemm.bk == 128));  // sgl-kernel's one sm_120 entry
    CHECK(sgl.gemm.persistent);
    CHECK(sgl.gemm.grid_ctas == 32);  // 1 x 32 tiles of 128 x 128
}

TEST_CASE("fp8_linear: sgl-kernel's own tile makes a kernel floor, stand-in dispatches keep the bound alone") {
    // One 128x128 tile over k = 7168 runs on one SM, 56 MMA iterations of 128x128x128 whatever m is: the RTX PRO
    // 6000 rows of this shape take 54-57 us for m = 1..64, against a bound of two launch floors (1.6 us).
    const gpu_numbers& g = synperf::hw::rtx_pro_6000_server::numbers;
    const auto predict = [&](fp8_linear_framework f) {
        const char* framework = f == fp8_linear_framework::sglang ? "sglang" : "trtllm";
        return synperf::predictor_detail::predict<fp8_linear>(problem(1, 64, 7168, f), g, framework,
                                                              synperf::predictor_detail::schedule_by_dispatch{},
                                                              synperf::cost::roofline_cost{});
    };
    const auto sgl = predict(fp8_linear_framework::sglang);
    const double mma_us = 2.0 * 128 * 128 * 7168 / g.tensor_fp8_flop_per_clk / g.tensor_clock_mhz;
    REQUIRE(sgl.kernels.size() == 2);
    CHECK(sgl.theoretical_us == doctest::Approx(2.0 * synperf::work::back_to_back_launch_us(g)));
    CHECK(sgl.kernel_floor_us == doctest::Approx(mma_us + sgl.kernels[1].theoretical_us));
    CHECK(sgl.latency_us == doctest::Approx(sgl.kernel_floor_us));  // efficiency 1 would beat the SM: the floor holds
    CHECK(sgl.efficiency == doctest::Approx(sgl.theoretical_us / sgl.latency_us));
    const auto trt = predict(fp8_linear_framework::trtllm);  // cuBLAS's choice is closed: no floor beyond the bound
    CHECK(trt.kernel_floor_us == doctest::Approx(trt.theoretical_us));
    CHECK(trt.latency_us == doctest::Approx(trt.theoretical_us));
}

TEST_CASE("fp8_linear: the lower bound never falls as m grows within one GEMM path") {
    // Across the sm_89 switch from the CUDA-core GEMM (m <= 8) to the tensor cores the op does get faster, as
    // the L40S rows show (4096 x 4096: 25.3 us at m = 8, 17.8 us at m = 9), so the check restarts there.
    for (const gpu_numbers* g : {&synperf::hw::h100_sxm::numbers, &synperf::hw::l40s::numbers, &synperf::hw::rtx_pro_6000_server::numbers})
        for (fp8_linear_framework f : {fp8_linear_framework::trtllm, fp8_linear_framework::sglang}) {
            double previous = 0;
            bool previous_cuda_core = false;
            for (std::int64_t m : {1, 2, 8, 9, 64, 128, 512, 4096, 16384}) {
                const fp8_linear_problem p = problem(m, 8192, 4096, f);
                const auto r = synperf::predictor_detail::analyze<fp8_linear>(p, *g, synperf::predictor_detail::schedule_by_dispatch{});
                const bool cuda_core = fp8_linear::plan(p, *g).cuda_core_gemm;
                CAPTURE(m);
                if (cuda_core == previous_cuda_core) CHECK(r.theoretical_us >= previous * (1 - 1e-9));
                previous = r.theoretical_us;
                previous_cuda_core = cuda_core;
                for (double x : r.features) CHECK(x >= 0.0);
            }
        }
}

TEST_CASE("fp8_linear: timing loops' reuse distances with one-byte weights") {
    using synperf::data::gemm_timing_loop;
    const fp8_linear_problem p = problem(16, 4096, 1024, fp8_linear_framework::trtllm);
    const double x = 16.0 * 1024, w = 4096.0 * 1024, y = 2.0 * 16 * 4096;
    // TensorRT-LLM 1.3: ceil(L2 / W) weight copies, at most 5 (a 4 MB weight in a 50 MB L2: 5).
    CHECK(synperf::data::fp8_linear_reuse_distance(gemm_timing_loop::l2_sized_weight_copies, p, 50e6) == doctest::Approx(5 * w + 3 * x + y));
    CHECK(synperf::data::fp8_linear_reuse_distance(gemm_timing_loop::l2_sized_weight_copies, p, 6e6) == doctest::Approx(2 * w + 3 * x + y));
    // SGLang: six copies of X (bf16), its e4m3 copy and W.
    CHECK(synperf::data::fp8_linear_reuse_distance(gemm_timing_loop::six_op_copies, p, 50e6) == doctest::Approx(6 * (3 * x + w) + y));
}

TEST_CASE("fp8_linear: serving (no reuse distance) reads like a loop whose weights never stay in L2") {
    const gpu_numbers& g = synperf::hw::h100_sxm::numbers;
    const auto reuse_feature = [&](double distance) {
        fp8_linear_problem p = problem(512, 8192, 8192, fp8_linear_framework::trtllm);
        p.reuse_distance_bytes = distance;
        const auto r = synperf::predictor_detail::analyze<fp8_linear>(p, g, synperf::predictor_detail::schedule_by_dispatch{});
        return r.features[14];  // reuse_over_l2
    };
    REQUIRE(fp8_linear::feature_names[14] == "reuse_over_l2");
    CHECK(reuse_feature(0.0) == doctest::Approx(2.0));
    CHECK(reuse_feature(1e12) == doctest::Approx(2.0));
    CHECK(reuse_feature(0.5 * g.l2_bytes) == doctest::Approx(0.5));
    CHECK(reuse_feature(1.0) == doctest::Approx(0.125));
}

TEST_CASE("fp8_linear: invalid shapes, GPUs without FP8 and unknown frameworks are rejected") {
    const gpu_numbers& g = synperf::hw::h100_sxm::numbers;
    CHECK_THROWS_WITH_AS(fp8_linear::plan(problem(0, 4096, 4096, fp8_linear_framework::trtllm), g), doctest::Contains("fp8_linear: m must be > 0"),
                         synperf::invalid_argument);
    CHECK_THROWS_WITH_AS(fp8_linear::plan(problem(16, 4096, 4100, fp8_linear_framework::sglang), g),
                         doctest::Contains("k must be a multiple of 16"), synperf::invalid_argument);
    CHECK_THROWS_WITH_AS(fp8_linear::plan(problem(16, 4096, 4096, fp8_linear_framework::trtllm), synperf::hw::a100_sxm::numbers),
                         doctest::Contains("no FP8 tensor cores"), synperf::invalid_argument);
    fp8_linear_problem bad = problem(16, 4096, 4096, fp8_linear_framework::trtllm);
    bad.reuse_distance_bytes = -1;
    CHECK_THROWS_WITH_AS(fp8_linear::plan(bad, g), doctest::Contains("reuse_distance_bytes"), synperf::invalid_argument);
    CHECK_THROWS_WITH_AS(fp8_linear::parse_framework("vllm"), doctest::Contains("known: trtllm, sglang"), synperf::invalid_argument);
}

TEST_CASE("fp8_linear: the row reader keeps fp8 rows of TensorRT-LLM and SGLang and names bad lines") {
    namespace fs = std::filesystem;
    const fs::path dir = fs::temp_directory_path() / "synperf_fp8_linear_rows_test";
    fs::create_directories(dir / "aiconfigurator" / "h100_sxm");
    const auto write = [&](const std::string& text) {
        std::FILE* f = std::fopen((dir / "aiconfigurator" / "h100_sxm" / "gemm_perf.csv").string().c_str(), "wb");
        REQUIRE(f != nullptr);
        std::fputs(text.c_str(), f);
        std::fclose(f);
    };
    write("kernel_source,gemm_dtype,m,n,k,latency\ntorch_flow,bfloat16,16,4096,4096,0.010\ntorch_flow,fp8,16,4096,4096,0.0185\n"
          "deepgemm,fp8_block,16,4096,4096,0.02\nsglang,fp8,32,2048,1024,0.0125\n");
    const auto rows = synperf::data::read_fp8_linear_rows(dir);
    REQUIRE(rows.size() == 2);
    CHECK(rows[0].gpu == "h100_sxm");
    CHECK(rows[0].problem.framework == fp8_linear_framework::trtllm);
    CHECK(rows[0].latency_us == doctest::Approx(18.5));
    CHECK(rows[1].problem.framework == fp8_linear_framework::sglang);
    CHECK(rows[1].problem.reuse_distance_bytes > 0);
    CHECK(rows[0].shape_hash == synperf::data::shape_hash({4096, 4096}));
    write("kernel_source,gemm_dtype,m,n,k,latency\ntorch_flow,fp8,16,4096,4096,-1\n");
    CHECK_THROWS_WITH_AS(static_cast<void>(synperf::data::read_fp8_linear_rows(dir)), doctest::Contains("gemm_perf.csv:2"), synperf::load_error);
    fs::remove_all(dir);
    CHECK_THROWS_AS(static_cast<void>(synperf::data::read_fp8_linear_rows(dir)), synperf::load_error);
}
