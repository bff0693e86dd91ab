// SPDX-License-Identifier: Apache-2.0
// The cuBLAS GEMM family: shape checks, the decomposer's plans, and the theoretical time it leads to.
#include "synperf/family/gemm.hpp"
#include "synperf/family/gemm_traffic.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <initializer_list>
#include <string>
#include <string_view>
#include <vector>

#include "synperf/cost/roofline_cost.hpp"
#include "synperf/data/gemm_rows.hpp"
#include "synperf/error.hpp"
#include "synperf/features/analysis.hpp"
#include "synperf/gpu/occupancy.hpp"
#include "synperf/gpu/registry.hpp"
#include "synperf/hw/a100_sxm.hpp"
#include "synperf/hw/h100_sxm.hpp"
#include "synperf/predictor/predictor.hpp"
#include "synperf/scheduler/run.hpp"
#include "synperf/work/launch.hpp"
#include "test_gpus.hpp"

namespace {

using synperf::family::gemm;
using synperf::family::gemm_config;
using synperf::family::gemm_plan;
using synperf::family::gemm_problem;
using synperf::gpu::gpu_numbers;
using synperf::work::dispatch_kind;

using roofline_predictor = synperf::runtime_predictor<gemm, synperf::cost::roofline_cost>;

/// A named set of GPU numbers: every catalogue GPU, then the hand-made ones of test_gpus.hpp.
struct named_gpu {
    std::string name;
    gpu_numbers numbers;
};
std::vector<named_gpu> every_gpu() {
    std::vector<named_gpu> out;
    for (const auto& g : synperf::gpu::all_gpus()) out.push_back({g.name, g.numbers});
    out.push_back({"test::sm80_like", synperf::test::sm80_like()});
    out.push_back({"test::sm86_like", synperf::test::sm86_like()});
    out.push_back({"test::sm90_like", synperf::test::sm90_like()});
    return out;
}

/// Shapes that exercise tiny, skinny, split-K, square, deep and odd cases.
const std::vector<gemm_problem>& shapes() {
    static const std::vector<gemm_problem> s{
        {1, 1, 1},         {7, 13, 17},       {1, 128, 1024},     {1, 4096, 4096},     {1, 8192, 8192},
        {16, 8192, 8192},  {64, 1024, 16384}, {128, 128, 65536},  {100, 3000, 70},     {1000, 1000, 1000},
        {2304, 2048, 8192}, {4096, 4096, 4096}, {8192, 8192, 8192}, {32768, 32768, 128}, {1 << 20, 64, 64},
        {3, 5, 1 << 20},   {4097, 14336, 4096}, {8192, 28672, 8192, synperf::family::gemm_dtype::fp16}};
    return s;
}

std::int64_t ceil_div(std::int64_t a, std::int64_t b) { return (a + b - 1) / b; }

/// Total tensor flop of a kernel: every task class's work times its count.
double tensor_flop(const synperf::work::kernel_launch& k) {
    double f = 0;
    for (const auto& t : k.tasks) f += t.work.tensor_flop * double(t.count);
    return f;
}

std::int64_t task_count(const synperf::work::kernel_launch& k) {
    std::int64_t n = 0;
    for (const auto& t : k.tasks) n += t.count;
    return n;
}

/// `g` with memory so fast that the tensor pipe bounds every GEMM below (for exact wave arithmetic).
gpu_numbers compute_bound(int sms, int cc_major) {
    gpu_numbers g = synperf::test::synthetic(sms);
    g.cc_major = cc_major;
    g.cc_minor = 0;
    if (cc_major < 9) g.tensor_fp8_flop_per_clk = 0;  // sm_80: no FP8 tensor cores
    g.boost_clock_mhz = 2 * g.tensor_clock_mhz;  // keeps the one-launch floor (boost cycles) below these bounds
    return g;
}

}  // namespace

