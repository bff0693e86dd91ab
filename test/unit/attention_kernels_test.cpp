// SPDX-License-Identifier: Apache-2.0
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <numeric>
#include <random>
#include <vector>

#include "synperf/error.hpp"
#include "synperf/family/attention/fa2.hpp"
#include "synperf/features/analysis.hpp"
#include "synperf/family/attention/fa3.hpp"
#include "synperf/family/attention/flashinfer.hpp"
#include "synperf/family/attention/triton.hpp"
#include "synperf/family/attention/trtllm.hpp"
#include "synperf/hw/a10.hpp"
#include "synperf/hw/a100_sxm.hpp"
#include "synperf/hw/b200_sxm.hpp"
#include "synperf/hw/h100_sxm.hpp"
#include "synperf/hw/l40s.hpp"
#include "synperf/hw/rtx_5090.hpp"
#include "synperf/hw/rtx_pro_6000_server.hpp"
#include "synperf/scheduler/run.hpp"
#include "synperf/work/task.hpp"
#include "test_gpus.hpp"

namespace attn = synperf::family::attention;
using attn::attention_problem;
using attn::phase;
using synperf::gpu::gpu_numbers;
using synperf::work::task_work;

namespace {

constexpr gpu_numbers h100 = synperf::hw::h100_sxm::numbers;
constexpr gpu_numbers a100 = synperf::hw::a100_sxm::numbers;
constexpr gpu_numbers l40s = synperf::hw::l40s::numbers;
constexpr gpu_numbers b200 = synperf::hw::b200_sxm::numbers;

attention_problem prefill(std::int64_t batch, std::int64_t q, std::int64_t kv, int heads, int kv_heads, int d, bool causal = true) {
    attention_problem p;
    p.stage = phase::prefill;
    p.requests = attn::uniform_batch(batch, q, kv);
    p.heads = heads;
    p.kv_heads = kv_heads;
    p.head_dim = d;
    p.causal = causal;
    return p;
}

attention_problem decode(std::int64_t batch, std::int64_t kv, int heads, int kv_heads, int d) {
    attention_problem p = prefill(batch, 1, kv, heads, kv_heads, d, false);
    p.stage = phase::decode;
    return p;
}

/// Sum of a field over a launch's tasks.
double total(const synperf::work::kernel_launch& k, double task_work::*field) {
    double s = 0;
    for (const auto& c : k.tasks) s += c.work.*field * double(c.count);
    return s;
}

/// Brute-force longest-processing-time: units sorted by cost descending (stable), each to the least-loaded
/// of `ctas` CTAs (ties to the lowest id); returns per-CTA loads and cycles.
struct greedy_result {
    std::vector<task_work> loads;
    std::vector<double> cycles;
};
greedy_result brute_force_lpt(const std::vector<synperf::work::task_class>& tasks, const gpu_numbers& g, std::int64_t ctas) {
    std::vector<std::pair<double, const task_work*>> units;
    for (const auto& c : tasks)
        for (std::int64_t i = 0; i < c.count; ++i) units.emplace_back(synperf::work::task_cost(c.work, g), &c.work);
    std::stable_sort(units.begin(), units.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
    greedy_result r;
    r.loads.assign(std::size_t(ctas), task_work{});
    r.cycles.assign(std::size_t(ctas), 0.0);
    for (const auto& [cost, w] : units) {
        const auto least = std::size_t(std::min_element(r.cycles.begin(), r.cycles.end()) - r.cycles.begin());
        r.cycles[least] += cost;
        r.loads[least] += *w;
    }
    return r;
}

std::vector<double> sorted_field(const std::vector<task_work>& v, double task_work::*field) {
    std::vector<double> out;
    for (const auto& w : v) out.push_back(w.*field);
    std::sort(out.begin(), out.end());
    return out;
}

bool near(double a, double b) { return std::abs(a - b) <= 1e-9 * std::max(1.0, std::abs(b)); }

}  // namespace

TEST_CASE("fa3 causal persistent longest-first equals a brute-force greedy") {
    // A small sm_90 GPU so every unit is visible: 8 SMs -> 8 persistent CTAs.
    const gpu_numbers g = synperf::test::synthetic(8);
    std::vector<attention_problem> cases;
    cases.push_back(prefill(2, 700, 700, 4, 2, 128));
    cases.push_back(prefill(1, 1500, 2000, 2, 2, 64));  // prefix cache, MHA
    attention_problem ragged = prefill(1, 1, 1, 4, 1, 128);
    ragged.requests = attn::ragged_batch({300, 1200, 64, 900}, {300, 1500, 64, 2000});
    cases.push_back(ragged);
    attention_problem windowed = prefill(1, 2000, 2000, 2, 1, 128);
    windowed.window = 512;
    cases.push_back(windowed);
    for (const attention_problem& p : cases) {
        CAPTURE(p.requests.size());
        const attn::attention_plan plan = attn::fa3::plan(p, g);
        const synperf::work::kernel_launch& k = plan.kernels[0];
        REQUIRE(k.dispatch == synperf::work::dispatch_kind::persistent_longest_first);
        REQUIRE(k.persistent_ctas == g.sm_count);
        CHECK(plan.variant == "fa3_sm90_persistent_lpt");
        REQUIRE(k.tasks.size() > 1);  // causal: several iteration counts

        const synperf::scheduler::schedule_result s = synperf::scheduler::schedule_launch(k, g, true);
        const greedy_result b = brute_force_lpt(k.tasks, g, k.persistent_ctas);
        CHECK(s.makespan_cycles == doctest::Approx(*std::max_element(b.cycles.begin(), b.cycles.end())).epsilon(1e-9));
        REQUIRE(s.per_sm.size() == b.loads.size());
        for (auto field : {&task_work::tensor_flop, &task_work::l2_bytes, &task_work::xu_ops, &task_work::dram_bytes}) {
            const auto got = sorted_field(s.per_sm, field), want = sorted_field(b.loads, field);
            for (std::size_t i = 0; i < got.size(); ++i) CHECK(got[i] == doctest::Approx(want[i]).epsilon(1e-9));
        }
    }
}

TEST_CASE("flashinfer KV-chunk binary search matches a hand-worked case") {
    // H100: max_batch_size_if_split = (2 x 132) / h_k = 264 / 8 = 33. Two requests (ragged KV, 1-token
    // pages): packed q 256 and 64 rows, KV 4096 and 1000 tokens, CTA_TILE_Q 128, min chunk 128.
    // CTAs(c) = ceil(256/128) ceil(4096/c) + ceil(64/128) ceil(1000/c) = 2 ceil(4096/c) + ceil(1000/c).
    // Search low = 128, high = 4096:
    //   mid 2112 -> 2*2 + 1 = 5 <= 33, high 2112;  mid 1120 -> 2*4 + 1 = 9, high 1120;
    //   mid 624 -> 2*7 + 2 = 16, high 624;         mid 376 -> 2*11 + 3 = 25, high 376;
    //   mid 252 -> 2*17 + 4 = 38 > 33, low 253;    mid 314 -> 2*14 + 4 = 32, high 314;
    //   mid 283 -> 2*15 + 4 = 34, low 284;         mid 299 -> 2*14 + 4 = 32, high 299;
    //   mid 291 -> 2*15 + 4 = 34, low 292;         mid 295 -> 32, high 295;
    //   mid 293 -> 2*14 + 4 = 32, high 293;        mid 292 -> 2*15 + 4 = 34, low 293.
    // Chunk 293 tokens (< 4096: split), 32 CTAs per KV head.
    const std::vector<attn::kv_chunk_request> reqs{{256, 4096, 1}, {64, 1000, 1}};
    const attn::kv_chunk_choice c = attn::flashinfer_kv_chunk_size(reqs, (2 * 132) / 8, 128, 128);
    CHECK(c.chunk == 293);
    CHECK(c.split);
    CHECK(c.new_batch_size == 32);

    // Counts multiply: 3 requests alike need 3x the CTAs, so the chunk grows.
    const std::vector<attn::kv_chunk_request> three{{128, 1024, 3}};  // 3 ceil(1024/c) <= 33 -> c = 94 -> min 128
    const attn::kv_chunk_choice c3 = attn::flashinfer_kv_chunk_size(three, 33, 128, 128);
    CHECK(c3.chunk == 128);
    CHECK(c3.new_batch_size == 24);
    // Nothing to split: one request whose KV is no longer than the minimum chunk.
    const std::vector<attn::kv_chunk_request> tiny{{128, 100, 1}};
    CHECK_FALSE(attn::flashinfer_kv_chunk_size(tiny, 33, 128, 128).split);

    // The plan uses the same search: A100 (108 SMs), 8 KV heads -> 27 CTAs per KV head at most.
    attention_problem p = prefill(1, 1, 1, 32, 8, 128, true);
    p.requests = attn::ragged_batch({64, 16}, {4096, 1000});  // packed rows 256 and 64
    const attn::attention_plan plan = attn::flashinfer::plan(p, a100);
    const std::vector<attn::kv_chunk_request> same{{256, 4096, 1}, {64, 1000, 1}};
    const attn::kv_chunk_choice want = attn::flashinfer_kv_chunk_size(same, (2 * 108) / 8, plan.tile_q, 128);
    REQUIRE(want.split);
    std::int64_t ctas = 0;
    for (const auto& t : plan.kernels[0].tasks) ctas += t.count;
    CHECK(ctas == want.new_batch_size * 8);
    REQUIRE(plan.kernels.size() == 2);  // + merge states
    CHECK(plan.kernels[1].name == "PersistentVariableLengthMergeStatesKernel");
}

TEST_CASE("causal prefill does about half the MMA work of non-causal for long prompts") {
    const auto ratio = [](auto kernel, const gpu_numbers& g) {
        const attention_problem c = prefill(1, 16384, 16384, 32, 8, 128, true);
        const attention_problem n = prefill(1, 16384, 16384, 32, 8, 128, false);
        return total(decltype(kernel)::plan(c, g).kernels[0], &task_work::tensor_flop) /
               total(decltype(kernel)::plan(n, g).kernels[0], &task_work::tensor_flop);
    };
    for (const double r : {ratio(attn::fa3{}, h100), ratio(attn::fa3{}, a100), ratio(attn::fa2{}, a100),
                           ratio(attn::fa2{}, l40s), ratio(attn::flashinfer{}, a100), ratio(attn::flashinfer{}, h100)}) {
        CHECK(r > 0.48);
        CHECK(r < 0.53);
    }
}

TEST_CASE("GQA with 8 query heads per KV head moves 8x fewer K/V bytes than MHA") {
    const attention_problem mha = decode(64, 8192, 32, 32, 128);
    const attention_problem gqa = decode(64, 8192, 32, 4, 128);
    const auto check = [&](auto kernel, const gpu_numbers& g, bool packs) {
        using K = decltype(kernel);
        const attn::attention_plan a = K::plan(mha, g), b = K::plan(gqa, g);
        CHECK(a.kv_footprint_bytes == doctest::Approx(8.0 * b.kv_footprint_bytes));
        // Compulsory DRAM + L2 bytes = Q + K + V + O: the difference is exactly 7/8 of the MHA K/V.
        const task_work& ca = *a.kernels[0].compulsory;
        const task_work& cb = *b.kernels[0].compulsory;
        CHECK((ca.dram_bytes + ca.l2_bytes) - (cb.dram_bytes + cb.l2_bytes) ==
              doctest::Approx(a.kv_footprint_bytes * 7.0 / 8.0));
        // DRAM shares of the tasks add up to the compulsory DRAM bytes.
        CHECK(total(a.kernels[0], &task_work::dram_bytes) == doctest::Approx(ca.dram_bytes));
        CHECK(total(b.kernels[0], &task_work::dram_bytes) == doctest::Approx(cb.dram_bytes));
        if (packs) {
            // A kernel that packs the g query heads reads each KV head once: about 8x less through L2.
            const double r = total(a.kernels[0], &task_work::l2_bytes) / total(b.kernels[0], &task_work::l2_bytes);
            CHECK(r > 7.0);
            CHECK(r < 9.0);
        }
    };
    check(attn::fa3{}, h100, true);
    check(attn::fa3{}, a100, true);
    check(attn::fa2{}, a100, true);  // decode swaps the query heads into M
    check(attn::flashinfer{}, h100, true);
    check(attn::flashinfer{}, l40s, true);
}

TEST_CASE("compulsory tensor flop is 2 (d + dv) x attended pairs x heads for every kernel") {
    std::vector<attention_problem> ps;
    ps.push_back(prefill(3, 1000, 1000, 16, 4, 128));
    ps.push_back(prefill(2, 300, 5000, 8, 8, 64));  // prefix
    ps.push_back(prefill(1, 4096, 4096, 32, 8, 128, false));
    attention_problem w = prefill(2, 3000, 3000, 8, 2, 128);
    w.window = 1024;
    ps.push_back(w);
    attention_problem r = prefill(1, 1, 1, 8, 1, 128);
    r.requests = attn::ragged_batch({100, 2000, 17}, {100, 2500, 4000});
    ps.push_back(r);
    ps.push_back(decode(100, 3000, 32, 8, 128));
    ps.push_back(decode(7, 100000, 64, 8, 128));
    ps.push_back(decode(32, 4000, 16, 4, 128));
    for (const attention_problem& p : ps) {
        const double want = 2.0 * (p.head_dim + p.dv()) * p.attended_pairs() * p.heads;
        const auto check = [&](auto kernel, const gpu_numbers& g) {
            using K = decltype(kernel);
            if (!K::supports(p, g)) return;
            const attn::attention_plan plan = K::plan(p, g);
            REQUIRE(plan.kernels[0].compulsory.has_value());
            CHECK(plan.kernels[0].compulsory->tensor_flop == doctest::Approx(want));
            CHECK(plan.kernels[0].compulsory->xu_ops == doctest::Approx(p.attended_pairs() * p.heads));
            // The tiles cover at least the useful work (padding and block granularity only add).
            const auto& main = plan.kernels[0];
            const double mma = main.tasks.front().work.tensor_flop > 0 ? total(main, &task_work::tensor_flop)
                                                                       : 2.0 * total(main, &task_work::fma_ops);
            CHECK(mma >= want * 0.999);
            CHECK(plan.attention_kernels == plan.kernels.size());
        };
        for (const gpu_numbers& g : {h100, a100, l40s}) {
            check(attn::fa3{}, g);
            check(attn::fa2{}, g);
            check(attn::flashinfer{}, g);
        }
    }
}

TEST_CASE("tile choices follow the sources") {
    using attn::fa3_detail::tile_sm90;
    // hopper/tile_size.h, 16-bit (docs/kernels.md#flashattention-3): d <= 64 192x192 (causal 192x128), 96: 192x144,
    // 128: 128x176 (causal 128x128), 192: 128x128 (dv > 128: 128x112), 256: 128x80.
    CHECK(tile_sm90(64, 64, false, false, 2, false).n == 192);
    CHECK(tile_sm90(64, 64, true, false, 2, false).n == 128);
    CHECK(tile_sm90(96, 96, false, false, 2, false).n == 144);
    CHECK(tile_sm90(128, 128, false, false, 2, false).m == 128);
    CHECK(tile_sm90(128, 128, false, false, 2, false).n == 176);
    CHECK(tile_sm90(128, 128, true, false, 2, false).n == 128);
    CHECK(tile_sm90(192, 192, false, false, 2, false).n == 112);
    CHECK(tile_sm90(192, 128, false, false, 2, false).n == 128);
    CHECK(tile_sm90(256, 256, false, false, 2, false).n == 80);
    // FP8: d <= 64 192x160, 96: 192x128, 128: 128x224, 192: 128x160, 256: 128x128.
    CHECK(tile_sm90(64, 64, false, false, 1, false).n == 160);
    CHECK(tile_sm90(128, 128, false, false, 1, false).n == 224);
    CHECK(tile_sm90(256, 256, false, false, 1, false).n == 128);

    // FA3 on H100 with a 64-token page table: not a multiple of the KV tile -> paged non-TMA tiles.
    attention_problem p = prefill(2, 2048, 2048, 32, 8, 128, false);
    const attn::fa3_config c = attn::fa3::configure(p, h100);
    CHECK(c.sm90);
    CHECK_FALSE(c.paged_tma);
    CHECK(c.tile.m == 128);
    CHECK(c.tile.n == 128);
    CHECK(c.threads == 384);
    CHECK(c.pack_gqa);
    p.page_size = 176 * 2;  // now TMA loads the pages: non-causal 128x176
    CHECK(attn::fa3::configure(p, h100).tile.n == 176);
    attention_problem p64 = prefill(2, 2048, 2048, 32, 8, 64, true);
    CHECK(attn::fa3::configure(p64, h100).tile.m == 192);
    CHECK(attn::fa3::configure(p64, h100).threads == 512);
    // FA3 Sm80 path (tile_size_fwd_sm8x): A100 d=128 128x64 4 warps; L40S (sm_89) 128x128 8 warps.
    const attn::fa3_config ca = attn::fa3::configure(prefill(2, 2048, 2048, 32, 8, 128), a100);
    CHECK_FALSE(ca.sm90);
    CHECK(ca.tile.n == 64);
    CHECK(ca.threads == 128);
    const attn::fa3_config cl = attn::fa3::configure(prefill(2, 2048, 2048, 32, 8, 128), l40s);
    CHECK(cl.tile.n == 128);
    CHECK(cl.threads == 256);

    // FA2 (docs/kernels.md#flashattention-2): d=128 sm80 128x64; sm8x causal 64x64, non-causal 128x32;
    // d=256 A100 128x64 x 8 warps, H100 64x64; d=96 sm8x causal 64x64.
    const auto fa2_tile = [](const attention_problem& q, const gpu_numbers& g) {
        const attn::attention_plan pl = attn::fa2::plan(q, g);
        return std::pair{pl.tile_q, pl.tile_kv};
    };
    CHECK(fa2_tile(prefill(1, 1024, 1024, 8, 8, 128), a100) == std::pair{128, 64});
    CHECK(fa2_tile(prefill(1, 1024, 1024, 8, 8, 128, true), l40s) == std::pair{64, 64});
    CHECK(fa2_tile(prefill(1, 1024, 1024, 8, 8, 128, false), l40s) == std::pair{128, 32});
    CHECK(fa2_tile(prefill(1, 1024, 1024, 8, 8, 256), a100) == std::pair{128, 64});
    CHECK(attn::fa2::plan(prefill(1, 1024, 1024, 8, 8, 256), a100).kernels[0].launch.threads_per_cta == 256);
    CHECK(fa2_tile(prefill(1, 1024, 1024, 8, 8, 256), h100) == std::pair{64, 64});
    CHECK(fa2_tile(prefill(1, 1024, 1024, 8, 8, 96, true), l40s) == std::pair{64, 64});
    // FA2 decode: split-KV kernel, kBlockM 64, kBlockN 128 (d = 128) when split.
    const attn::attention_plan fd = attn::fa2::plan(decode(4, 8192, 32, 8, 128), a100);
    CHECK(fd.tile_q == 64);
    CHECK(fd.splits > 1);
    CHECK(fd.tile_kv == 128);
    CHECK(fd.kernels.size() == 2);

    // FlashInfer: long prompts -> CTA_TILE_Q 128; average packed length 40 -> 64; decode with g = 8 ->
    // tensor-core prefill kernel with packed length 8 -> 16; g = 4 -> CUDA-core decode.
    CHECK(attn::flashinfer::plan(prefill(1, 2048, 2048, 32, 8, 128), a100).tile_q == 128);
    CHECK(attn::flashinfer::plan(prefill(4, 10, 500, 32, 8, 128), a100).tile_q == 64);
    const attn::attention_plan tc = attn::flashinfer::plan(decode(16, 2048, 64, 8, 128), a100);
    CHECK(tc.variant == "flashinfer_decode_tensor_cores");
    CHECK(tc.tile_q == 16);
    const attn::attention_plan cc = attn::flashinfer::plan(decode(16, 2048, 32, 8, 128), a100);
    CHECK(cc.variant == "flashinfer_decode");
    CHECK(cc.kernels[0].launch.threads_per_cta == 128);  // bdx 16 x bdy 4 x bdz 2
    // SM90 prefill plan: 128-row tiles (192 for dv = 64), SMs persistent CTAs, longest first.
    const attn::attention_plan s90 = attn::flashinfer::plan(prefill(2, 4096, 4096, 32, 8, 128), h100);
    CHECK(s90.variant == "flashinfer_sm90_prefill");
    CHECK(s90.tile_q == 128);
    CHECK(s90.kernels[0].persistent_ctas == 132);
    CHECK(s90.kernels[0].dispatch == synperf::work::dispatch_kind::persistent_longest_first);
    CHECK(attn::flashinfer::plan(prefill(2, 4096, 4096, 32, 8, 64), h100).tile_q == 192);
}

TEST_CASE("task classes do not grow with the batch, and a uniform batch is one class per query block") {
    const attention_problem small = prefill(2, 8192, 8192, 96, 8, 128);
    const attention_problem big = prefill(2048, 8192, 8192, 96, 8, 128);
    for (const gpu_numbers& g : {h100, a100}) {
        CHECK(attn::fa3::plan(small, g).kernels[0].tasks.size() == attn::fa3::plan(big, g).kernels[0].tasks.size());
        CHECK(attn::fa2::plan(small, g).kernels[0].tasks.size() == attn::fa2::plan(big, g).kernels[0].tasks.size());
    }
    // Counts carry the batch: FA2 has one CTA per (m-block, request, head).
    const attn::attention_plan pl = attn::fa2::plan(big, a100);
    std::int64_t ctas = 0;
    for (const auto& t : pl.kernels[0].tasks) ctas += t.count;
    CHECK(ctas == (8192 / pl.tile_q) * 2048 * 96);
}

TEST_CASE("supports() is false where the implementation has no kernel") {
    const attention_problem p = prefill(1, 1024, 1024, 32, 8, 128);
    CHECK(attn::fa3::supports(p, h100));
    CHECK(attn::fa3::supports(p, a100));
    CHECK_FALSE(attn::fa3::supports(p, b200));  // no sm_100 path in FA3
    CHECK_THROWS_AS((void)attn::fa3::plan(p, b200), synperf::invalid_argument);
    attention_problem fp8 = p;
    fp8.kv_type = attn::kv_dtype::fp8;
    fp8.fp8_compute = true;
    CHECK(attn::fa3::supports(fp8, h100));
    CHECK_FALSE(attn::fa3::supports(fp8, a100));  // FP8 only on the sm_90 kernel
    CHECK_FALSE(attn::fa2::supports(fp8, a100));
    CHECK_FALSE(attn::flashinfer::supports(fp8, h100));
    attention_problem fp8_kv = p;
    fp8_kv.kv_type = attn::kv_dtype::fp8;
    CHECK_FALSE(attn::fa2::supports(fp8_kv, a100));
    CHECK(attn::flashinfer::supports(fp8_kv, a100));  // FlashInfer converts an FP8 cache
    attention_problem d96 = p;
    d96.head_dim = 96;
    CHECK(attn::fa3::supports(d96, h100));
    CHECK(attn::fa2::supports(d96, a100));
    CHECK_FALSE(attn::flashinfer::supports(d96, a100));  // head dims 64, 128, 256
    attention_problem d512 = p;
    d512.head_dim = 512;
    CHECK_FALSE(attn::fa3::supports(d512, h100));
    CHECK_FALSE(attn::fa2::supports(d512, a100));
    CHECK(attn::fa2::supports(p, synperf::test::sm80_like()));
}

TEST_CASE("fa3 decode: static split bound, per-request dynamic splits and the combine kernel") {
    // H100 (132 SMs), 4 requests x 65536 KV, 32 heads over 8 KV heads, d = 128, page 64 (paged non-TMA):
    // tile 128x128, PackGQA -> one m-block (4 packed rows) per KV head. Static bound (heuristics.h, batch 1
    // for varlen): 8 m-blocks < 0.8 x 132, 512 n-blocks; efficiency w / ceil(w), w = 8s / 132, is 1 at
    // s = 33 (2 full waves); the first s with >= 0.85 is 15 (120/132 = 0.909; 14 gives 0.848). Dynamic
    // (flash_prepare_scheduler.cu): blocks 4 x 1 x 512 = 2048, per SM ceil(2048 x 1.1 x 8 / 132) = 137,
    // splits ceil(512 / 137) = 4 <= 15.
    const attention_problem p = decode(4, 65536, 32, 8, 128);
    const attn::fa3_config c = attn::fa3::configure(p, h100);
    CHECK(c.splits == 15);
    const attn::attention_plan plan = attn::fa3::plan(p, h100);
    CHECK(plan.splits == 4);
    CHECK(plan.pack_gqa);
    // Main, combine and, since SGLang passes no scheduler metadata, the dynamic-split scheduler's prepare kernel.
    REQUIRE(plan.kernels.size() == 3);
    CHECK(plan.attention_kernels == 3);
    CHECK(plan.kernels[2].name == "prepare_varlen_num_blocks");
    REQUIRE(plan.kernels[0].tasks.size() == 1);  // every split visits 128 blocks
    CHECK(plan.kernels[0].tasks[0].count == 4 * 8 * 4);
    CHECK(plan.kernels[0].tasks[0].work.tensor_flop == doctest::Approx(2.0 * 128 * (128 * 128) * 256));
    // Combine: 8 rows x 128 columns per CTA over 4 x 32 (token, head) rows -> 16 CTAs.
    std::int64_t ctas = 0;
    for (const auto& t : plan.kernels[1].tasks) ctas += t.count;
    CHECK(ctas == 16);
    CHECK(plan.kernels[1].compulsory->tensor_flop == 0);

    // Past 992 requests the prepare kernel gives every request one split; the combine still launches and
    // its CTAs return at once, and on sm_90 the tile counter is zeroed instead of prepared.
    const attn::attention_plan many = attn::fa3::plan(decode(1000, 65536, 32, 8, 128), h100);
    CHECK(many.splits == 1);
    REQUIRE(many.kernels.size() == 3);
    CHECK(total(many.kernels[1], &task_work::l2_bytes) == 0);
    CHECK(many.kernels[2].name == "tile_count_semaphore_zero");

    // vLLM computes the scheduler metadata once per step, outside the op: main and combine only.
    attention_problem v = decode(4, 65536, 32, 8, 128);
    v.backend = attn::framework::vllm;
    CHECK(attn::fa3::plan(v, h100).kernels.size() == 2);
}

TEST_CASE("trtllm decode: XQA multi-block is off for an FP8 cache on sm_89 and sm_120, and XQA still runs small batches") {
    // L40S (142 SMs), 32 heads over 8 KV heads, d = 128, 8192 KV tokens.
    // bf16, batch 2: gain test 8 x 2 x (8192 / 128) x 4 = 4096 >= 142 -> XQA; multi-block count
    // min(64, round(sqrt(64 x 8)) = 23) = 23, 2 x 8 x 23 / 142 = 2.6 waves (no cut back).
    attention_problem p = decode(2, 8192, 32, 8, 128);
    p.backend = attn::framework::trtllm;
    attn::attention_plan plan = attn::trtllm::plan(p, l40s);
    CHECK(plan.variant == "trtllm_xqa");
    CHECK(plan.splits == 23);
    // FP8 cache: no multi-block, so the gain test is 8 x 2 x 1 x 4 = 64 < 142; MMHA has no kernel for a bf16
    // query over an FP8 cache, so XQA runs anyway: one CTA per (KV head, request), 16 CTAs of 8192 tokens each.
    p.kv_type = attn::kv_dtype::fp8;
    plan = attn::trtllm::plan(p, l40s);
    CHECK(plan.variant == "trtllm_xqa");
    CHECK(plan.splits == 1);
    std::int64_t ctas = 0;
    for (const auto& t : plan.kernels[0].tasks) ctas += t.count;
    CHECK(ctas == 2 * 8);
    // A bf16 cache that fails the gain test still runs MMHA (batch 1, 512 tokens: 8 x 1 x 4 x 4 = 128 < 142).
    attention_problem short_bf16 = decode(1, 512, 32, 8, 128);
    short_bf16.backend = attn::framework::trtllm;
    CHECK(attn::trtllm::plan(short_bf16, l40s).variant == "trtllm_mmha");
    // Batch 8: 8 x 8 x 4 = 256 >= 142 -> XQA, one CTA per (KV head, request).
    attention_problem wide = decode(8, 8192, 32, 8, 128);
    wide.backend = attn::framework::trtllm;
    wide.kv_type = attn::kv_dtype::fp8;
    plan = attn::trtllm::plan(wide, l40s);
    CHECK(plan.variant == "trtllm_xqa");
    CHECK(plan.splits == 1);
    CHECK(attn::trtllm::plan(wide, synperf::hw::rtx_5090::numbers).splits == 1);  // sm_120: the same rule
    // sm_90 keeps multi-block with an FP8 cache (the QGMMA kernel).
    plan = attn::trtllm::plan(p, h100);
    CHECK(plan.variant == "trtllm_xqa_gmma");
    CHECK(plan.splits > 1);
}

TEST_CASE("trtllm decode: plain MHA runs MMHA, which converts an FP8 cache in software below sm_90") {
    // 32 heads over 32 KV heads: XQA leaves plain MHA (beam 1) to MMHA, even with a batch large enough to gain.
    attention_problem p = decode(64, 4096, 32, 32, 128);
    p.backend = attn::framework::trtllm;
    CHECK(attn::trtllm::plan(p, l40s).variant == "trtllm_mmha");
    const double bf16_fma = total(attn::trtllm::plan(p, l40s).kernels[0], &task_work::fma_ops);
    p.kv_type = attn::kv_dtype::fp8;
    // Each query head's CTA converts its KV head's 4096 x (128 + 128) cached elements: 24 FP32-lane slots each on
    // sm_89 (the sm_86 build's software path), half a slot on sm_90 and later. One-byte elements also take half the
    // 16-byte loads of a bf16 cache (1 / 16 of an instruction fewer per element).
    const double convert = 64.0 * 32 * 4096 * 256;
    CHECK(total(attn::trtllm::plan(p, l40s).kernels[0], &task_work::fma_ops) ==
          doctest::Approx(bf16_fma + 24 * convert - convert / 16));
    CHECK(total(attn::trtllm::plan(p, h100).kernels[0], &task_work::fma_ops) ==
          doctest::Approx(total(attn::trtllm::plan(decode(64, 4096, 32, 32, 128), h100).kernels[0], &task_work::fma_ops) +
                          0.5 * convert - convert / 16));
}

TEST_CASE("trtllm decode: MMHA's block size and blocks per sequence follow mmha_launch_kernel_ex") {
    namespace td = attn::trtllm_detail;
    // H100, 132 SMs; 256 threads x 64 registers: 4 CTAs per SM. One request of 32 heads leaves SMs idle, so the
    // CTA grows to 1024 threads (4 x 256, one per SM); a block then covers 1024 / 16 x 8 = 512 timesteps, and a
    // 64K sequence could take 129, but the op allows ceil(132 / 32) = 5 blocks per sequence.
    td::mmha_launch l = td::mmha_multi_block(1, 32, 128, 65536, h100);
    CHECK(l.threads == 1024);
    CHECK(l.splits == 5);
    // A short sequence fills one unrolled loop: no split.
    CHECK(td::mmha_multi_block(1, 32, 128, 100, h100).splits == 1);
    // 64 x 32 CTAs are 15 per SM: the 256-thread kernel, one block per sequence...
    l = td::mmha_multi_block(64, 32, 128, 16384, h100);
    CHECK(l.threads == 256);
    CHECK(l.splits == 1);
    // ...unless the sequence's fp32 logits (4 x 65537 B) exceed a CTA's shared memory (227 KiB less 2 KiB): two blocks.
    CHECK(td::mmha_multi_block(64, 32, 128, 65536, h100).splits == 2);
    // A100, 108 SMs, 8 x 32 CTAs: ceil(108 x 4 / 256) = 2, so 512 threads; 2 of them per SM give one block per sequence.
    l = td::mmha_multi_block(8, 32, 128, 4096, a100);
    CHECK(l.threads == 512);
    CHECK(l.splits == 1);
    // The plan uses it.
    attention_problem p = decode(1, 65536, 32, 32, 128);
    p.backend = attn::framework::trtllm;
    const attn::attention_plan plan = attn::trtllm::plan(p, h100);
    CHECK(plan.variant == "trtllm_mmha");
    CHECK(plan.splits == 5);
    CHECK(plan.kernels[0].launch.threads_per_cta == 1024);
}

TEST_CASE("CUDA-core attention is paced by instruction issue, so sm_80's 64 FP32 lanes cost it no more cycles") {
    // One query row over 64 keys, d = dv = 128, a 16-bit cache: 64 x 256 = 16,384 FMAs + 3 x 64 softmax ops = 16,576;
    // 16,384 K/V elements unpacked (1 each) and loaded 8 per 16-byte access (18,432); each key's dot product summed
    // over t = 128 / 8 = 16 threads, 2 x 16 x log2 16 = 128 shuffles and adds per key (8,192). Issued: 43,200.
    attn::flash_tile_shape s;
    s.rows = 1;
    s.kv = 64;
    s.head_dim = 128;
    s.v_head_dim = 128;
    s.tensor_cores = false;
    s.fma_lanes_per_issue = h100.fma_lanes_per_issue();
    CHECK(h100.fma_lanes_per_issue() == 1.0);
    CHECK(attn::flash_tile_work(s).fma_ops == doctest::Approx(43200));
    // A100: 64 lanes per 128 issue slots, so the same instructions are 21,600 lane-ops, still more than the FMAs.
    s.fma_lanes_per_issue = a100.fma_lanes_per_issue();
    CHECK(a100.fma_lanes_per_issue() == 0.5);
    const task_work w = attn::flash_tile_work(s);
    CHECK(w.fma_ops == doctest::Approx(21600));
    // Both take 43,200 / 128 = 337.5 cycles of the boost clock.
    CHECK(w.fma_ops / a100.fma_fp32_per_clk == doctest::Approx(43200.0 / 128.0));
    // A GPU with lanes to spare for the issue slots (a hypothetical 32 lanes per SM) is bound by its FMAs instead.
    s.fma_lanes_per_issue = 0.25;
    CHECK(attn::flash_tile_work(s).fma_ops == doctest::Approx(16576));
    // Tensor-core tiles are unaffected.
    s.tensor_cores = true;
    CHECK(attn::flash_tile_work(s).fma_ops == doctest::Approx(3.0 * 64 + 128.0));
    // MMHA sets the GPU's ratio: the same decode costs A100 half the lane-ops of H100 per CTA.
    attention_problem p = decode(4, 4096, 64, 1, 128);
    p.backend = attn::framework::trtllm;
    REQUIRE(attn::trtllm::plan(p, a100).variant == "trtllm_mmha");
    const double a100_fma = total(attn::trtllm::plan(p, a100).kernels[0], &task_work::fma_ops);
    const double h100_fma = total(attn::trtllm::plan(p, h100).kernels[0], &task_work::fma_ops);
    CHECK(a100_fma == doctest::Approx(h100_fma / 2).epsilon(0.02));
}

TEST_CASE("fa2 varlen grid: CTAs past a short request's rows exit without work") {
    attention_problem p = prefill(1, 1, 1, 4, 4, 128);
    p.requests = attn::ragged_batch({1024, 128}, {1024, 128});
    const attn::attention_plan plan = attn::fa2::plan(p, a100);  // 128x64 tiles: 8 m-blocks for the longest
    std::int64_t ctas = 0, empty = 0;
    for (const auto& t : plan.kernels[0].tasks) {
        ctas += t.count;
        if (t.work.tensor_flop == 0) empty += t.count;
    }
    CHECK(ctas == 8 * 2 * 4);
    CHECK(empty == 7 * 4);
}

TEST_CASE("every supported plan fits its GPU and schedules, with DRAM shares adding up") {
    const gpu_numbers gpus[] = {h100, a100, l40s, b200, synperf::hw::a10::numbers, synperf::hw::rtx_5090::numbers};
    int planned = 0;
    for (const gpu_numbers& g : gpus) {
        for (int d : {64, 96, 128, 192, 256}) {
            for (bool causal : {true, false}) {
                for (int kv_heads : {1, 8, 32}) {
                    for (std::int64_t window : {std::int64_t{0}, std::int64_t{1000}}) {
                        std::vector<attention_problem> ps{prefill(3, 777, 2500, 32, kv_heads, d, causal),
                                                          decode(50, 3000, 32, kv_heads, d)};
                        attention_problem ragged = prefill(1, 1, 1, 32, kv_heads, d, causal);
                        ragged.requests = attn::ragged_batch({1, 900, 4000}, {5000, 900, 4000});
                        ps.push_back(ragged);
                        for (attention_problem& p : ps) {
                            p.window = window;
                            // The flash kernels spread the compulsory DRAM bytes over their tiles.
                            const auto run = [&](auto kernel, bool dram_in_tiles = true) {
                                using K = decltype(kernel);
                                if (!K::supports(p, g)) return;
                                const attn::attention_plan plan = K::plan(p, g);
                                ++planned;
                                REQUIRE(plan.attention_kernels == plan.kernels.size());
                                CHECK(plan.tile_q > 0);
                                CHECK(plan.tile_kv > 0);
                                CHECK(plan.splits >= 1);
                                for (const auto& k : plan.kernels) {
                                    CAPTURE(k.name);
                                    REQUIRE(k.compulsory.has_value());
                                    const auto s = synperf::scheduler::schedule_launch(k, g);
                                    CHECK(s.makespan_cycles >= 0);
                                }
                                const auto& main = plan.kernels[0];
                                if (dram_in_tiles) CHECK(near(total(main, &task_work::dram_bytes), main.compulsory->dram_bytes));
                                CHECK(main.compulsory->tensor_flop > 0);
                            };
                            run(attn::fa3{});
                            run(attn::fa2{});
                            run(attn::flashinfer{});
                            run(attn::triton{}, false);
                            run(attn::trtllm{}, false);
                        }
                    }
                }
            }
        }
    }
    CHECK(planned > 300);
}

TEST_CASE("a GPU whose CTAs cannot hold one stage of a kernel's tiles is refused, naming both sizes") {
    const attention_problem p = prefill(4, 1024, 1024, 32, 8, 128);
    const attention_problem step = decode(4, 1024, 32, 8, 128);
    for (gpu_numbers g : {h100, a100, l40s, b200}) {
        g.smem_per_cta_bytes = 2048;
        const auto refused = [&](auto kernel, const attention_problem& q) {
            using K = decltype(kernel);
            if (!K::supports(q, g)) return;
            CAPTURE(g.cc_major);
            CHECK_THROWS_WITH_AS((void)K::plan(q, g),
                                 doctest::Contains("bytes of shared memory per CTA; this GPU gives one CTA at most 2048 (smem_per_cta_bytes)"),
                                 synperf::invalid_argument);
        };
        for (const attention_problem& q : {p, step}) {
            refused(attn::fa3{}, q);
            refused(attn::fa2{}, q);
            refused(attn::flashinfer{}, q);
            refused(attn::triton{}, q);
            refused(attn::trtllm{}, q);
        }
    }
    // Stages beyond the first fit into what there is: FA3's head-128 tile needs less than 150,000 bytes for its Q
    // tile and one K and V stage and more for its two stages and output, so it runs with the 150,000 there are.
    gpu_numbers tight = h100;
    tight.smem_per_cta_bytes = 150000;
    const attn::attention_plan plan = attn::fa3::plan(prefill(1, 4096, 4096, 32, 8, 128), tight);
    CHECK(plan.kernels.front().launch.smem_per_cta == 150000);
}

TEST_CASE("flash tiles: the unit tally lists (iterations, partial) longest first, equal keys merged, with or without a bound") {
    namespace fd = synperf::family::attention::flash_detail;
    std::mt19937_64 rng(31);
    for (int trial = 0; trial < 200; ++trial) {
        // Short ranges take the counting path; a few far-apart counts take the sort.
        const std::int64_t spread = trial % 4 == 3 ? 1'000'000 : 1 + static_cast<std::int64_t>(rng() % 50);
        // No bound, a bound above every count (a table alone; none past 2^16), or one below some counts (a
        // table and a list, merged by `finish`).
        const int bound = trial % 3;
        fd::unit_tally tally = bound == 0 ? fd::unit_tally() : fd::unit_tally(bound == 1 ? spread - 1 : spread / 2);
        std::vector<fd::unit_count> added;
        const int n = static_cast<int>(rng() % 40);
        for (int i = 0; i < n; ++i) {
            const fd::unit_count u{static_cast<std::int64_t>(rng() % static_cast<std::uint64_t>(spread)), rng() % 3 == 0,
                                   static_cast<std::int64_t>(rng() % 5)};
            tally.add(u.iters, u.partial, u.count);
            if (u.count > 0) added.push_back({u.iters, u.iters > 0 && u.partial, u.count});
        }
        // Reference: a plain sort by (iterations descending, full before partial), then equal keys summed.
        std::sort(added.begin(), added.end(), [](const fd::unit_count& a, const fd::unit_count& b) {
            return a.iters != b.iters ? a.iters > b.iters : a.partial < b.partial;
        });
        std::vector<fd::unit_count> expected;
        for (const fd::unit_count& u : added) {
            if (!expected.empty() && expected.back().iters == u.iters && expected.back().partial == u.partial)
                expected.back().count += u.count;
            else
                expected.push_back(u);
        }
        const std::vector<fd::unit_count> got = tally.finish();
        CAPTURE(trial);
        REQUIRE(got.size() == expected.size());
        for (std::size_t i = 0; i < got.size(); ++i) {
            CHECK(got[i].iters == expected[i].iters);
            CHECK(got[i].partial == expected[i].partial);
            CHECK(got[i].count == expected[i].count);
        }
    }
}

TEST_CASE("flash tiles: the causal block runs equal kv_blocks block by block") {
    namespace fd = synperf::family::attention::flash_detail;
    const fd::mask causal{true, 0};
    int cases = 0;
    for (const std::int64_t q_len : {1, 2, 7, 64, 100, 129, 1000})
        for (const std::int64_t extra : {0, 1, 63, 500})  // cached prefix: kv_len - q_len
            for (const std::int64_t pack : {1, 2, 5, 8})
                for (const std::int64_t tile_q : {16, 64, 128, 176})
                    for (const std::int64_t tile_kv : {1, 64, 80, 128, 176}) {  // 1: every key, so an off-by-one shows
                        synperf::family::attention::request_group r;
                        r.q_len = q_len;
                        r.kv_len = q_len + extra;
                        const std::int64_t blocks = fd::ceil_div(q_len * pack, tile_q);
                        CAPTURE(q_len);
                        CAPTURE(extra);
                        CAPTURE(pack);
                        CAPTURE(tile_q);
                        CAPTURE(tile_kv);
                        std::int64_t b = 0, previous = -1;
                        for (fd::causal_block_runs runs(r, pack, tile_q, tile_kv); runs.more();) {
                            const fd::block_run run = runs.next();
                            REQUIRE(run.blocks > 0);
                            REQUIRE(run.kv_blocks > previous);  // maximal runs: the count changes between runs
                            previous = run.kv_blocks;
                            for (std::int64_t i = 0; i < run.blocks; ++i, ++b) {
                                CAPTURE(b);
                                REQUIRE(b < blocks);
                                REQUIRE(run.kv_blocks == fd::kv_blocks(r, causal, pack, b * tile_q, tile_q, tile_kv).size());
                            }
                        }
                        CHECK(b == blocks);
                        ++cases;
                    }
    CHECK(cases == 7 * 4 * 4 * 4 * 5);
}

TEST_CASE("mma.sync kernels run their tensor work at the warp-level rate, wgmma and tcgen05 kernels at the dense rate") {
    using synperf::gpu::mma_issue;
    // Every task with tensor work, and the compulsory bound, carry the kernel's instruction kind.
    const auto issue_of = [](const attn::attention_plan& plan) {
        const auto& main = plan.kernels.front();
        REQUIRE(main.compulsory.has_value());
        for (const auto& c : main.tasks)
            if (c.work.tensor_flop > 0) CHECK(c.work.tensor_issue == main.compulsory->tensor_issue);
        return main.compulsory->tensor_issue;
    };
    const attention_problem long_prefill = prefill(1, 4096, 4096, 32, 8, 128, false);
    CHECK(issue_of(attn::fa2::plan(long_prefill, h100)) == mma_issue::warp_sync);
    CHECK(issue_of(attn::fa2::plan(decode(16, 8192, 32, 8, 128), h100)) == mma_issue::warp_sync);
    CHECK(issue_of(attn::fa3::plan(long_prefill, h100)) == mma_issue::native);          // sm90 path: wgmma
    CHECK(issue_of(attn::fa3::plan(long_prefill, a100)) == mma_issue::warp_sync);       // Sm80 path
    CHECK(issue_of(attn::flashinfer::plan(long_prefill, h100)) == mma_issue::native);   // SM90 prefill plan
    attention_problem fp8_kv = long_prefill;
    fp8_kv.kv_type = attn::kv_dtype::fp8;
    CHECK(issue_of(attn::flashinfer::plan(fp8_kv, h100)) == mma_issue::warp_sync);      // FA2-style prefill
    CHECK(issue_of(attn::trtllm::plan(decode(16, 8192, 32, 4, 128), h100)) == mma_issue::warp_sync);  // XQA HMMA
    attention_problem fp8_decode = decode(16, 8192, 32, 4, 128);
    fp8_decode.kv_type = attn::kv_dtype::fp8;
    CHECK(issue_of(attn::trtllm::plan(fp8_decode, h100)) == mma_issue::native);         // XQA's sm90 GMMA kernel
    // Triton: BLOCK_M 64 extend tiles are warpgroup MMAs, the 16-row grouped decode tiles mma.sync.
    CHECK(issue_of(attn::triton::plan(long_prefill, b200)) == mma_issue::native);
    CHECK(issue_of(attn::triton::plan(decode(16, 8192, 32, 8, 128), b200)) == mma_issue::warp_sync);

    // The same FA2 prefill is tensor-bound on H100 and takes 1.5x the cycles wgmma would need.
    const attn::attention_plan fa2_plan = attn::fa2::plan(long_prefill, h100);
    synperf::work::task_work as_wgmma = *fa2_plan.kernels.front().compulsory;
    as_wgmma.tensor_issue = mma_issue::native;
    const auto warp = synperf::work::sm_cycles(*fa2_plan.kernels.front().compulsory, h100);
    const auto wide = synperf::work::sm_cycles(as_wgmma, h100);
    CHECK(warp.tensor == doctest::Approx(1.5 * wide.tensor));
    // On A100 mma.sync is the architecture's own instruction: no penalty.
    const attn::attention_plan a100_plan = attn::fa2::plan(long_prefill, a100);
    synperf::work::task_work a100_native = *a100_plan.kernels.front().compulsory;
    a100_native.tensor_issue = mma_issue::native;
    CHECK(synperf::work::sm_cycles(*a100_plan.kernels.front().compulsory, a100).tensor ==
          doctest::Approx(synperf::work::sm_cycles(a100_native, a100).tensor));
}

TEST_CASE("triton decode: the CTAs' dependent round trips, counted from the kernel's code") {
    constexpr gpu_numbers rtx_pro = synperf::hw::rtx_pro_6000_server::numbers;
    // Two keys per request: one split holds them (a 32-token chunk), seven of the eight split CTAs exit after
    // loading the lengths. The one with keys: lengths; query + indices; one block's K and V.
    const attn::attention_plan short_kv = attn::triton::plan(decode(2048, 2, 32, 32, 128), rtx_pro);
    REQUIRE(short_kv.kernels.size() == 2);
    CHECK(short_kv.splits == 1);
    CHECK(short_kv.kernels[0].cta_round_trips == doctest::Approx(2048.0 * 32 * (3 + 7)));
    CHECK(short_kv.kernels[1].cta_round_trips == doctest::Approx(2048.0 * 32 * 2));  // the merge: lengths, then a split
    // One request of 8192 keys over 8 heads: eight splits of 1024 keys, 16 blocks of 64 each.
    const attn::attention_plan long_kv = attn::triton::plan(decode(1, 8192, 8, 8, 128), rtx_pro);
    CHECK(long_kv.splits == 8);
    CHECK(long_kv.kernels[0].cta_round_trips == doctest::Approx(8.0 * 8 * (2 + 16)));
    // The floor they set is below the launch's measured time (SGLang 0.5.10 on this GPU: 708 µs for the first).
    const synperf::work::kernel_launch& stage1 = short_kv.kernels[0];
    const auto f = synperf::features::analyze(stage1, synperf::scheduler::schedule_launch(stage1, rtx_pro), rtx_pro);
    const double floor_us = synperf::features::cycles_to_us(f.kernel_floor_cycles, rtx_pro);
    CHECK(floor_us > 300.0);
    CHECK(floor_us < 708.0);
}
