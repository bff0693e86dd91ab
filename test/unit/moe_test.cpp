// SPDX-License-Identifier: Apache-2.0
// The fused-MoE family: the collector's balanced routing, moe_align_block_size padding, the Triton grid with
// its empty CTAs, GROUP_SIZE_M order, bytes and flop, bad input, and the shipped model's monotonicity.
#include "synperf/family/moe.hpp"

#include <doctest/doctest.h>

#include <cstdint>
#include <limits>
#include <optional>
#include <utility>
#include <vector>

#include "synperf/error.hpp"
#include "synperf/e2e/moe_latency.hpp"
#include "synperf/gpu/registry.hpp"
#include "synperf/predictor/predictor.hpp"
#include "synperf/work/task.hpp"

namespace {

using synperf::family::moe;
using synperf::family::moe_dtype;
using synperf::family::moe_kernel_config;
using synperf::family::moe_problem;

moe_problem problem(std::int64_t tokens, std::int64_t hidden, std::int64_t inter, std::int64_t experts, std::int64_t topk,
                    std::int64_t tp = 1, std::int64_t ep = 1, std::optional<moe_kernel_config> c = std::nullopt) {
    return {tokens, hidden, inter, experts, topk, tp, ep, moe_dtype::bf16, c};
}

}  // namespace

TEST_CASE("moe: balanced routing is the collector's (t + i * ceil(E / topk)) mod E") {
    // T = 16, E = 8, topk = 2: stride 4, token t -> {t mod 8, (t + 4) mod 8}: 4 assignments per expert.
    const auto r = synperf::family::balanced_routing(16, 8, 2, 1);
    CHECK(r.tokens == 16);
    CHECK(r.local_experts == 8);
    CHECK(r.counts == std::vector<std::int64_t>(8, 4));
    CHECK(r.assignments() == 32);
    // T < stride: token 0 of 1 -> floor(0 * 4 / 1 + 4 i) mod 8 = {0, 4}.
    const auto one = synperf::family::balanced_routing(1, 8, 2, 1);
    CHECK(one.counts == std::vector<std::int64_t>{1, 0, 0, 0, 1, 0, 0, 0});
    CHECK(one.active_experts() == 2);
}

TEST_CASE("moe: under expert parallelism rank 0 keeps its tokens and drops or clamps remote slots") {
    using synperf::family::moe_remote_slots;
    // T = 8, E = 8, topk = 2, ep = 2: every token has exactly one of the experts 0..3; each local expert gets
    // 2 slots, and the 8 remote slots of the 8 kept tokens go to the -1 bucket, or to expert 0 when clamped.
    const auto dropped = synperf::family::balanced_routing(8, 8, 2, 2, moe_remote_slots::dropped);
    CHECK(dropped.tokens == 8);
    CHECK(dropped.counts == std::vector<std::int64_t>{2, 2, 2, 2});
    CHECK(dropped.dropped == 8);
    const auto clamped = synperf::family::balanced_routing(8, 8, 2, 2, moe_remote_slots::clamped_to_expert0);
    CHECK(clamped.tokens == 8);
    CHECK(clamped.counts == std::vector<std::int64_t>{10, 2, 2, 2});
    CHECK(clamped.dropped == 0);
    CHECK(clamped.assignments() == 16);
    // ep = 4 (experts 0, 1): tokens with t mod 8 in {0, 1, 4, 5} are kept.
    const auto half = synperf::family::balanced_routing(16, 8, 2, 4, moe_remote_slots::dropped);
    CHECK(half.tokens == 8);
    CHECK(half.counts == std::vector<std::int64_t>{4, 4});
    CHECK(half.dropped == 8);
}