TEST_CASE("gemm: validate() rejects bad shapes and names the dimension") {
    CHECK_NOTHROW(gemm::validate({1, 1, 1}));
    CHECK_NOTHROW(gemm::validate({8192, 8192, 8192}));
    CHECK_NOTHROW(gemm::validate({std::int64_t{1} << 31, 1, 1}));  // 2^31 itself is allowed

    SUBCASE("zero") {
        CHECK_THROWS_WITH_AS(gemm::validate({0, 4096, 4096}), doctest::Contains("m must be > 0, got 0"),
                             synperf::invalid_argument);
        CHECK_THROWS_WITH_AS(gemm::validate({4096, 0, 4096}), doctest::Contains("n must be > 0, got 0"),
                             synperf::invalid_argument);
        CHECK_THROWS_WITH_AS(gemm::validate({4096, 4096, 0}), doctest::Contains("k must be > 0, got 0"),
                             synperf::invalid_argument);
    }
    SUBCASE("negative") {
        CHECK_THROWS_WITH_AS(gemm::validate({-1, 4096, 4096}), doctest::Contains("m must be > 0, got -1"),
                             synperf::invalid_argument);
        CHECK_THROWS_WITH_AS(gemm::validate({4096, -7, 4096}), doctest::Contains("n must be > 0, got -7"),
                             synperf::invalid_argument);
        CHECK_THROWS_WITH_AS(gemm::validate({4096, 4096, -4096}), doctest::Contains("k must be > 0, got -4096"),
                             synperf::invalid_argument);
    }
    SUBCASE("a dtype that is no enumerator, negative or past the last") {
        CHECK_THROWS_WITH_AS(gemm::validate({1, 1, 1, static_cast<synperf::family::gemm_dtype>(-1)}),
                             doctest::Contains("gemm: unknown dtype -1"), synperf::invalid_argument);
        CHECK_THROWS_WITH_AS(gemm::validate({1, 1, 1, static_cast<synperf::family::gemm_dtype>(2)}),
                             doctest::Contains("gemm: unknown dtype 2"), synperf::invalid_argument);
    }
    SUBCASE("larger than 2^31") {
        const std::int64_t big = (std::int64_t{1} << 31) + 1;
        CHECK_THROWS_WITH_AS(gemm::validate({big, 1, 1}), doctest::Contains("m must be <= 2^31"), synperf::invalid_argument);
        CHECK_THROWS_WITH_AS(gemm::validate({1, big, 1}), doctest::Contains("n must be <= 2^31"), synperf::invalid_argument);
        CHECK_THROWS_WITH_AS(gemm::validate({1, 1, big}), doctest::Contains("k must be <= 2^31"), synperf::invalid_argument);
    }
    SUBCASE("an operand no GPU can hold") {
        // Each dim is fine on its own; X = m * k = 2^42 elements is not.
        CHECK_THROWS_WITH_AS(gemm::validate({std::int64_t{1} << 21, 1, std::int64_t{1} << 21}),
                             doctest::Contains("exceeds 2^40"), synperf::invalid_argument);
        CHECK_THROWS_WITH_AS(gemm::validate({1, std::int64_t{1} << 30, std::int64_t{1} << 30}),
                             doctest::Contains("exceeds 2^40"), synperf::invalid_argument);
    }
    SUBCASE("plan() and the predictor validate first") {
        const gpu_numbers g = synperf::test::sm90_like();
        CHECK_THROWS_WITH_AS(gemm::plan({4096, 0, 4096}, g), doctest::Contains("n must be > 0"), synperf::invalid_argument);
        CHECK_THROWS_WITH_AS((void)roofline_predictor(g, {}).predict({4096, 4096, -1}), doctest::Contains("k must be > 0"),
                             synperf::invalid_argument);
    }
    SUBCASE("messages carry the synperf prefix") {
        CHECK_THROWS_WITH_AS(gemm::validate({0, 1, 1}), doctest::Contains("synperf: gemm: "), synperf::invalid_argument);
    }
    SUBCASE("a GPU on which no tile fits says which limits were tried") {
        gpu_numbers g = synperf::test::sm90_like();
        g.regs_per_sm = 1024;  // not even one warp of any tile's kernel fits
        CHECK_THROWS_WITH_AS(gemm::plan({4096, 4096, 4096}, g),
                             doctest::Contains("no tile configuration fits one SM of this GPU (two pipeline stages in "
                                               "smem_per_cta_bytes = "),
                             synperf::invalid_argument);
        CHECK_THROWS_WITH_AS(gemm::plan({4096, 4096, 4096}, g), doctest::Contains("regs_per_sm = 1024)"),
                             synperf::invalid_argument);
        g = synperf::test::sm90_like();
        g.max_threads_per_cta = 32;  // every tile's CTA has more threads: skipped, not an occupancy error
        CHECK_THROWS_WITH_AS(gemm::plan({4096, 4096, 4096}, g), doctest::Contains("max_threads_per_cta = 32,"),
                             synperf::invalid_argument);
    }
}

