// SPDX-License-Identifier: Apache-2.0
#pragma once
/// \file SGLang's Triton attention backend (python/sglang/srt/layers/attention/triton_backend.py and
/// triton_ops/{extend_attention,decode_attention}.py), as launched on NVIDIA GPUs.
///
/// Extend (prefill): grid (batch, heads, ceil(max extend length / BLOCK_M)), one CTA per (request, query
/// head, query block), hardware dispatch; CTAs past a shorter request's end exit at once. A CTA walks the
/// cached prefix in BLOCK_N steps, then the new tokens up to its block's end (causal). BLOCK_M x BLOCK_N
/// per architecture and head dim (_get_block_sizes_for_extend_attention): sm_120 and sm_86/89 (~100 KB
/// shared memory): d <= 128: 64 x 128, d <= 256: 64 x 64, else 32 x 32; sm_100: d <= 256: 64 x 64, else
/// 16 x 64; sm_90: d <= 128: 128 x 64, d <= 256: 64 x 64, else 32 x 64; sm_80: d <= 128: 128 x 128,
/// d <= 256: 64 x 64, else 32 x 64. num_warps 4 (d <= 64) or 8, one stage. (Read from a recent SGLang
/// main; the 0.5.10 release in the data may differ in the Blackwell rows.)
/// Decode, two kernels:
/// - stage 1: g == 1: grid (batch, heads, max_kv_splits), a dot product per key on CUDA cores (BLOCK_N
///   64); g > 1: the grouped kernel, grid (batch, ceil(heads / min(16, g)), max_kv_splits), 16 padded query
///   rows per CTA on tensor cores (tl.dot, BLOCK_N 32). Split s of a request covers
///   ceil(ceil(kv / splits_b) / 32) * 32 tokens; CTAs past splits_b exit. Each writes FP32 partial O + LSE.
/// - stage 2 (softmax reduce): grid (batch, heads), merges the splits.
/// splits_b (get_num_kv_splits_triton): with uniform lengths, splits = min(ceil(SMs * max(log2(kv / 64), 1)
/// / token_grid), max_kv_splits), token_grid = batch x heads (g == 1) or batch x ceil(heads / min(16, g));
/// max_kv_splits = 8 (server default triton_attention_num_kv_splits). Ragged batches also split by the
/// max/min length ratio, as the kernel does.
/// FP8 caches are loaded as FP8 and scaled to 16 bit before the math (no FP8 MMA).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "synperf/family/attention/flash_tile.hpp"
#include "synperf/family/attention/kernel_plan.hpp"
#include "synperf/family/attention/op_work.hpp"
#include "synperf/family/attention/problem.hpp"
#include "synperf/family/triton_dot.hpp"
#include "synperf/gpu/numbers.hpp"
#include "synperf/work/launch.hpp"
#include "synperf/work/task.hpp"