TEST_CASE("moe: the -1 bucket's m-blocks write zeros between the used and the empty CTAs") {
    const auto g = synperf::gpu::find_gpu("h100_sxm").numbers;
    moe_problem p = problem(16, 64, 64, 8, 2, 1, 4, moe_kernel_config{16, 32, 64, 1, 4, 3});
    const auto plan = moe::plan(p, g);
    // 2 local experts x 4 slots (1 block each) + 8 dropped slots (1 block): post padded 48; buffer 16 + 3 * 15 = 61.
    CHECK(plan.alignment.active_blocks == 2);
    CHECK(plan.alignment.dropped_blocks == 1);
    CHECK(plan.alignment.post_padded == 48);
    CHECK(plan.alignment.buffer == 61);
    CHECK(plan.w13.grid_m == 4);
    CHECK(plan.w13.active_ctas == 8);
    CHECK(plan.w13.zero_ctas == 4);
    CHECK(plan.w13.empty_ctas == 4);
}

TEST_CASE("moe: moe_align_block_size pads each expert to BM and the grid counts the empty CTAs") {
    const auto g = synperf::gpu::find_gpu("h100_sxm").numbers;
    // 8 experts x 4 assignments, BM = 16: post padded 8 * 16 = 128; buffer 32 + (8 + 1) * 15 = 167.
    const moe_problem p = problem(16, 64, 64, 8, 2, 1, 1, moe_kernel_config{16, 32, 64, 1, 4, 3});
    const auto plan = moe::plan(p, g);
    CHECK(plan.alignment.post_padded == 128);
    CHECK(plan.alignment.buffer == 167);
    CHECK(plan.alignment.active_blocks == 8);
    // w13: N = 2 I = 128, BN = 32 -> 4 n-blocks; EM = 167 -> 11 m-blocks; 44 CTAs, 12 of them empty.
    CHECK(plan.w13.grid_m == 11);
    CHECK(plan.w13.grid_n == 4);
    CHECK(plan.w13.grid == 44);
    CHECK(plan.w13.active_ctas == 32);
    CHECK(plan.w13.empty_ctas == 12);
    // w2: N = H = 64 -> 2 n-blocks, same m-blocks.
    CHECK(plan.w2.grid == 22);
    CHECK(plan.w2.empty_ctas == 6);
    // The scheduled grid is the launched grid.
    std::int64_t tasks = 0;
    for (const auto& t : plan.kernels.front().tasks) tasks += t.count;
    CHECK(tasks == 44);
    // Flop and bytes: 32 assignments x N x K useful; MMA on whole 16-row tiles; weights of the 8 active experts.
    CHECK(plan.w13.useful_flop == doctest::Approx(2.0 * 32 * 128 * 64));
    CHECK(plan.w13.padded_flop == doctest::Approx(2.0 * 32 * 16 * 32 * 64));
    CHECK(plan.w13.weight_bytes == doctest::Approx(8.0 * 128 * 64 * 2));
    CHECK(plan.w2.weight_bytes == doctest::Approx(8.0 * 64 * 64 * 2));
}

TEST_CASE("moe: Triton's dot is mma.sync below BLOCK_SIZE_M 64, on sm_90 with FP8 operands in f16") {
    using synperf::gpu::mma_issue;
    using synperf::gpu::tensor_dtype;
    const auto h100 = synperf::gpu::find_gpu("h100_sxm").numbers;
    const auto l40s = synperf::gpu::find_gpu("l40s").numbers;
    const auto kind = [](const moe_problem& p, const synperf::gpu::gpu_numbers& g) {
        const auto plan = moe::plan(p, g);
        const auto& w13 = plan.kernels.front();
        REQUIRE(w13.compulsory.has_value());
        for (const auto& t : w13.tasks)
            if (t.work.tensor_flop > 0) {
                CHECK(t.work.tensor_issue == w13.compulsory->tensor_issue);
                CHECK(t.work.tensor_type == w13.compulsory->tensor_type);
            }
        return std::pair{w13.compulsory->tensor_issue, w13.compulsory->tensor_type};
    };
    moe_problem small = problem(64, 4096, 14336, 8, 2, 1, 1, moe_kernel_config{16, 64, 64, 1, 4, 3});
    moe_problem large = problem(64, 4096, 14336, 8, 2, 1, 1, moe_kernel_config{64, 64, 64, 1, 4, 3});
    CHECK(kind(small, h100) == std::pair{mma_issue::warp_sync, tensor_dtype::bf16});
    CHECK(kind(large, h100) == std::pair{mma_issue::native, tensor_dtype::bf16});
    small.dtype = large.dtype = moe_dtype::fp8;
    CHECK(kind(small, h100) == std::pair{mma_issue::warp_sync, tensor_dtype::bf16});  // e4m3 converted to f16
    CHECK(kind(large, h100) == std::pair{mma_issue::native, tensor_dtype::fp8});
    CHECK(kind(small, l40s) == std::pair{mma_issue::warp_sync, tensor_dtype::fp8});   // sm_89: FP8 mma.sync is dense
    // On H100 the small tile's tensor work runs at 2730 flop/clk/SM, against 8192 for FP8 wgmma.
    const auto plan = moe::plan(small, h100);
    const auto& w13 = plan.kernels.front();
    CHECK(synperf::work::sm_cycles(*w13.compulsory, h100).tensor ==
          doctest::Approx(w13.compulsory->tensor_flop / (8192.0 / 3.0)));
}