TEST_CASE("gemm: device_bytes is X, W and Y in bf16") {
    CHECK(gemm::device_bytes(gemm_problem{4096, 4096, 4096}) == 3.0 * 4096 * 4096 * 2);
    CHECK(gemm::device_bytes(gemm_problem{16, 8192, 4096}) == (16.0 * 4096 + 8192.0 * 4096 + 16.0 * 8192) * 2);
    CHECK(gemm::device_bytes(gemm_problem{1'000'000, 100'000, 100'000}) == doctest::Approx(420e9));  // 420 GB: no GPU holds it
}

TEST_CASE("gemm: plan() covers the problem and respects the GPU's limits") {
    for (const named_gpu& ng : every_gpu()) {
        const gpu_numbers& g = ng.numbers;
        for (const gemm_problem& p : shapes()) {
            CAPTURE(ng.name);
            CAPTURE(p.m);
            CAPTURE(p.n);
            CAPTURE(p.k);
            const gemm_plan plan = gemm::plan(p, g);
            const gemm_config& c = plan.config;
            REQUIRE(!plan.kernels.empty());
            const synperf::work::kernel_launch& main = plan.kernels.front();

            // Tiles cover the problem, with less than one tile (or k-step) of padding.
            CHECK(c.tiles_m * c.bm >= p.m);
            CHECK((c.tiles_m - 1) * c.bm < p.m);
            CHECK(c.tiles_n * c.bn >= p.n);
            CHECK((c.tiles_n - 1) * c.bn < p.n);
            CHECK(c.k_iterations * c.bk * c.split_k >= p.k);
            CHECK((c.k_iterations - 1) * c.bk < ceil_div(p.k, c.split_k));
            CHECK(c.tiles == c.tiles_m * c.tiles_n * c.split_k);
            CHECK(task_count(main) == c.tiles);

            // Split-K only when the output tiles alone cannot fill the SMs; then a reduction kernel follows.
            CHECK(c.split_k >= 1);
            if (c.split_k > 1) {
                CHECK(c.tiles_m * c.tiles_n < g.sm_count);
                REQUIRE(plan.kernels.size() == 2);
                CHECK(plan.kernels[1].name == "splitk_reduce");
                CHECK(plan.kernels[1].dispatch == dispatch_kind::hardware);
                CHECK(task_count(plan.kernels[1]) >= 1);
            } else {
                CHECK(plan.kernels.size() == 1);
            }

            // Persistent warp-specialized kernels on sm_90/100/103, one CTA per tile elsewhere.
            const bool persistent_arch = g.cc_major == 9 || g.cc_major == 10;
            CHECK(gemm::main_dispatch(g) ==
                  (persistent_arch ? dispatch_kind::persistent_static : dispatch_kind::hardware));
            CHECK(main.dispatch == gemm::main_dispatch(g));
            CHECK(c.persistent == persistent_arch);
            const int resident = synperf::gpu::ctas_per_sm(g, main.launch);
            CHECK(resident >= 1);
            if (persistent_arch) {
                CHECK(c.slots_per_sm == 1);
                CHECK(resident == 1);
                CHECK(main.persistent_ctas == std::min<std::int64_t>(c.tiles, g.sm_count));
            } else {
                CHECK(c.slots_per_sm == resident);
                CHECK(main.persistent_ctas == 0);
            }

            // The launch fits the GPU.
            CHECK(c.stages >= 2);
            CHECK(main.launch.smem_per_cta == c.smem_bytes);
            CHECK(main.launch.smem_per_cta <= g.smem_per_cta_bytes);
            CHECK(main.launch.threads_per_cta == c.threads);
            CHECK(main.launch.threads_per_cta <= g.max_threads_per_cta);
            CHECK(main.launch.regs_per_thread <= g.max_regs_per_thread);
            CHECK(plan.footprint_bytes == doctest::Approx(2.0 * (double(p.m) * double(p.k) + double(p.n) * double(p.k) +
                                                                 double(p.m) * double(p.n))));
            CHECK(plan.refetch_bytes >= 0);
        }
    }
}

