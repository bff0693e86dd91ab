// SPDX-License-Identifier: Apache-2.0
#pragma once
/// \file Dao FlashAttention-2 (csrc/flash_attn): one CTA per (m-block, request, head), hardware dispatch.
///
/// Prefill: grid (ceil(max_q / kBlockM), batch, heads), tiles per head dim and architecture
/// (flash_fwd_launch_template.h run_mha_fwd_hdim*), smem (kBlockM + 2 kBlockN) d x 2 B, a causal CTA
/// visiting ceil(((m + 1) kBlockM + Sk - Sq) / kBlockN) KV blocks (flash_fwd_kernel.h). Decode: the split-KV
/// kernel (kBlockM 64, 4 warps) with the query heads of a KV head swapped into the M dim
/// (seqlenq_ngroups_swapped), num_splits_heuristic over 2 x SMs and the combine kernel when split
/// (flash_api.cpp). Sources: docs/kernels.md#flashattention-2, docs/kernels.md#attention-decode;
/// flash-attention @0251105a csrc/flash_attn.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "synperf/error.hpp"
#include "synperf/family/attention/kernel_plan.hpp"
#include "synperf/family/attention/op_work.hpp"
#include "synperf/family/attention/problem.hpp"
#include "synperf/family/attention/tile_classes.hpp"
#include "synperf/gpu/numbers.hpp"
#include "synperf/work/launch.hpp"
#include "synperf/work/task.hpp"

namespace synperf::family::attention {

namespace fa2_detail {

/// A FlashAttention-2 CTA tile.
struct tile {
    int m = 0, n = 0, warps = 4;
};

/// Head dimension a kernel is compiled for (HEADDIM_SWITCH).
[[nodiscard]] constexpr int round_up_headdim(int d) noexcept {
    return d <= 32 ? 32 : d <= 64 ? 64 : d <= 96 ? 96 : d <= 128 ? 128 : d <= 160 ? 160 : d <= 192 ? 192 : 256;
}

/// Forward tile without dropout (flash_fwd_launch_template.h). `sm8x`: cc 8.6/8.7/8.9 (major 8, minor > 0).
[[nodiscard]] constexpr tile prefill_tile(int d, bool causal, bool sm8x, int smem_per_block, int smem_per_sm) noexcept {
    if (d <= 64) return {128, 128, 4};
    if (d <= 96) return sm8x && causal ? tile{64, 64, 4} : tile{128, 64, 4};
    if (d <= 128) return sm8x ? (causal ? tile{64, 64, 4} : tile{128, 32, 4}) : tile{128, 64, 4};
    if (d <= 192) return {128, 64, 8};
    // hdim 256: 128 x 64 x 8 warps when a block may use >= 2 d (128 + 2 x 64) B and the SM has < 4 d (64 + 2 x 64) B.
    if (smem_per_block >= 2 * d * (128 + 2 * 64) && smem_per_sm < 4 * d * (64 + 2 * 64)) return {128, 64, 8};
    return {64, 64, 4};
}

/// Split-KV kernel tile: kBlockM 64, 4 warps; kBlockN 256/128/64 when split, 128/64 for one split
/// (run_mha_fwd_splitkv_dispatch, run_mha_fwd_splitkv_align).
[[nodiscard]] constexpr tile split_tile(int d, int splits) noexcept {
    if (splits > 1) return {64, d <= 64 ? 256 : (d <= 128 ? 128 : 64), 4};
    return {64, d <= 64 ? 128 : 64, 4};
}

/// flash_api.cpp num_splits_heuristic (FA2: split counts giving the same blocks per split are skipped).
[[nodiscard]] inline int num_splits_heuristic(std::int64_t batch_heads_mblocks, int sms, std::int64_t n_blocks, int max_splits) {
    if (double(batch_heads_mblocks) >= 0.8 * sms) return 1;
    const int most = int(std::min<std::int64_t>({max_splits, sms, n_blocks}));
    const auto eligible = [&](int s) {
        return s == 1 || flash_detail::ceil_div(n_blocks, s) != flash_detail::ceil_div(n_blocks, s - 1);
    };
    std::vector<float> eff(std::size_t(std::max(most, 0)), 0.f);
    float best = 0.f;
    for (int s = 1; s <= most; ++s) {
        if (!eligible(s)) continue;
        const float waves = float(batch_heads_mblocks * s) / float(sms);
        eff[std::size_t(s - 1)] = waves / std::ceil(waves);
        best = std::max(best, eff[std::size_t(s - 1)]);
    }
    for (int s = 1; s <= most; ++s)
        if (eligible(s) && eff[std::size_t(s - 1)] >= 0.85f * best) return s;
    return 1;
}

}  // namespace fa2_detail

/// Dao FlashAttention-2 forward: prefill kernel, split-KV decode kernel and its combine kernel.
struct fa2 {
    static constexpr kernel_impl impl = kernel_impl::fa2;