TEST_CASE("moe: when A has fewer rows than BM the grid shrinks to rows * topk * BM") {
    const auto g = synperf::gpu::find_gpu("h100_sxm").numbers;
    // One token, top-2 of 8: numel 2 < E + 1, buffer 2 * 16 = 32, EM = min(32, 1 * 2 * 16) -> 2 m-blocks, both used.
    const auto plan = moe::plan(problem(1, 64, 64, 8, 2, 1, 1, moe_kernel_config{16, 32, 64, 1, 4, 3}), g);
    CHECK(plan.alignment.buffer == 32);
    CHECK(plan.w13.grid_m == 2);
    CHECK(plan.w13.empty_ctas == 0);
    CHECK(plan.alignment.post_padded == 32);
}

TEST_CASE("moe: GROUP_SIZE_M puts the highest m-blocks (the empty ones) in the last group") {
    using synperf::family::moe_detail::tile_of;
    // 4 m-blocks, 2 n-blocks, groups of 2: pids 0..3 cover m 0-1, pids 4..7 cover m 2-3.
    CHECK(tile_of(0, 4, 2, 2).m == 0);
    CHECK(tile_of(1, 4, 2, 2).m == 1);
    CHECK(tile_of(2, 4, 2, 2).m == 0);
    CHECK(tile_of(2, 4, 2, 2).n == 1);
    for (std::int64_t pid = 4; pid < 8; ++pid) CHECK(tile_of(pid, 4, 2, 2).m >= 2);
    // Last group smaller than G (5 m-blocks, G = 2): pid 8, 9 are m-block 4 with n 0, 1.
    CHECK(tile_of(8, 5, 2, 2).m == 4);
    CHECK(tile_of(9, 5, 2, 2).n == 1);
}

TEST_CASE("moe: SGLang's default config rule") {
    using synperf::family::moe_detail::default_config;
    CHECK(default_config(8, 8, moe_dtype::bf16, false).bm == 16);
    CHECK(default_config(9, 8, moe_dtype::bf16, false).bm == 64);
    CHECK(default_config(9, 8, moe_dtype::bf16, false).group_m == 8);
    CHECK(default_config(1, 8, moe_dtype::fp8, true).bn == 128);
    CHECK(default_config(100, 8, moe_dtype::fp8, false).bn == 256);
    CHECK(default_config(100, 8, moe_dtype::fp8, false).warps == 8);
}

