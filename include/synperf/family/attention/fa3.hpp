// SPDX-License-Identifier: Apache-2.0
#pragma once
/// \file FlashAttention-3 as SGLang's `flash_attention` backend (sgl-kernel) and vLLM run it.
///
/// One code base (flash-attention hopper/), two kernels: on sm_90 FlashAttnFwdSm90 (TMA + wgmma, warp
/// specialized, one CTA per SM, persistent tile schedulers); on sm_8x (and, here, sm_12x) FlashAttnFwdSm80
/// (cp.async + mma.sync, one CTA per tile unless split). Both serving frameworks call the varlen API with a
/// page table, so every batch is varlen: the number of splits comes from the varlen dynamic rule, PackGQA
/// is on whenever heads share a KV head, and sm_90 always runs a persistent scheduler (longest first:
/// LPT for causal/local, batches sorted by length otherwise). Decode is the same kernel with one query
/// per request (the g query heads of a KV head packed into the M tile). Sources: docs/kernels.md#flashattention-3;
/// hopper/tile_size.h, heuristics.h, flash_api.cpp, flash_fwd_launch_template.h, flash_prepare_scheduler.cu,
/// block.h (flash-attention @0251105a).
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

namespace fa3_detail {

using flash_detail::ceil_div;

/// Head dimension a kernel is compiled for (flash_api.cpp round_up_headdim).
[[nodiscard]] constexpr int round_up_headdim(int d) noexcept {
    return d <= 64 ? 64 : d <= 96 ? 96 : d <= 128 ? 128 : d <= 192 ? 192 : 256;
}
/// V head dimension a kernel is compiled for (flash_api.cpp round_up_headdimv).
[[nodiscard]] constexpr int round_up_headdim_v(int dv) noexcept {
    return dv <= 64 ? 64 : dv <= 96 ? 96 : dv <= 128 ? 128 : dv <= 192 ? 192 : dv <= 256 ? 256 : 512;
}

/// CTA tile of a kernel.
struct tile {
    int m = 0, n = 0;
    int warps = 0;        ///< sm_8x: MMA warps (sm_90: derived from m)
    int stages = 2;       ///< K/V smem stages
    bool q_in_regs = false;
};

/// sm_90 tile (hopper/tile_size.h tile_size_fwd_sm90), for rounded head dims and element bytes `es`.
[[nodiscard]] constexpr tile tile_sm90(int d, int dv, bool causal, bool local, int es, bool paged_non_tma) noexcept {
    if (es == 2) {
        if (d <= 64) {
            if (dv == 512) return {64, 64};
            if (dv == 256) return {128, 96};
            return {192, (causal || local || paged_non_tma) ? 128 : 192};
        }
        if (d <= 96) return {192, (local || paged_non_tma) ? 128 : 144};
        if (d <= 128) return {128, (causal || local || paged_non_tma) ? 128 : 176};
        if (d <= 192) return {128, (paged_non_tma || local) ? 96 : (dv <= 128 ? 128 : 112)};
        return {128, local ? 64 : 80};
    }
    if (d <= 64) return {192, 160};
    if (d <= 96) return {192, 128};
    if (d <= 128) return {128, paged_non_tma ? 160 : 224};
    if (d <= 192) return {128, 160};
    return {128, local ? 64 : 128};
}

/// sm_8x tile (hopper/tile_size.h tile_size_fwd_sm8x), 16-bit only.
[[nodiscard]] constexpr tile tile_sm8x(bool sm86_or_89, int d, bool local, bool paged, bool varlen_and_split) noexcept {
    if (d <= 64) return {128, varlen_and_split ? 80 : (local ? 96 : 112), 4, 1, false};
    if (d <= 96) return {128, (varlen_and_split || local) ? 48 : 64, 4, 1, false};
    if (d <= 128) {
        const bool eight = sm86_or_89 || varlen_and_split;
        const int n = eight ? (varlen_and_split ? (local ? 96 : 112) : (local ? 96 : 128)) : (local ? 48 : 64);
        return {128, n, eight ? 8 : 4, 1, eight};
    }
    if (d <= 192) {
        const bool n64 = local || varlen_and_split || paged;
        return {128, n64 ? 64 : 96, 8, sm86_or_89 ? 1 : 2, !n64};
    }
    return {128, sm86_or_89 ? ((varlen_and_split || local) ? 48 : 64) : ((varlen_and_split || local) ? 64 : 96), 8, 1,
            sm86_or_89};
}

/// hopper/heuristics.h num_splits_heuristic: 1 split when the m-blocks nearly fill the SMs (unless one KV
/// head exceeds 50 MiB of L2, non-causal, and there are many m-blocks); else the fewest splits within 85 %
/// of the best wave efficiency.
[[nodiscard]] inline int num_splits_heuristic(std::int64_t total_mblocks, int sms, std::int64_t n_blocks,
                                              std::int64_t m_blocks, double size_one_kv_head, bool causal_or_local,
                                              int max_splits) {
    if (double(total_mblocks) >= 0.8 * sms) {
        const double l2 = 50.0 * 1024 * 1024;
        if (size_one_kv_head > l2 && m_blocks >= 2 * std::int64_t{sms} && !causal_or_local)
            return int(std::min<double>(std::ceil(size_one_kv_head / l2), max_splits));
        return 1;
    }
    if (n_blocks <= 4) return 1;
    const int most = int(std::min<std::int64_t>({max_splits, sms, n_blocks}));
    float best = 0.f;
    std::vector<float> eff(std::size_t(std::max(most, 0)));
    for (int s = 1; s <= most; ++s) {
        const float waves = float(total_mblocks * s) / float(sms);
        eff[std::size_t(s - 1)] = waves / std::ceil(waves);
        best = std::max(best, eff[std::size_t(s - 1)]);
    }
    for (int s = 1; s <= most; ++s)
        if (eff[std::size_t(s - 1)] >= 0.85f * best) return s;
    return 1;
}

}  // namespace fa3_detail