TEST_CASE("gemm: tensor work: the tiles do padded work, the lower bound charges exactly 2mnk") {
    for (const named_gpu& ng : every_gpu()) {
        for (const gemm_problem& p : shapes()) {
            CAPTURE(ng.name);
            CAPTURE(p.m);
            CAPTURE(p.n);
            CAPTURE(p.k);
            const gemm_plan plan = gemm::plan(p, ng.numbers);
            const gemm_config& c = plan.config;
            const synperf::work::kernel_launch& main = plan.kernels.front();
            const double flop = tensor_flop(main);
            const double useful = 2.0 * double(p.m) * double(p.n) * double(p.k);
            const double padded = 2.0 * c.bm * c.bn * double(c.k_iterations * c.bk) * double(c.tiles);
            CHECK(flop == doctest::Approx(padded).epsilon(1e-12));
            CHECK(flop >= useful);
            // Padding is less than one tile per dimension: flop < 2 (m + bm)(n + bn)(k + split_k bk).
            CHECK(flop < 2.0 * double(p.m + c.bm) * double(p.n + c.bn) * double(p.k + c.split_k * c.bk));
            // The reduction kernel does no tensor work.
            for (std::size_t i = 1; i < plan.kernels.size(); ++i) CHECK(tensor_flop(plan.kernels[i]) == 0);

            // The compulsory work (what any tiling must do) is the useful flop and the footprint's bytes.
            REQUIRE(main.compulsory.has_value());
            CHECK(main.compulsory->tensor_flop == doctest::Approx(useful).epsilon(1e-12));
            CHECK(main.compulsory->dram_bytes + main.compulsory->l2_bytes == doctest::Approx(plan.footprint_bytes));
            CHECK(main.compulsory->dram_bytes == doctest::Approx(std::max(0.0, plan.footprint_bytes - ng.numbers.l2_bytes)));
        }
    }
}

namespace {

/// The main kernel's analysis on `g`, scheduled as the predictor schedules it.
synperf::features::kernel_features analyze_main(const gemm_problem& p, const gpu_numbers& g) {
    const gemm_plan plan = gemm::plan(p, g);
    const synperf::work::kernel_launch& k = plan.kernels.front();
    return synperf::features::analyze(k, synperf::scheduler::schedule_launch(k, g), g);
}

/// Tensor cycles of the busiest SM: where wave quantization and imbalance show.
double busiest_sm_tensor_cycles(const gemm_problem& p, const gpu_numbers& g) {
    return analyze_main(p, g).sm_max.tensor;
}

}  // namespace

