// SPDX-License-Identifier: Apache-2.0
// The elementwise family: launch shapes of the four kinds, hand-worked bytes, shape checks, monotone bound.
#include "synperf/family/elementwise.hpp"

#include <doctest/doctest.h>

#include "synperf/error.hpp"
#include "synperf/hw/a100_sxm.hpp"
#include "synperf/hw/h100_sxm.hpp"
#include "synperf/hw/l40s.hpp"
#include "synperf/predictor/predictor.hpp"

namespace {

using synperf::family::elementwise;
using synperf::family::elementwise_kind;
using synperf::family::gather_kernel;
using synperf::family::elementwise_problem;

const synperf::gpu::gpu_numbers& h100 = synperf::hw::h100_sxm::numbers;

elementwise_problem quantize(std::int64_t m, std::int64_t k) {
    elementwise_problem p;
    p.kind = elementwise_kind::fp8_quantize;
    p.rows = m;
    p.cols = k;
    return p;
}

}  // namespace

TEST_CASE("elementwise: FP8 quantize reads 2 B and writes 1 B per element") {
    const auto plan = elementwise::plan(quantize(4096, 4096), h100);
    const auto& k = plan.kernels[0];
    // 16 Mi elements / 8 per access / 256 threads = 8192 CTAs.
    CHECK(k.tasks[0].count == 8192);
    CHECK(k.launch.threads_per_cta == 256);
    CHECK(plan.footprint_bytes == doctest::Approx(4096.0 * 4096 * 3));
    CHECK(k.tasks[0].work.l2_bytes == doctest::Approx(2048.0 * 3));
    // Grid capped at 65536 CTAs: a grid-stride loop.
    CHECK(elementwise::plan(quantize(32768, 65536), h100).kernels[0].tasks[0].count == 65536);
}

TEST_CASE("elementwise: residual add, RoPE and embedding shapes") {
    elementwise_problem add;
    add.kind = elementwise_kind::residual_add;
    add.rows = 100;
    add.cols = 4096;
    auto plan = elementwise::plan(add, h100);
    CHECK(plan.kernels[0].tasks[0].count == 800);  // 409600 / 512
    CHECK(plan.footprint_bytes == doctest::Approx(100.0 * 4096 * 6));

    // Llama-2-7B RoPE at TP 1: 32 heads of 128, grid = tokens, block = min(32 x 64, 512) = 512.
    elementwise_problem rope;
    rope.kind = elementwise_kind::rope;
    rope.rows = 10;
    rope.heads = 32;
    rope.kv_heads = 32;
    rope.head_dim = 128;
    plan = elementwise::plan(rope, h100);
    CHECK(plan.kernels[0].tasks[0].count == 10);
    CHECK(plan.kernels[0].launch.threads_per_cta == 512);
    // Per token: 64 heads x 64 pairs; each pair reads and writes two fp16 values; plus one cos/sin row.
    CHECK(plan.kernels[0].tasks[0].work.l2_bytes == doctest::Approx(64.0 * 64 * 4 * 2 + 128 * 2));
    CHECK(plan.kernels[0].tasks[0].work.fma_ops == doctest::Approx(64.0 * 64 * 4));
    CHECK(plan.kernels[0].memory_rounds == 16);  // 8 pairs per thread x (loads, stores)

    // Embedding: > 16 indices: grid = min(ceil(rows x cols / 128), 8 x SMs); <= 16: over the row only.
    elementwise_problem emb;
    emb.kind = elementwise_kind::embedding;
    emb.rows = 4096;
    emb.cols = 8192;
    emb.vocab = 32000;
    plan = elementwise::plan(emb, h100);
    CHECK(plan.kernels[0].tasks[0].count == 132 * 8);
    CHECK(plan.kernels[0].name == "indexSelectLargeIndex");
    emb.rows = 16;
    plan = elementwise::plan(emb, h100);
    CHECK(plan.kernels[0].tasks[0].count == 64);  // 8192 / 128
    CHECK(plan.kernels[0].name == "indexSelectSmallIndex");
    CHECK(plan.shapes[0].accesses_per_thread == 32);  // 16 rows x (load, store)
    CHECK(plan.kernels[0].memory_rounds == 32);        // each load, then its store (the index hits L1)

    // Current PyTorch, > 16 indices: vectorized_gather_kernel, grid (rows, ceil(row bytes / 4096)), min(256, row
    // bytes / 16) threads. 8192 fp16 = 16384 B: 4 CTAs per row of 256 threads, one 16-byte vector each.
    emb.rows = 4096;
    emb.gather = gather_kernel::vectorized;
    plan = elementwise::plan(emb, h100);
    CHECK(plan.kernels[0].name == "vectorized_gather_kernel");
    CHECK(plan.kernels[0].tasks[0].count == 4096 * 4);
    CHECK(plan.kernels[0].launch.threads_per_cta == 256);
    CHECK(plan.shapes[0].vector_bytes == 16);
    CHECK(plan.kernels[0].memory_rounds == 3);  // the index, then the row's load and its store
    CHECK(plan.kernels[0].rounds_then_stream);  // short CTAs: each wave's rounds and dispatches add to the transfer
    CHECK(plan.kernels[0].tasks[0].work.l2_bytes == doctest::Approx(16384.0 * 2 / 4 + 8));
    // A row of 64 fp16 is 8 vectors: one CTA per row, a warp rounded up from 8 threads.
    emb.cols = 64;
    plan = elementwise::plan(emb, h100);
    CHECK(plan.kernels[0].tasks[0].count == 4096);
    CHECK(plan.kernels[0].launch.threads_per_cta == 32);
    // Rows that are not a multiple of 16 bytes, and at most 16 indices, keep the index_select kernels.
    // `runs_vectorized_gather` says which (the CLI labels the run with it).
    CHECK(runs_vectorized_gather(emb));
    emb.cols = 4100;
    CHECK(elementwise::plan(emb, h100).kernels[0].name == "indexSelectLargeIndex");
    CHECK_FALSE(runs_vectorized_gather(emb));
    emb.cols = 4096;
    emb.rows = 16;
    CHECK(elementwise::plan(emb, h100).kernels[0].name == "indexSelectSmallIndex");
    CHECK_FALSE(runs_vectorized_gather(emb));
}