/// FA3's launch choices for one problem on one GPU.
struct fa3_config {
    bool sm90 = false;            ///< FlashAttnFwdSm90 (else the Sm80 path)
    fa3_detail::tile tile;        ///< CTA tile
    int threads = 0, regs = 0, smem = 0;
    double smem_essential = 0;    ///< shared memory of one stage: the Q tile and one K and V tile
    int splits = 1;               ///< static upper bound on KV splits (heuristics.h); per-request splits may be fewer
    bool pack_gqa = false;        ///< query heads of a KV head packed into the M tile
    bool paged_tma = false;       ///< sm_90 loads the paged KV with TMA (page size a multiple of the KV tile)
    work::dispatch_kind dispatch = work::dispatch_kind::hardware;
    std::int64_t persistent_ctas = 0;  ///< persistent grid (0: one CTA per tile)
};

/// FlashAttention-3 (hopper/ code base) as SGLang and vLLM call it: varlen, paged KV.
struct fa3 {
    static constexpr kernel_impl impl = kernel_impl::fa3;

    /// sm_90 (FlashAttnFwdSm90, FP8 math too), sm_8x and sm_12x (Sm80 path, 16-bit); no sm_100 path.
    /// Head dims up to 256 (dv 512 with d <= 64 and dv != d only on sm_90).
    [[nodiscard]] static bool supports(const attention_problem& p, const gpu::gpu_numbers& g) noexcept {
        const int d = p.head_dim, dv = p.dv();
        if (d <= 0 || d > 256 || d % 8 != 0 || dv % 8 != 0) return false;
        const bool same = fa3_detail::round_up_headdim(d) == fa3_detail::round_up_headdim_v(dv);
        if (g.cc_major == 9) {
            if (same) return true;
            if (p.fp8_compute) return false;
            return (d <= 64 && dv <= 512) || (d > 128 && d <= 192 && dv <= 128);
        }
        if (g.cc_major == 8 || g.cc_major == 12) return same && !p.fp8_compute;
        return false;
    }