TEST_CASE("gemm traffic: hand-worked splits between DRAM and L2") {
    using synperf::family::compulsory_gemm_traffic;
    gpu_numbers g = synperf::hw::h100_sxm::numbers;
    g.l2_bytes = 8.0 * (1 << 20);  // 8 MiB, so that the cases below straddle it

    // bf16 4096 x 4096 x 4096: X, W and Y are 32 MiB each, all above half of L2.
    const auto big = compulsory_gemm_traffic(4096, 4096, 4096, 2, 2, g);
    CHECK(big.weights == 32.0 * (1 << 20));
    CHECK(big.footprint == 96.0 * (1 << 20));
    CHECK(big.expected_dram == 96.0 * (1 << 20));  // nothing stays in L2
    CHECK(big.bound_dram == 88.0 * (1 << 20));     // all but one L2's worth
    CHECK(big.bound_l2 == 8.0 * (1 << 20));

    // Decode-like FP8 GEMM: 16 x 4096 x 4096, 1-byte inputs, bf16 output. X (64 KiB) and Y (128 KiB) fit in
    // half of L2 and are not expected from DRAM; the 16 MiB of weights are read cold.
    const auto skinny = compulsory_gemm_traffic(16, 4096, 4096, 1, 2, g);
    CHECK(skinny.weights == 16.0 * (1 << 20));
    CHECK(skinny.footprint == 16.0 * (1 << 20) + 65536.0 + 131072.0);
    CHECK(skinny.expected_dram == 16.0 * (1 << 20));
    CHECK(skinny.bound_dram == skinny.footprint - g.l2_bytes);

    // Everything fits in L2: the bound charges no DRAM at all.
    const auto tiny = compulsory_gemm_traffic(64, 512, 512, 2, 2, g);
    CHECK(tiny.bound_dram == 0.0);
    CHECK(tiny.bound_l2 == tiny.footprint);
    CHECK(tiny.expected_dram == tiny.weights);
}

TEST_CASE("gemm: wave quantization: one tile more than the SMs costs one more tile on the busiest SM") {
    // The theoretical time is a lower bound for any tiling, so it grows only with the useful work; the
    // quantization shows in the busiest SM's cycles and the wave features the cost model reads.
    SUBCASE("compute-bound hand-made GPUs: exact") {
        // m = 64 and k = 192 pin the answer: k is too short to split (k / 2 < 4 * bk for every candidate
        // tile), and without splits no tile shape does S + 1 tiles' work in less than two tile times on S SMs.
        for (const int cc : {8, 9, 10, 12}) {
            for (const int sms : {4, 7, 108, 132}) {
                CAPTURE(cc);
                CAPTURE(sms);
                const gpu_numbers g = compute_bound(sms, cc);
                const gemm_problem full{64, 64 * std::int64_t{sms}, 192};
                const gemm_problem one_more{64, 64 * (std::int64_t{sms} + 1), 192};
                const gemm_plan plan = gemm::plan(full, g);
                REQUIRE(plan.config.split_k == 1);
                REQUIRE(plan.config.tiles == sms);
                REQUIRE(gemm::plan(one_more, g).config.split_k == 1);
                // One tile's time: its tensor flop at one SM's tensor rate.
                const double tile_cycles = plan.kernels[0].tasks[0].work.tensor_flop / g.tensor_bf16_flop_per_clk;
                const roofline_predictor pred(g, {});
                const synperf::prediction r_full = pred.predict(full);
                const synperf::prediction r_more = pred.predict(one_more);
                CHECK(busiest_sm_tensor_cycles(full, g) == doctest::Approx(tile_cycles));
                CHECK(busiest_sm_tensor_cycles(one_more, g) == doctest::Approx(2 * tile_cycles));
                CHECK(r_full.kernels[0].imbalance == doctest::Approx(1.0));
                CHECK(r_more.kernels[0].imbalance > 1.25);  // the busiest SM carries more than the mean (2x for large S)
                CHECK(r_full.kernels[0].waves == 1);
                CHECK(r_full.bottleneck == "tensor");
                // Exactly one tile of work per SM: the bound is that tile's time; one more tile's work adds 1/S.
                CHECK(r_full.theoretical_us == doctest::Approx(synperf::features::cycles_to_us(tile_cycles, g)));
                CHECK(r_more.theoretical_us / r_full.theoretical_us == doctest::Approx(double(sms + 1) / sms));
                CHECK(r_more.latency_us == r_more.theoretical_us);  // roofline_cost: efficiency 1
            }
        }
    }
    SUBCASE("h100_sxm, 128x256 tiles: 132 tiles vs 133 tiles") {
        const gpu_numbers& g = synperf::hw::h100_sxm::numbers;
        REQUIRE(g.sm_count == 132);
        const gemm_problem full{12 * 128, 11 * 256, 8192};     // 12 x 11 = 132 tiles of 128x256
        const gemm_problem one_more{7 * 128, 19 * 256, 8192};  // 7 x 19 = 133 tiles, 0.8 % more work
        const gemm_plan plan = gemm::plan(full, g);
        REQUIRE(plan.config.tiles == 132);
        const double tile_cycles = plan.kernels[0].tasks[0].work.tensor_flop / g.tensor_bf16_flop_per_clk;
        const roofline_predictor pred(g, {});
        const synperf::prediction r_full = pred.predict(full);
        const synperf::prediction r_more = pred.predict(one_more);
        const double busiest_full = busiest_sm_tensor_cycles(full, g);
        const double busiest_more = busiest_sm_tensor_cycles(one_more, g);
        const double jump = busiest_more - busiest_full;
        MESSAGE("h100_sxm: busiest SM 132 tiles " << busiest_full << " cycles, 133 tiles " << busiest_more
                                                  << " cycles; one tile " << tile_cycles << " cycles");
        CHECK(busiest_full == doctest::Approx(tile_cycles));
        // 0.8 % more work costs far more than 0.8 % on the busiest SM: at least half a tile (a smaller tile
        // could halve the tail), at most one tile.
        CHECK(jump >= 0.5 * tile_cycles);
        CHECK(jump <= 1.01 * tile_cycles);
        // The lower bound follows the useful work only.
        const double work_ratio = double(one_more.m) * double(one_more.n) / (double(full.m) * double(full.n));
        CHECK(r_more.theoretical_us / r_full.theoretical_us == doctest::Approx(work_ratio).epsilon(1e-9));
    }
}