namespace synperf::family::attention {

namespace triton_detail {

using op_detail::ceil_div;
using op_detail::round_up;

inline constexpr int max_kv_splits = 8;   // ServerArgs.triton_attention_num_kv_splits
inline constexpr int min_block_kv = 32;   // _MIN_BLOCK_KV
inline constexpr int grouped_block_h = 16;

struct block_sizes {
    int m = 64, n = 64;
};

/// BLOCK_M x BLOCK_N of the extend kernel.
[[nodiscard]] constexpr block_sizes extend_blocks(const gpu::gpu_numbers& g, int d) noexcept {
    const bool small_smem = g.cc_major == 12 || (g.cc_major == 8 && (g.cc_minor == 6 || g.cc_minor == 9));
    if (small_smem) return d <= 128 ? block_sizes{64, 128} : d <= 256 ? block_sizes{64, 64} : block_sizes{32, 32};
    if (g.cc_major == 10 || g.cc_major == 11) return d <= 256 ? block_sizes{64, 64} : block_sizes{16, 64};
    if (g.cc_major >= 9) return d <= 128 ? block_sizes{128, 64} : d <= 256 ? block_sizes{64, 64} : block_sizes{32, 64};
    return d <= 128 ? block_sizes{128, 128} : d <= 256 ? block_sizes{64, 64} : block_sizes{32, 64};
}

[[nodiscard]] constexpr int next_pow2(int v) noexcept {
    int p = 1;
    while (p < v) p *= 2;
    return p;
}

/// Per-request KV splits (get_num_kv_splits_triton).
[[nodiscard]] inline std::vector<int> kv_splits(const attention_problem& p, const gpu::gpu_numbers& g) {
    std::int64_t max_len = 0, min_len = std::int64_t{1} << 62;
    for (const auto& r : p.requests) {
        max_len = std::max(max_len, r.kv_len);
        min_len = std::min(min_len, r.kv_len);
    }
    if (max_len * 8 < min_len * 10) min_len = max_len;
    const std::int64_t splits_1 = std::min<std::int64_t>(ceil_div(max_len, min_len), max_kv_splits);
    const std::int64_t chunk_1 = ceil_div(max_len, splits_1);
    const double ext_len = double(max_len) / 64.0;
    const auto ext_cores = std::int64_t(double(g.sm_count) * std::max(std::log2(std::max(ext_len, 1e-9)), 1.0));
    const int grp = p.group_size();
    const std::int64_t token_grid = grp == 1 ? p.batch() * p.heads
                                             : p.batch() * ceil_div(p.heads, std::min(grouped_block_h, grp));
    const std::int64_t splits_2 = std::max<std::int64_t>(1, std::min<std::int64_t>(ceil_div(ext_cores, token_grid), max_kv_splits));
    const std::int64_t chunk_2 = ceil_div(max_len, splits_2);
    std::vector<int> out;
    out.reserve(p.requests.size());
    for (const auto& r : p.requests)
        out.push_back(int(std::max(ceil_div(r.kv_len, chunk_1), ceil_div(r.kv_len, chunk_2))));
    return out;
}

inline attention_plan plan_extend(const attention_problem& p, const gpu::gpu_numbers& g) {
    attention_plan out;
    out.implementation = kernel_impl::triton;
    const int d = p.head_dim, dv = p.dv();
    const block_sizes b = extend_blocks(g, d);
    out.tile_q = b.m;
    out.tile_kv = b.n;
    out.variant = "triton_extend";
    flash_tile_shape base;
    base.head_dim = next_pow2(d);  // BLOCK_DMODEL / BLOCK_DV pad to powers of two
    base.v_head_dim = next_pow2(dv);
    base.q_bytes = q_element_bytes(p);
    // New tokens' K/V as they arrive (bf16 unless already FP8); cached prefix converted on load (approximation).
    base.kv_bytes = p.fp8_inputs ? 1.0 : 2.0;
    const triton_dot dot = triton_dot_of(b.m, op_detail::math_type(p, g), g);  // tl.dot in the query's type
    base.mma_type = dot.type;
    base.mma_issue = dot.issue;
    work::kernel_launch k;
    const int warps = d <= 64 ? 4 : 8;
    // One stage: Q block, one K and one V block in shared memory.
    const double smem = double(b.m * base.head_dim + b.n * (base.head_dim + base.v_head_dim)) * 2;
    const int regs = int(std::min<std::int64_t>(255, round_up(48 + std::int64_t(b.m) * (b.n + base.v_head_dim) / (warps * 32), 8)));
    k.name = "_fwd_kernel_extend_M" + std::to_string(b.m) + "_N" + std::to_string(b.n) + "_D" + std::to_string(d);
    k.launch = {warps * 32, regs, work::tile_smem(smem, smem, g, k.name)};
    k.dispatch = work::dispatch_kind::hardware;
    op_detail::add_prefill_tiles(k, p, b.m, b.n, base, false);
    // The grid spans the longest request: shorter requests' extra query blocks exit at once.
    std::int64_t max_q = 0;
    for (const auto& r : p.requests) max_q = std::max(max_q, r.q_len);
    std::int64_t idle = 0;
    for (const auto& r : p.requests) idle += (ceil_div(max_q, b.m) - ceil_div(r.q_len, b.m)) * r.count * p.heads;
    if (idle > 0) k.tasks.push_back({work::task_work{}, idle});
    k.compulsory = compulsory_attention_work(p, g, dot.issue);
    k.compulsory->tensor_type = dot.type;
    op_detail::spread_dram(k, k.compulsory->dram_bytes);
    out.kernels.push_back(std::move(k));
    return out;
}

inline attention_plan plan_decode(const attention_problem& p, const gpu::gpu_numbers& g) {
    attention_plan out;
    out.implementation = kernel_impl::triton;
    out.variant = "triton_decode";
    const int d = p.head_dim, dv = p.dv(), grp = p.group_size();
    const std::vector<int> splits = kv_splits(p, g);
    const bool grouped = grp > 1;
    const int valid_h = grouped ? std::min(grouped_block_h, grp) : 1;
    const std::int64_t head_units = grouped ? ceil_div(p.heads, valid_h) : p.heads;
    flash_tile_shape base;
    base.head_dim = next_pow2(d);
    base.v_head_dim = next_pow2(dv);
    base.q_bytes = q_element_bytes(p);
    base.kv_bytes = p.kv_bytes_per_element();
    base.rows = grouped ? grouped_block_h : 1;
    base.tensor_cores = grouped;
    base.fma_lanes_per_issue = g.fma_lanes_per_issue();
    const triton_dot dot = triton_dot_of(int(base.rows), op_detail::math_type(p, g), g);
    base.mma_type = dot.type;
    base.mma_issue = dot.issue;
    const int block_n = grouped ? 32 : 64;
    out.tile_q = int(base.rows);
    out.tile_kv = block_n;
    out.pack_gqa = grouped;

    work::kernel_launch s1;
    s1.name = std::string(grouped ? "_fwd_grouped_kernel_stage1" : "_fwd_kernel_stage1") + "_D" + std::to_string(d) + "_splits" +
              std::to_string(max_kv_splits);
    const int warps = grouped ? 4 : (grp == 1 ? 4 : 2);
    const double q_rows = double(base.rows) * base.head_dim * 2, kv_stage = double(block_n) * (base.head_dim + base.v_head_dim) * 2;
    s1.launch = {warps * 32, 128, work::tile_smem(2 * kv_stage + q_rows, kv_stage + q_rows, g, s1.name)};
    s1.dispatch = work::dispatch_kind::hardware;
    // Partial output per CTA: FP32 O rows and one LSE per row.
    const double partial_per_cta = double(valid_h) * (double(dv) * 4.0 + 4.0);
    std::int64_t used_splits = 1;
    for (std::size_t i = 0; i < p.requests.size(); ++i) {
        const request_group& r = p.requests[i];
        const int sp = splits[i];
        const std::int64_t kv = std::max<std::int64_t>(1, std::int64_t(reachable_kv(p, r)));
        const std::int64_t chunk = round_up(ceil_div(kv, sp), min_block_kv);
        const std::int64_t full = std::min<std::int64_t>(kv / chunk, sp);
        const std::int64_t rest = kv - full * chunk;
        const std::int64_t used = full + (rest > 0 ? 1 : 0);
        // The split count the model sees is the chunks that hold keys: rounding a chunk up to 32 tokens
        // leaves the rest of a short sequence's splits empty (16 tokens over 8 splits is one chunk).
        used_splits = std::max(used_splits, used);
        const std::int64_t count = r.count * head_units;
        const auto cta = [&](std::int64_t tokens) {
            flash_tile_shape s = base;
            s.kv = double(round_up(tokens, block_n));
            work::task_work w = flash_tile_work(s);
            w.l2_bytes += partial_per_cta;
            return w;
        };
        // The grid's split axis is max_kv_splits wide; CTAs past this request's splits exit at once.
        const std::int64_t empty = std::max<std::int64_t>(0, max_kv_splits - used);
        if (full > 0) s1.tasks.push_back({cta(chunk), count * full});
        if (rest > 0) s1.tasks.push_back({cta(rest), count});
        if (empty > 0) s1.tasks.push_back({work::task_work{}, count * empty});
        // Round trips in order: the lengths and the split count; then the query and the first key block's
        // indices; then per key block its K and V gathers (the next block's indices load meanwhile). An empty
        // CTA stops after the first.
        const auto trips = [&](std::int64_t tokens) { return 2.0 + double(ceil_div(tokens, std::int64_t(block_n))); };
        s1.cta_round_trips += double(count) * (double(full) * trips(chunk) + (rest > 0 ? trips(rest) : 0.0) + double(empty));
    }
    s1.compulsory = compulsory_attention_work(p, g, dot.issue);
    s1.compulsory->tensor_type = dot.type;
    double partials = 0;
    for (std::size_t i = 0; i < p.requests.size(); ++i)
        partials += double(p.requests[i].count) * p.heads * splits[i] * (double(dv) * 4.0 + 4.0);
    // Expected DRAM: the compulsory bytes, plus the partials when they do not fit in half of L2.
    op_detail::spread_dram(s1, s1.compulsory->dram_bytes + (partials > 0.5 * g.l2_bytes ? partials : 0.0));
    out.kernels.push_back(std::move(s1));
    out.splits = int(used_splits);

    work::kernel_launch s2;
    s2.name = "_fwd_kernel_stage2_D" + std::to_string(d);
    s2.launch = {128, 64, 0};
    s2.dispatch = work::dispatch_kind::hardware;
    for (std::size_t i = 0; i < p.requests.size(); ++i) {
        work::task_work w;
        const double sp = splits[i];
        w.l2_bytes = sp * (double(dv) * 4.0 + 4.0) + double(dv) * 2.0;
        w.fma_ops = sp * double(dv) * 2.0;
        w.xu_ops = sp * 2.0;
        w.dram_bytes = partials > 0.5 * g.l2_bytes ? sp * (double(dv) * 4.0 + 4.0) : 0.0;
        s2.tasks.push_back({w, p.requests[i].count * p.heads});
        // The lengths and split count, then a split's partial O and LSE (the merge loop waits for each).
        s2.cta_round_trips += 2.0 * double(p.requests[i].count * p.heads);
    }
    // Splitting is the library's choice: nothing of the merge is compulsory (the op's bound stays that of
    // the attention itself).
    s2.compulsory = work::task_work{};
    out.kernels.push_back(std::move(s2));
    return out;
}

}  // namespace triton_detail

/// SGLang's Triton attention backend: the extend kernel for prefill, two-stage split-KV decode.
struct triton {
    static constexpr kernel_impl impl = kernel_impl::triton;

    /// Any NVIDIA GPU Triton targets (sm_80 and newer); FP8 math (an FP8 query) where the GPU has FP8 MMA.
    [[nodiscard]] static bool supports(const attention_problem& p, const gpu::gpu_numbers& g) noexcept {
        return g.cc_major >= 8 && (!p.fp8_compute || g.tensor_fp8_flop_per_clk > 0) && p.head_dim <= 1024 && p.dv() <= 1024;
    }

    /// Kernels of one attention op (pre-processing not included).
    [[nodiscard]] static attention_plan plan(const attention_problem& p, const gpu::gpu_numbers& g) {
        validate(p);
        attention_plan out = p.stage == phase::prefill ? triton_detail::plan_extend(p, g) : triton_detail::plan_decode(p, g);
        const op_bytes b = compulsory_bytes(p);
        out.kv_footprint_bytes = b.kv;
        out.q_o_bytes = b.q + b.o;
        out.attention_kernels = out.kernels.size();
        return out;
    }
};

static_assert(AttentionKernel<triton>);

}  // namespace synperf::family::attention