    /// Tiles, splits, PackGQA and scheduler FA3 picks (flash_api.cpp mha_fwd with varlen + page table).
    [[nodiscard]] static fa3_config configure(const attention_problem& p, const gpu::gpu_numbers& g) {
        using namespace fa3_detail;
        const flash_detail::mask m = flash_detail::mask_of(p);
        const bool local = m.local(), causal = m.causal && !local;
        const int d = round_up_headdim(p.head_dim);
        const int dv = p.dv() == p.head_dim ? d : round_up_headdim_v(p.dv());
        const int es = p.fp8_compute ? 1 : 2;
        const int group = p.group_size();
        std::int64_t max_q = 0, max_kv = 0;
        for (const request_group& r : p.requests) {
            max_q = std::max(max_q, r.q_len);
            max_kv = std::max(max_kv, r.kv_len);
        }
        constexpr bool varlen = true;  // both frameworks call the varlen API
        fa3_config c;
        c.sm90 = g.cc_major == 9;
        if (c.sm90) {
            const tile tma = tile_sm90(d, dv, causal, local, es, false);
            c.paged_tma = p.page_size % tma.n == 0 && max_q * group > tma.m;  // get_pagedkv_tma
            c.tile = tile_sm90(d, dv, causal, local, es, !c.paged_tma);
        } else {
            const bool sm86 = (g.cc_major == 8 && (g.cc_minor == 6 || g.cc_minor == 9)) || g.cc_major == 12;
            c.tile = tile_sm8x(sm86, d, local, true, varlen);  // get_num_splits sizes with the split tile
        }
        // get_num_splits: varlen uses dynamic splits, so the static bound assumes batch 1.
        const std::int64_t window_left = m.window - 1;
        const std::int64_t kv_loaded = !local ? max_kv : std::max<std::int64_t>(0, std::min(max_kv, window_left + 1 + c.tile.m));
        const std::int64_t n_blocks = ceil_div(kv_loaded, c.tile.n);
        const std::int64_t m_blocks = ceil_div(max_q * group, c.tile.m);
        const double kv_head_bytes = double(max_kv) * double(p.head_dim + p.dv()) * es;
        c.splits = num_splits_heuristic(std::int64_t{p.kv_heads} * m_blocks, g.sm_count, n_blocks, m_blocks,
                                        kv_head_bytes, causal || local, 128);
        const bool paged_non_tma = !c.sm90 || !c.paged_tma;
        c.pack_gqa = !c.sm90 || paged_non_tma || c.splits > 1 || (p.heads != p.kv_heads /* varlen: always pack */);
        if (c.sm90) {
            const int consumers = c.tile.m / 64;
            c.threads = 128 * consumers + 128;
            c.regs = flash_detail::warp_specialized_registers(g, c.threads);
            const double q_tile = double(c.tile.m) * d * es, kv_stage = double(c.tile.n) * double(d + dv) * es;
            const double smem = q_tile + 2.0 * kv_stage + double(c.tile.m) * dv * 2.0;
            c.smem = int(std::min<double>(smem, g.smem_per_cta_bytes));
            c.smem_essential = q_tile + kv_stage;
            // flash_fwd_launch_template.h: persistent unless split without varlen.
            const bool persistent = !(c.splits > 1 && !varlen);
            c.dispatch = !persistent ? work::dispatch_kind::hardware
                         : (varlen || causal || local) ? work::dispatch_kind::persistent_longest_first
                                                       : work::dispatch_kind::persistent_static;
            c.persistent_ctas = persistent ? g.sm_count : 0;
        } else {
            const bool sm86 = (g.cc_major == 8 && (g.cc_minor == 6 || g.cc_minor == 9)) || g.cc_major == 12;
            c.tile = tile_sm8x(sm86, d, local, true, varlen && c.splits > 1);
            c.threads = 32 * c.tile.warps;
            const double q = double(c.tile.m) * d * 2, k = double(c.tile.stages) * c.tile.n * d * 2,
                         v = double(c.tile.stages) * c.tile.n * dv * 2, o = double(c.tile.m) * dv * 2;
            const double mainloop = c.tile.q_in_regs ? std::max(q, v) + k : q + k + v;
            c.smem = int(std::min<double>(std::max(mainloop, q + o), g.smem_per_cta_bytes));
            c.smem_essential = c.tile.q_in_regs ? std::max(q, v / c.tile.stages) + k / c.tile.stages : q + (k + v) / c.tile.stages;
            c.regs = flash_detail::mma_sync_registers(c.tile.m, c.tile.n, dv, c.threads);
            const int min_blocks = c.threads == 128 ? 2 : 1;  // flash_fwd_kernel_sm80.h MinBlocksPerMultiprocessor
            // Sm80 path: persistent only for causal non-varlen or varlen with splits.
            const bool persistent = (causal && !varlen) || (varlen && c.splits > 1);
            c.dispatch = persistent ? work::dispatch_kind::persistent_longest_first : work::dispatch_kind::hardware;
            c.persistent_ctas = persistent ? std::int64_t{g.sm_count} * min_blocks : 0;
        }
        return c;
    }