TEST_CASE("moe: SGLang's tuned config file, nearest token count, wins over the default rule") {
    using synperf::family::nearest_entry;
    using synperf::family::sglang_tuned_config;
    using synperf::family::sglang_tuned_file;
    // A file's entries: the nearest key wins; on a tie the smaller (Python's min over the keys in file order).
    constexpr sglang_tuned_file f{"h100_sxm", 8, 64, moe_dtype::bf16, false, "triton_3_5_1", "1:16,32,64,1,4,3;16:32,64,64,8,4,4;64:64,64,64,8,4,5"};
    CHECK(nearest_entry(f, 1).bm == 16);
    CHECK(nearest_entry(f, 8).bm == 16);   // 7 from 1, 8 from 16: 1 is nearer
    CHECK(nearest_entry(f, 40).bm == 32);  // 24 from both 16 and 64: the smaller key
    CHECK(nearest_entry(f, 41).bm == 64);
    const auto far = nearest_entry(f, 100000);
    CHECK(far.bm == 64);
    CHECK(far.stages == 5);
    // SGLang's H100 file E=128, N=768 (Qwen3-30B-A3B at tp 1, triton_3_2_0): its 256-token entry is 32x256x128, G1, 4 warps, 2 stages.
    const auto c = sglang_tuned_config("h100_sxm", 128, 768, moe_dtype::bf16, false, 256);
    REQUIRE(c.has_value());
    CHECK(c->bm == 32);
    CHECK(c->bn == 256);
    CHECK(c->bk == 128);
    CHECK(c->group_m == 1);
    CHECK(c->stages == 2);
    CHECK_FALSE(sglang_tuned_config("rtx_pro_6000_server", 128, 768, moe_dtype::bf16, false, 256).has_value());
    CHECK_FALSE(sglang_tuned_config("h100_sxm", 128, 768, moe_dtype::fp8, true, 256).has_value());

    // The block takes the file when the problem names its GPU (E and N of the rank), else the default rule.
    const auto g = synperf::gpu::find_gpu("h100_sxm").numbers;
    moe_problem p = problem(256, 2048, 768, 128, 8);
    CHECK(moe::plan(p, g).w13.config.bm == 64);  // default rule: M > E -> 64x64x32
    CHECK(moe::plan(p, g).tuned_file == nullptr);
    p.tuned_configs_gpu = "h100_sxm";
    const auto tuned = moe::plan(p, g);
    REQUIRE(tuned.tuned_file != nullptr);
    CHECK(tuned.tuned_file->folder == "triton_3_2_0");
    CHECK(tuned.w13.config.bm == 32);
    CHECK(tuned.w2.config.bn == 256);
    // tp 3 cuts N to 256: H100 has no bf16 file for E 128, N 256.
    moe_problem split = problem(256, 2048, 768, 128, 8, 3);
    split.tuned_configs_gpu = "h100_sxm";
    CHECK(moe::plan(split, g).tuned_file == nullptr);
    // An explicit config always wins.
    moe_problem given = problem(256, 2048, 768, 128, 8, 1, 1, moe_kernel_config{16, 32, 64, 1, 4, 3});
    given.tuned_configs_gpu = "h100_sxm";
    CHECK(moe::plan(given, g).w13.config.bm == 16);
    // A CUDA device string or alias names the same GPU's files; a name that is no catalogue GPU is an error, not the
    // default rule in silence.
    p.tuned_configs_gpu = "NVIDIA H100 80GB HBM3";
    REQUIRE(moe::plan(p, g).tuned_file != nullptr);
    CHECK(moe::plan(p, g).tuned_file->gpu == "h100_sxm");
    p.tuned_configs_gpu = "h100sxm";
    CHECK_THROWS_WITH_AS((void)moe::plan(p, g), doctest::Contains("tuned_configs_gpu 'h100sxm' is not a catalogue GPU"),
                         synperf::invalid_argument);
}

TEST_CASE("moe: device_bytes counts one rank's experts, the tokens and the routed intermediates") {
    // Mixtral-8x7B's block at tp 2, 16 tokens, top-2: 8 experts x 3 x 4096 x 7168 bf16 weights, tokens in and out
    // (2 x 16 x 4096 x 2 B), routed rows 32 x (3 x 7168 + 4096) x 2 B.
    const moe_problem p = problem(16, 4096, 14336, 8, 2, 2);
    CHECK(moe::device_bytes(p) == 8.0 * 3 * 4096 * 7168 * 2 + 2.0 * 16 * 4096 * 2 + 32.0 * (3 * 7168 + 4096) * 2);
}