namespace {

/// Sizes 1, 2, 4, ..., 64, then steps of 1 / step_divisor up to 32768 (from `from` on).
std::vector<std::int64_t> sweep_sizes(std::int64_t from, std::int64_t step_divisor) {
    std::vector<std::int64_t> v;
    for (std::int64_t x = from; x <= 32768; x = x < 64 ? 2 * x : x + std::max<std::int64_t>(1, x / step_divisor))
        v.push_back(x);
    return v;
}

gemm_problem along(int axis, std::int64_t v, std::int64_t a, std::int64_t b) {
    if (axis == 0) return {v, a, b};
    if (axis == 1) return {a, v, b};
    return {a, b, v};
}

bool same_config(const gemm_config& x, const gemm_config& y) {
    return x.bm == y.bm && x.bn == y.bn && x.bk == y.bk && x.stages == y.stages && x.split_k == y.split_k;
}

const char* const axis_name[] = {"m", "n", "k"};

/// Calls f(problem, previous problem) along every axis of a sweep: the other two dims from `others`.
template <class F>
void sweep(const std::vector<std::int64_t>& sizes, std::initializer_list<std::int64_t> others, F&& f) {
    for (int axis = 0; axis < 3; ++axis)
        for (const std::int64_t a : others)
            for (const std::int64_t b : others) {
                for (std::size_t i = 1; i < sizes.size(); ++i) {
                    CAPTURE(axis_name[axis]);
                    f(along(axis, sizes[i], a, b), along(axis, sizes[i - 1], a, b));
                }
            }
}

}  // namespace