    /// Ampere and newer (sm_80 to sm_120), 16-bit Q/K/V with d == dv <= 256 (FA2 has no FP8 path).
    [[nodiscard]] static bool supports(const attention_problem& p, const gpu::gpu_numbers& g) noexcept {
        if (g.cc_major < 8) return false;
        if (p.fp8_compute || p.kv_type != kv_dtype::bf16) return false;
        return p.dv() == p.head_dim && p.head_dim > 0 && p.head_dim <= 256 && p.head_dim % 8 == 0;
    }

    /// The attention kernel (and its combine kernel when split) for problem `p` on GPU `g`.
    [[nodiscard]] static attention_plan plan(const attention_problem& p, const gpu::gpu_numbers& g) {
        using flash_detail::ceil_div;
        validate(p);
        if (!supports(p, g))
            synperf::detail::report_error("attention: fa2 has no kernel for head_dim " + std::to_string(p.head_dim) +
                                          ", v_head_dim " + std::to_string(p.dv()) +
                                          (p.kv_type != kv_dtype::bf16 ? ", FP8 KV" : "") + " on compute capability " +
                                          std::to_string(g.cc_major) + "." + std::to_string(g.cc_minor));
        const int d = fa2_detail::round_up_headdim(p.head_dim);
        const flash_detail::mask m = flash_detail::mask_of(p);
        const bool decode = p.stage == phase::decode;
        std::int64_t max_q = 0, max_kv = 0;
        for (const request_group& r : p.requests) {
            max_q = std::max(max_q, r.q_len);
            max_kv = std::max(max_kv, r.kv_len);
        }

        // Decode with GQA and no window folds the g query heads into the M dim (seqlenq_ngroups_swapped).
        const bool swapped = decode && p.group_size() > 1 && m.window == 0;
        const std::int64_t pack = swapped ? p.group_size() : 1;
        const std::int64_t heads = swapped ? p.kv_heads : p.heads;
        int splits = 1;
        fa2_detail::tile t;
        if (decode) {
            const std::int64_t m_blocks = ceil_div(max_q * pack, 64);
            const std::int64_t n_blocks = ceil_div(max_kv, fa2_detail::split_tile(d, 2).n);
            // "We multiply number of SMs by 2 to hard-code the fact that we're using 128 threads per block."
            splits = fa2_detail::num_splits_heuristic(p.batch() * heads * m_blocks, 2 * g.sm_count, n_blocks, 128);
            t = fa2_detail::split_tile(d, splits);
        } else {
            const bool sm8x = g.cc_major == 8 && g.cc_minor > 0;
            t = fa2_detail::prefill_tile(d, m.causal, sm8x, g.smem_per_cta_bytes, g.smem_per_sm_bytes);
        }
        const int threads = 32 * t.warps;

        // Grid (m-blocks of the longest request, batch [x splits], heads): CTAs past a request's rows exit.
        const std::int64_t max_m_blocks = ceil_div(max_q * pack, t.m);
        flash_detail::unit_tally tally(ceil_div(max_kv, t.n));  // no unit visits more KV blocks than the longest request has
        for (const request_group& r : p.requests) {
            const std::int64_t mb = ceil_div(r.q_len * pack, t.m);
            const std::int64_t units = r.count * heads;
            for (std::int64_t b = 0; b < mb; ++b) {
                const flash_detail::block_range range = flash_detail::kv_blocks(r, m, pack, b * t.m, t.m, t.n);
                if (splits <= 1) {
                    tally.add(range.size(), false, units);
                    continue;
                }
                // Split s takes blocks [s nps, (s + 1) nps) of the request's ceil(Sk / kBlockN) blocks.
                const std::int64_t n_total = ceil_div(r.kv_len, t.n);
                const std::int64_t per = ceil_div(n_total, splits);
                for (std::int64_t s = 0; s < splits; ++s) {
                    const flash_detail::block_range part{std::max(range.first, s * per), std::min(range.last, (s + 1) * per)};
                    tally.add(part.size(), true, units);
                }
            }
            tally.add(0, false, (max_m_blocks - mb) * units * splits);
        }

        flash_detail::unit_shape shape;
        shape.tile_q = t.m;
        shape.tile_kv = t.n;
        shape.head_dim = p.head_dim;
        shape.v_head_dim = p.dv();
        shape.mma_issue = gpu::mma_issue::warp_sync;
        const work::task_work floor = compulsory_attention_work(p, g, gpu::mma_issue::warp_sync);

        attention_plan out;
        out.implementation = impl;
        out.tile_q = t.m;
        out.tile_kv = t.n;
        out.splits = splits;
        out.pack_gqa = swapped;
        const op_bytes bytes = compulsory_bytes(p);
        out.kv_footprint_bytes = bytes.kv;
        out.q_o_bytes = bytes.q + bytes.o;
        out.variant = decode ? (splits > 1 ? "fa2_splitkv" : "fa2_splitkv_single") : "fa2_fwd";

        work::kernel_launch main;
        main.name = std::string(decode ? "flash_fwd_splitkv_kernel_" : "flash_fwd_kernel_") + std::to_string(t.m) + "x" +
                    std::to_string(t.n) + "_" + std::to_string(t.warps) + "w_hdim" + std::to_string(d);
        const int smem = (t.m + 2 * t.n) * d * 2;  // Q + K + V tiles, single-buffered K/V (kernel_traits.h)
        main.launch = {threads, flash_detail::mma_sync_registers(t.m, t.n, d, threads), work::tile_smem(smem, smem, g, main.name)};
        main.dispatch = work::dispatch_kind::hardware;
        main.tasks = flash_detail::make_classes(tally.finish(), shape, floor.dram_bytes);
        main.compulsory = floor;
        out.kernels.push_back(std::move(main));

        if (splits > 1) {
            // flash_fwd_splitkv_combine_kernel: grid ceil(b h Sq / kBlockM), kBlockM = 4 / 8 / 16 rows
            // (d % 128 == 0 / d % 64 == 0 / else), 128 threads.
            flash_detail::combine_shape cs;
            cs.block_rows = d % 128 == 0 ? 4 : (d % 64 == 0 ? 8 : 16);
            cs.block_cols = d;
            cs.threads = 128;
            const std::int64_t rows = p.batch() * heads * max_q * pack;
            work::kernel_launch comb;
            comb.name = "flash_fwd_splitkv_combine_kernel_" + std::to_string(cs.block_rows) + "x" + std::to_string(d);
            comb.launch = {cs.threads, 64, cs.block_rows * d * 4 + 128 * 4};
            comb.dispatch = work::dispatch_kind::hardware;
            comb.tasks.push_back({flash_detail::combine_cta_work(cs, p.dv(), splits), ceil_div(rows, cs.block_rows)});
            comb.compulsory = work::task_work{};  // splitting is the library's choice (op_work.hpp)
            out.kernels.push_back(std::move(comb));
        }
        out.attention_kernels = out.kernels.size();
        return out;
    }
};

static_assert(AttentionKernel<fa2>);

}  // namespace synperf::family::attention