TEST_CASE("elementwise: invalid shapes give clear errors") {
    CHECK_THROWS_WITH_AS(elementwise::plan(quantize(0, 4096), h100),
                         doctest::Contains("elementwise fp8_quantize: rows must be > 0, got 0"), synperf::invalid_argument);
    CHECK_THROWS_WITH_AS(elementwise::plan(quantize(16, 12), h100), doctest::Contains("cols must be a multiple of 8"),
                         synperf::invalid_argument);
    elementwise_problem rope;
    rope.kind = elementwise_kind::rope;
    rope.rows = 4;
    rope.heads = 8;
    rope.head_dim = 127;
    CHECK_THROWS_WITH_AS(elementwise::plan(rope, h100), doctest::Contains("head_dim must be even and > 0, got 127"),
                         synperf::invalid_argument);
    elementwise_problem emb;
    emb.kind = elementwise_kind::embedding;
    emb.rows = 4;
    emb.cols = 4096;
    CHECK_THROWS_WITH_AS(elementwise::plan(emb, h100), doctest::Contains("vocab must be > 0"), synperf::invalid_argument);
    elementwise_problem quantize;
    quantize.rows = 16;
    quantize.cols = 4096;
    CHECK_THROWS_WITH_AS(elementwise::plan(quantize, synperf::hw::a100_sxm::numbers),
                         doctest::Contains("needs compute capability 8.9 or newer; this GPU is sm_80"), synperf::invalid_argument);
    CHECK_THROWS_WITH_AS(elementwise::framework_level("sglang"), doctest::Contains("unknown framework 'sglang'"),
                         synperf::invalid_argument);
}

TEST_CASE("elementwise: theoretical time is non-decreasing in rows for every kind, within one kernel") {
    for (const auto* g : {&synperf::hw::a100_sxm::numbers, &synperf::hw::h100_sxm::numbers, &synperf::hw::l40s::numbers}) {
        for (int variant = 0; variant < 5; ++variant) {
            // The four kinds, then the embedding gather with current PyTorch's vectorized kernel.
            const auto kind = variant < 4 ? static_cast<elementwise_kind>(variant) : elementwise_kind::embedding;
            if (kind == elementwise_kind::fp8_quantize && g->sm_version() < 89) continue;  // no e4m3 conversion
            elementwise_problem p;
            p.kind = kind;
            p.gather = variant == 4 ? gather_kernel::vectorized : gather_kernel::index_select;
            p.cols = 8192;
            p.heads = 64;
            p.kv_heads = 8;
            p.head_dim = 128;
            p.vocab = 128256;
            double last = 0;
            for (std::int64_t m = 1; m <= 32768; m *= 2) {
                p.rows = m;
                const auto r = synperf::predictor_detail::analyze<elementwise>(p, *g, synperf::predictor_detail::schedule_by_dispatch{});
                // The embedding gather switches from PyTorch's small-index kernel (each thread walks every
                // index: 16 dependent gathers) to the large-index (or vectorized) one beyond 16 rows, and gets
                // faster; Vidur's A100 rows show it (Llama-2-70B: 14 us at 16 tokens, 5 us at 24).
                if (kind == elementwise_kind::embedding && m == 32) last = 0;
                CHECK(r.theoretical_us >= last);
                last = r.theoretical_us;
                for (double f : r.features) CHECK(f >= 0);
            }
        }
    }
}