TEST_CASE("gemm: theoretical time is non-decreasing in m, n and k") {
    SUBCASE("the main kernel's bound, every catalogue GPU, from 1 to 32768") {
        const std::vector<std::int64_t> sizes = sweep_sizes(1, 4);
        for (const auto& gpu : synperf::gpu::all_gpus()) {
            const roofline_predictor pred(gpu.numbers, {});
            CAPTURE(gpu.name);
            sweep(sizes, {1, 16, 128, 1000, 4096, 14336}, [&](const gemm_problem& p, const gemm_problem& before) {
                CAPTURE(p.m);
                CAPTURE(p.n);
                CAPTURE(p.k);
                CHECK(pred.predict(p).kernels.front().theoretical_us >=
                      pred.predict(before).kernels.front().theoretical_us * (1 - 1e-12));
            });
        }
    }
    SUBCASE("the whole op, multi-wave shapes (every dim >= 3072)") {
        const std::vector<std::int64_t> sizes = sweep_sizes(3072, 8);
        for (const char* name : {"h100_sxm", "a100_sxm", "l40s", "b200_sxm", "rtx_pro_6000_server"}) {
            const roofline_predictor pred(synperf::gpu::find_gpu(name).numbers, {});
            CAPTURE(name);
            sweep(sizes, {3072, 4096, 16384}, [&](const gemm_problem& p, const gemm_problem& before) {
                CAPTURE(p.m);
                CAPTURE(p.n);
                CAPTURE(p.k);
                CHECK(pred.predict(p).theoretical_us >= pred.predict(before).theoretical_us * (1 - 1e-12));
            });
        }
    }
    SUBCASE("while the plan keeps its tile, stages and split-K, the busiest SM's tensor cycles") {
        // Padding and wave quantization only ever add; a drop can only come from a different plan.
        const std::vector<std::int64_t> sizes = sweep_sizes(1, 4);
        int compared = 0;
        for (const char* name : {"h100_sxm", "a100_sxm", "l40s", "b200_sxm", "rtx_pro_6000_server"}) {
            const gpu_numbers g = synperf::gpu::find_gpu(name).numbers;
            CAPTURE(name);
            sweep(sizes, {1, 16, 128, 1000, 4096, 14336}, [&](const gemm_problem& p, const gemm_problem& before) {
                if (!same_config(gemm::plan(p, g).config, gemm::plan(before, g).config)) return;
                CAPTURE(p.m);
                CAPTURE(p.n);
                CAPTURE(p.k);
                CHECK(busiest_sm_tensor_cycles(p, g) >= busiest_sm_tensor_cycles(before, g) * (1 - 1e-12));
                ++compared;
            });
        }
        CHECK(compared > 1000);
    }
}

// The whole op's theoretical time never decreases along any sweep: a split-K reduction is the decomposer's
// choice, so it adds nothing compulsory to the op's bound.
TEST_CASE("gemm: the whole op's theoretical time is non-decreasing from 1 to 32768") {
    const std::vector<std::int64_t> sizes = sweep_sizes(1, 4);
    for (const char* name : {"h100_sxm", "a100_sxm", "b200_sxm"}) {
        const roofline_predictor pred(synperf::gpu::find_gpu(name).numbers, {});
        int drops = 0, steps = 0;
        double worst = 0;
        sweep(sizes, {1, 16, 128, 1000, 4096, 14336}, [&](const gemm_problem& p, const gemm_problem& before) {
            const double t = pred.predict(p).theoretical_us, t0 = pred.predict(before).theoretical_us;
            ++steps;
            if (t < t0 * (1 - 1e-12)) {
                ++drops;
                worst = std::max(worst, 1 - t / t0);
            }
        });
        MESSAGE(std::string(name) << ": the op's theoretical time drops at " << drops << " of " << steps << " sweep steps, worst by "
                     << 100 * worst << " %");
        CHECK(drops == 0);
    }
}

