// SPDX-License-Identifier: Apache-2.0
// The collectors' timing loops: each GEMM row's L2 reuse distance, and how the model reads it.
#include "synperf/data/gemm_timing_loop.hpp"

#include <doctest/doctest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>
#include <string>
#include <vector>

#include "synperf/data/gemm_rows.hpp"
#include "synperf/data/inventory.hpp"
#include "synperf/error.hpp"
#include "synperf/family/gemm.hpp"
#include "synperf/features/analysis.hpp"
#include "synperf/hw/h100_sxm.hpp"
#include "synperf/hw/l40s.hpp"
#include "synperf/scheduler/run.hpp"

namespace {

using synperf::data::gemm_reuse_distance;
using synperf::data::gemm_timing_loop;
using synperf::data::gemm_timing_loop_of;
using synperf::family::gemm_problem;

constexpr double mib = 1024.0 * 1024.0;

}  // namespace

TEST_CASE("gemm timing loop: each collector's loop from its framework and version") {
    CHECK(gemm_timing_loop_of("trtllm", "1.0.0") == gemm_timing_loop::five_weight_copies);
    CHECK(gemm_timing_loop_of("trtllm", "1.3.0rc20") == gemm_timing_loop::l2_sized_weight_copies);
    CHECK(gemm_timing_loop_of("trtllm", "") == gemm_timing_loop::l2_sized_weight_copies);
    CHECK(gemm_timing_loop_of("sglang", "0.5.10") == gemm_timing_loop::six_op_copies);
    CHECK(gemm_timing_loop_of("vllm", "0.22.0") == gemm_timing_loop::six_layer_copies);
}

TEST_CASE("gemm timing loop: reuse distances worked by hand") {
    const double l2 = 96 * mib;  // L40S
    // n = 8192, k = 3072: W = 48 MiB, exactly half of L2 -> TensorRT-LLM 1.3 rotates ceil(2) = 2 copies.
    const gemm_problem half_l2{4, 8192, 3072};
    const double x = 4.0 * 3072 * 2, w = 8192.0 * 3072 * 2, y = 4.0 * 8192 * 2;
    CHECK(w == 48 * mib);
    CHECK(gemm_reuse_distance(gemm_timing_loop::l2_sized_weight_copies, half_l2, l2) == 2 * w + x + y);
    // An L2 one byte larger takes a third copy to cover.
    CHECK(gemm_reuse_distance(gemm_timing_loop::l2_sized_weight_copies, half_l2, l2 + 1) == 3 * w + x + y);
    // Small weights: at most 5 copies, so the whole rotation sits in L2.
    const gemm_problem small{4, 1024, 1024};
    const double ws = 1024.0 * 1024 * 2, xs = 4.0 * 1024 * 2, ys = 4.0 * 1024 * 2;
    CHECK(gemm_reuse_distance(gemm_timing_loop::l2_sized_weight_copies, small, l2) == 5 * ws + xs + ys);
    CHECK(gemm_reuse_distance(gemm_timing_loop::l2_sized_weight_copies, small, l2) < l2);
    // Weights beyond L2: a single copy.
    const gemm_problem large{4, 65536, 8192};
    const double wl = 65536.0 * 8192 * 2, xl = 4.0 * 8192 * 2, yl = 4.0 * 65536 * 2;
    CHECK(gemm_reuse_distance(gemm_timing_loop::l2_sized_weight_copies, large, l2) == wl + xl + yl);
    CHECK(gemm_reuse_distance(gemm_timing_loop::five_weight_copies, large, l2) == 5 * wl + xl + yl);
    CHECK(gemm_reuse_distance(gemm_timing_loop::six_op_copies, half_l2, l2) == 6 * (x + w) + y);
    CHECK(gemm_reuse_distance(gemm_timing_loop::six_layer_copies, half_l2, l2) == 6 * (w + y) + x);
}

TEST_CASE("gemm: the reuse distance enters as its ratio to L2, serving is the cold end") {
    const auto& g = synperf::hw::l40s::numbers;
    const auto reuse_feature = [&](const gemm_problem& p) {
        const auto plan = synperf::family::gemm::plan(p, g);
        std::vector<synperf::features::kernel_features> kf;
        for (const auto& k : plan.kernels) kf.push_back(synperf::features::analyze(k, synperf::scheduler::schedule_launch(k, g), g));
        std::size_t i = 0;
        while (synperf::family::gemm::feature_names[i] != "reuse_over_l2") ++i;
        return synperf::family::gemm::features(p, plan, kf, g)[i];
    };
    gemm_problem p{16, 4096, 4096};
    CHECK(reuse_feature(p) == synperf::family::gemm_detail::reuse_ratio_limit);  // 0 = serving
    p.reuse_distance_bytes = g.l2_bytes / 2;
    CHECK(reuse_feature(p) == doctest::Approx(0.5));
    p.reuse_distance_bytes = 1e3;
    CHECK(reuse_feature(p) == synperf::family::gemm_detail::reuse_ratio_floor);
    p.reuse_distance_bytes = 1e12;
    CHECK(reuse_feature(p) == synperf::family::gemm_detail::reuse_ratio_limit);
}

TEST_CASE("gemm: a negative or non-finite reuse distance is refused") {
    for (const double bad : {-1.0, std::numeric_limits<double>::quiet_NaN(), std::numeric_limits<double>::infinity()}) {
        gemm_problem p{16, 4096, 4096};
        p.reuse_distance_bytes = bad;
        CHECK_THROWS_AS(synperf::family::gemm::validate(p), synperf::invalid_argument);
    }
}

TEST_CASE("gemm rows: the inventory's version picks the loop") {
    const std::filesystem::path dir = std::filesystem::temp_directory_path() / "synperf_gemm_timing_loop_test";
    std::filesystem::remove_all(dir);
    std::filesystem::create_directories(dir / "aiconfigurator" / "h100_sxm");
    std::ofstream(dir / "inventory.csv") << "file,framework_version\naiconfigurator/h100_sxm/gemm_perf.csv,1.0.0\n";
    std::ofstream(dir / "aiconfigurator" / "h100_sxm" / "gemm_perf.csv")
        << "kernel_source,gemm_dtype,m,n,k,latency\ntorch_flow,bfloat16,1,1024,1024,0.003\n";
    CHECK(synperf::data::framework_versions(dir).at("aiconfigurator/h100_sxm/gemm_perf.csv") == "1.0.0");
    const auto rows = synperf::data::read_gemm_rows(dir);
    REQUIRE(rows.size() == 1);
    CHECK(rows[0].problem.reuse_distance_bytes ==
          gemm_reuse_distance(gemm_timing_loop::five_weight_copies, rows[0].problem, synperf::hw::h100_sxm::numbers.l2_bytes));
    std::filesystem::remove_all(dir);
}