TEST_CASE("moe: invalid inputs are clear errors") {
    const auto g = synperf::gpu::find_gpu("h100_sxm").numbers;
    using synperf::invalid_argument;
    CHECK_THROWS_AS((void)moe::plan(problem(0, 4096, 14336, 8, 2), g), invalid_argument);
    CHECK_THROWS_AS((void)moe::plan(problem(16, -1, 14336, 8, 2), g), invalid_argument);
    CHECK_THROWS_AS((void)moe::plan(problem(16, 4096, 0, 8, 2), g), invalid_argument);
    CHECK_THROWS_WITH_AS((void)moe::plan(problem(16, 4096, 14336, 8, 9), g), doctest::Contains("topk"), invalid_argument);
    CHECK_THROWS_WITH_AS((void)moe::plan(problem(16, 4096, 14336, 8, 2, 1, 3), g), doctest::Contains("divisible by ep"), invalid_argument);
    CHECK_THROWS_WITH_AS((void)moe::plan(problem(16, 4096, 14336, 8, 2, 3), g), doctest::Contains("divisible by tp"), invalid_argument);
    CHECK_THROWS_WITH_AS((void)moe::plan(problem(16, 4096, 14336, 8, 2, 1, 1, moe_kernel_config{24, 64, 32, 8, 4, 3}), g),
                         doctest::Contains("BLOCK_SIZE"), invalid_argument);
    CHECK_THROWS_WITH_AS((void)moe::plan(problem(16, 4096, 14336, 8, 2, 1, 1, moe_kernel_config{64, 64, 32, 8, 3, 3}), g),
                         doctest::Contains("num_warps"), invalid_argument);
    CHECK_THROWS_WITH_AS((void)moe::plan(problem(16, 4096, 14336, 8, 2, 1, 1, moe_kernel_config{256, 256, 256, 8, 8, 8}), g),
                         doctest::Contains("shared memory"), invalid_argument);
    // fp8 needs FP8 tensor cores: A100 has none.
    moe_problem f = problem(16, 4096, 14336, 8, 2);
    f.dtype = moe_dtype::fp8;
    CHECK_THROWS_WITH_AS((void)moe::plan(f, synperf::gpu::find_gpu("a100_sxm").numbers), doctest::Contains("FP8"), invalid_argument);
}

TEST_CASE("moe: with the shipped model more tokens are never faster beyond noise") {
    for (const char* name : {"h100_sxm", "a100_sxm", "b200_sxm", "l40s"}) {
        const auto g = synperf::gpu::find_gpu(name).numbers;
        for (const auto& s : {problem(1, 4096, 14336, 8, 2), problem(1, 7168, 2048, 256, 8, 8), problem(1, 2048, 768, 128, 8, 1, 4)}) {
            double previous = 0;
            for (std::int64_t t = 1; t <= 16384; t *= 2) {
                moe_problem p = s;
                p.tokens = t;
                const double us = synperf::e2e::predict_moe(p, g).latency_us;
                CAPTURE(name);
                CAPTURE(t);
                CHECK(us > 0);
                CHECK(us >= 0.9 * previous);
                previous = us;
            }
        }
    }
}

TEST_CASE("moe: a hand-filled GPU spec is validated before the one-call prediction uses it") {
    auto g = synperf::gpu::find_gpu("h100_sxm").numbers;
    g.dram_gbps = std::numeric_limits<double>::quiet_NaN();
    CHECK_THROWS_WITH_AS((void)synperf::e2e::predict_moe(problem(16, 4096, 14336, 8, 2), g), doctest::Contains("dram_gbps"),
                         synperf::invalid_argument);
    g.dram_gbps = 0;
    CHECK_THROWS_WITH_AS((void)synperf::e2e::moe_latency_us(g, 16, 4096, 14336, 8, 2), doctest::Contains("dram_gbps"),
                         synperf::invalid_argument);
}