TEST_CASE("gemm: theoretical time is a lower bound in known cases") {
    for (const named_gpu& ng : every_gpu()) {
        const gpu_numbers& g = ng.numbers;
        CAPTURE(ng.name);
        const roofline_predictor pred(g, {});
        {
            // Compute-bound 8192^3: at least 2mnk at the dense bf16 peak, and not wildly above it.
            const synperf::prediction r = pred.predict({8192, 8192, 8192});
            const double peak_flop_per_us = g.tensor_bf16_flop_per_clk * g.sm_count * g.tensor_clock_mhz;
            const double bound = 2.0 * 8192.0 * 8192.0 * 8192.0 / peak_flop_per_us;
            CHECK(r.theoretical_us >= bound * (1 - 1e-12));
            CHECK(r.theoretical_us <= 1.5 * bound);
            CHECK(r.bottleneck == "tensor");
        }
        {
            // Memory-bound 1 x 8192 x 8192: at least the bytes L2 cannot hold (the 128 MiB of weights fill the
            // largest L2) come from DRAM, and the rest at least pass through L2.
            const gemm_problem p{1, 8192, 8192};
            const synperf::prediction r = pred.predict(p);
            const double footprint = 2.0 * (8192.0 * 8192.0 + 8192.0 + 8192.0);
            const double weight_bytes = 2.0 * 8192.0 * 8192.0;
            REQUIRE(weight_bytes >= g.l2_bytes);
            CHECK(r.theoretical_us >= (footprint - g.l2_bytes) / (g.dram_gbps * 1e3) * (1 - 1e-12));  // GB/s = 1e3 B/us
            CHECK(r.theoretical_us >= g.l2_bytes / (g.l2_gbps * 1e3) * (1 - 1e-12));
            // Reading the weights cold from DRAM (the serving case) costs at least the bound; the plan reports
            // the weight bytes so the cost model can see that case.
            CHECK(gemm::plan(p, g).weight_bytes == weight_bytes);
            CHECK(r.theoretical_us <= weight_bytes / (g.dram_gbps * 1e3) * (1 + 1e-12));
        }
    }
    CHECK(roofline_predictor(synperf::hw::h100_sxm::numbers, {}).predict({1, 8192, 8192}).bottleneck == "dram");
    CHECK(roofline_predictor(synperf::hw::a100_sxm::numbers, {}).predict({1, 8192, 8192}).bottleneck == "dram");
}

TEST_CASE("gemm: theoretical time is below the measured time on h100_sxm (measured data)") {
    // The data directory as the CLI finds it without --data: $SYNPERF_DATA, else ../shared/data beside the project.
    const char* env = std::getenv("SYNPERF_DATA");
    const std::filesystem::path dir = env != nullptr && *env != '\0' ? std::filesystem::path(env)
                                                                   : std::filesystem::path(SYNPERF_SOURCE_DIR) / ".." / "shared" / "data";
    const std::filesystem::path file = dir / "aiconfigurator" / "h100_sxm" / "gemm_perf.csv";
    std::error_code ec;
    if (!std::filesystem::is_regular_file(file, ec)) {
        MESSAGE("gemm measured-data check skipped: no data directory (set SYNPERF_DATA or place the data at "
                << (std::filesystem::path(SYNPERF_SOURCE_DIR) / ".." / "shared" / "data").string() << ")");
        return;
    }
    std::vector<synperf::data::measured_gemm> rows;
    synperf::data::read_gemm_file(file, "h100_sxm", rows);
    REQUIRE(rows.size() > 1000);
    const roofline_predictor pred(synperf::hw::h100_sxm::numbers, {});
    std::size_t above = 0;
    double worst = 0;
    for (const auto& r : rows) {
        const double ratio = pred.predict(r.problem).theoretical_us / r.latency_us;
        if (ratio > 1) ++above;
        worst = std::max(worst, ratio);
    }
    const double fraction = double(above) / double(rows.size());
    MESSAGE("h100_sxm: theoretical / measured > 1 on " << above << " of " << rows.size() << " rows ("
                                                        << 100 * fraction << " %), largest ratio " << worst);
    CHECK(fraction < 0.01);
}