    /// The attention kernel (and its combine kernel when split) for problem `p` on GPU `g`.
    [[nodiscard]] static attention_plan plan(const attention_problem& p, const gpu::gpu_numbers& g) {
        using flash_detail::ceil_div;
        validate(p);
        if (!supports(p, g))
            synperf::detail::report_error("attention: fa3 has no kernel for head_dim " + std::to_string(p.head_dim) +
                                          ", v_head_dim " + std::to_string(p.dv()) + (p.fp8_compute ? ", FP8 math" : "") +
                                          " on compute capability " + std::to_string(g.cc_major) + "." +
                                          std::to_string(g.cc_minor) + " (sm_80/86/89/90/120 only)");
        const fa3_config c = configure(p, g);
        const flash_detail::mask m = flash_detail::mask_of(p);
        const std::int64_t pack = c.pack_gqa ? p.group_size() : 1;
        const std::int64_t heads = c.pack_gqa ? p.kv_heads : p.heads;
        const int bm = c.tile.m, bn = c.tile.n;

        // Per-request splits (flash_prepare_scheduler.cu): ceil(1.1 x blocks x heads / SMs) blocks per SM,
        // each request split into ceil(n_blocks / that) parts, at most the static bound; one split for all
        // when the batch needs more than one prepare CTA (> 992 requests).
        std::vector<std::int64_t> splits(p.requests.size(), 1);
        if (c.splits > 1 && p.batch() <= 992) {
            double total_blocks = 0;
            for (const request_group& r : p.requests)
                total_blocks += double(ceil_div(r.q_len * pack, bm)) * double(ceil_div(r.kv_len, bn)) * double(r.count);
            const auto per_sm = std::int64_t(std::ceil(float(total_blocks) * 1.1f * float(heads) / float(g.sm_count)));
            for (std::size_t i = 0; i < p.requests.size(); ++i) {
                const std::int64_t n = ceil_div(p.requests[i].kv_len, bn);
                splits[i] = std::max<std::int64_t>(1, std::min<std::int64_t>(ceil_div(n, std::max<std::int64_t>(per_sm, 1)), c.splits));
            }
        }

        const bool grid_per_tile = c.dispatch == work::dispatch_kind::hardware;
        std::int64_t max_m_blocks = 0;
        for (const request_group& r : p.requests) max_m_blocks = std::max(max_m_blocks, ceil_div(r.q_len * pack, bm));
        std::int64_t max_n_blocks = 0;  // no unit visits more KV blocks than the longest request has
        for (const request_group& r : p.requests) max_n_blocks = std::max(max_n_blocks, ceil_div(r.kv_len, bn));
        flash_detail::unit_tally tally(max_n_blocks);
        for (std::size_t i = 0; i < p.requests.size(); ++i) {
            const request_group& r = p.requests[i];
            const std::int64_t mb = ceil_div(r.q_len * pack, bm);
            const std::int64_t units = r.count * heads;
            if (m.causal && !m.local() && splits[i] == 1) {
                for (flash_detail::causal_block_runs runs(r, pack, bm, bn); runs.more();) {
                    const flash_detail::block_run run = runs.next();
                    tally.add(run.kv_blocks, false, units * run.blocks);
                }
            } else {
                for (std::int64_t b = 0; b < mb; ++b) {
                    const flash_detail::block_range range = flash_detail::kv_blocks(r, m, pack, b * bm, bm, bn);
                    for (std::int64_t s = 0; s < splits[i]; ++s)
                        tally.add(flash_detail::split_part(range, splits[i], s).size(), splits[i] > 1, units);
                }
            }
            // One CTA per tile over the longest request's m-blocks: the shorter requests' extra CTAs exit at once.
            if (grid_per_tile) tally.add(0, false, (max_m_blocks - mb) * units * splits[i]);
        }
        const std::vector<flash_detail::unit_count> units = tally.finish();

        flash_detail::unit_shape shape;
        shape.tile_q = bm;
        shape.tile_kv = bn;
        shape.head_dim = p.head_dim;
        shape.v_head_dim = p.dv();
        shape.q_bytes = q_element_bytes(p);
        shape.kv_bytes = p.kv_bytes_per_element();
        shape.mma_type = op_detail::math_type(p, g);
        shape.mma_issue = c.sm90 ? gpu::mma_issue::native : gpu::mma_issue::warp_sync;  // wgmma, or the Sm80 path's mma.sync
        const work::task_work floor = compulsory_attention_work(p, g, shape.mma_issue);

        attention_plan out;
        out.implementation = impl;
        out.tile_q = bm;
        out.tile_kv = bn;
        out.splits = int(*std::max_element(splits.begin(), splits.end()));
        out.pack_gqa = c.pack_gqa && p.group_size() > 1;
        const op_bytes bytes = compulsory_bytes(p);
        out.kv_footprint_bytes = bytes.kv;
        out.q_o_bytes = bytes.q + bytes.o;
        const char* sched = c.dispatch == work::dispatch_kind::persistent_longest_first ? "persistent_lpt"
                            : c.dispatch == work::dispatch_kind::persistent_static      ? "persistent_static"
                                                                                         : "grid";
        out.variant = std::string(c.sm90 ? "fa3_sm90_" : "fa3_sm80_") + sched;

        work::kernel_launch main;
        main.name = std::string(c.sm90 ? "flash_fwd_sm90_" : "flash_fwd_sm80_") + std::to_string(bm) + "x" +
                    std::to_string(bn) + "_" + sched + (c.pack_gqa ? "_packgqa" : "") + (c.splits > 1 ? "_split" : "");
        main.launch = {c.threads, c.regs, work::tile_smem(c.smem, c.smem_essential, g, main.name)};
        main.dispatch = c.dispatch;
        main.persistent_ctas = c.persistent_ctas;
        main.tasks = flash_detail::make_classes(units, shape, floor.dram_bytes);
        main.compulsory = floor;
        out.kernels.push_back(std::move(main));

        if (c.splits > 1) {
            // The combine kernel runs whenever the static bound splits (flash_api.cpp); its CTAs over requests
            // left unsplit by the dynamic rule return at once (flash_fwd_combine_kernel.h). 256 threads,
            // kBlockK = 64 (dv <= 64) or 128 columns, kBlockM = 16 or 8 rows per CTA.
            flash_detail::combine_shape cs;
            cs.block_cols = p.dv() <= 64 ? 64 : 128;
            cs.block_rows = cs.block_cols % 128 == 0 ? 8 : 16;
            cs.threads = 256;
            const std::int64_t col_blocks = ceil_div(p.dv(), cs.block_cols);
            std::vector<std::pair<std::int64_t, std::int64_t>> ctas_by_split;  // (splits, CTAs); 1: exits at once
            for (std::size_t i = 0; i < p.requests.size(); ++i) {
                const std::int64_t k = splits[i] > 1 ? splits[i] : 1;
                const std::int64_t ctas = ceil_div(p.requests[i].q_len * p.heads, cs.block_rows) * col_blocks * p.requests[i].count;
                auto it = std::find_if(ctas_by_split.begin(), ctas_by_split.end(), [&](const auto& e) { return e.first == k; });
                if (it == ctas_by_split.end()) ctas_by_split.emplace_back(k, ctas);
                else it->second += ctas;
            }
            std::sort(ctas_by_split.begin(), ctas_by_split.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
            work::kernel_launch comb;
            comb.name = "flash_fwd_combine_" + std::to_string(cs.block_rows) + "x" + std::to_string(cs.block_cols);
            comb.launch = {cs.threads, 64, cs.block_rows * cs.block_cols * 4 * 2 + 128 * cs.block_rows * 4};
            comb.dispatch = work::dispatch_kind::hardware;
            for (const auto& [k, ctas] : ctas_by_split)
                comb.tasks.push_back({k > 1 ? flash_detail::combine_cta_work(cs, p.dv(), k) : work::task_work{}, ctas});
            comb.compulsory = work::task_work{};  // splitting is the library's choice (op_work.hpp)
            out.kernels.push_back(std::move(comb));
        }
        if (p.backend == framework::sglang) {
            // SGLang calls flash_attn_with_kvcache without scheduler_metadata, so mha_fwd computes it inside the op
            // (flash_api.cpp): for a varlen batch of up to 992 requests the dynamic-split scheduler's
            // prepare_varlen_num_blocks kernel (flash_prepare_scheduler.cu: one CTA reads every request's lengths and
            // writes its split and block counts); for larger batches on sm_90 a zeroing of the tile counter.
            // vLLM computes the metadata once per step, outside the op.
            const bool dynamic_split = p.batch() <= 992;
            if (dynamic_split || c.sm90) {
                work::kernel_launch prep;
                prep.name = dynamic_split ? "prepare_varlen_num_blocks" : "tile_count_semaphore_zero";
                prep.launch = {dynamic_split ? 1024 : 32, 32, 0};
                prep.dispatch = work::dispatch_kind::hardware;
                work::task_work w;
                w.l2_bytes = dynamic_split ? 16.0 * double(p.batch()) : 4.0;
                w.fma_ops = dynamic_split ? 8.0 * double(p.batch()) : 0.0;
                prep.tasks.push_back({w, 1});
                prep.compulsory = work::task_work{};  // the scheduler's bookkeeping, not the problem's work
                out.kernels.push_back(std::move(prep));
            }
        }
        out.attention_kernels = out.kernels.size();
        return out;
    }
};

static_assert(AttentionKernel<fa3>);

}  // namespace synperf::family::attention
