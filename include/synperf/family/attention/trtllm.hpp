// SPDX-License-Identifier: Apache-2.0
#pragma once
/// \file TensorRT-LLM's attention kernels: context FMHA (fmha_v2, trtllm-gen) and decode (XQA, MMHA,
/// trtllm-gen), as the public TensorRT-LLM sources launch them.
///
/// Context (prefill):
/// - sm_80/86/89/120: fmha_v2 flash-attention kernels, one CTA per (query block, head, request), hardware
///   dispatch; query x KV step per head size as the generated kernel names show (d <= 64: 128 x 128,
///   d <= 128: 64 x 128, d <= 256: 64 x 64, larger: 64 x 32), halved KV step where shared memory is short.
/// - sm_90: fmha_v2 warp-specialized TMA kernels: two 64-row compute groups per CTA (128 query rows), KV
///   step 256 / 128 / 64 for d <= 64 / <= 128 / larger (select_kv_loop_step), 384 threads, a persistent grid
///   of min(tiles, SMs) CTAs pulling tiles from an atomic counter; causal batches whose KV fits in L2 get the
///   "balanced" order, heaviest query block first (fused_multihead_attention_demo_bert_params.h
///   tile_id_counter_ptr / use_balanced_scheduling). Modelled as longest-first; the unbalanced order (a
///   greedy atomic counter in grid order) is approximated by the same.
/// - sm_100/103: trtllm-gen context kernels with TileScheduler::Persistent (fmhaDispatcher / FlashInfer's
///   trtllm paged context path); 128 x 128 tiles (approximation: the cubins' exact tile is not public),
///   modelled as a static persistent grid of min(tiles, SMs), last query block first.
/// Decode:
/// - sm_100/103: trtllm-gen generation kernels (swaps-MMA-AB: KV tokens on the MMA M side, the g query
///   heads of a KV head padded to 8 / 16 / 32 / 64 on N), step 128 KV tokens; multiCtasKvMode splits the KV
///   into numCtasPerSeqKv = min(ceil(kv / 256), max(1, SMs / (q tiles x KV heads x requests))) CTAs and
///   merges in the kernel. With one CTA per sequence the runner switches to its persistent scheduler;
///   every work unit is then equal, and a persistent grid of one CTA per SM places them exactly as the
///   hardware dispatcher does, so both cases are modelled as hardware dispatch.
/// - sm_80/86/89/90/120: XQA (one CTA per (KV-split, KV head, request) covering the g query heads) when
///   the head size is 64/128/256, 2 to 32 query heads share a KV head and the batch has enough CTAs
///   (kv_heads x batch x max(1, kv / 128) x 4 >= SMs, DecoderXQARunner::mayHavePerfGain); multi-block count
///   from computeMultiBlockCount (kv / 128, at most sqrt(8 x that), cut back to 8 waves, workspace cap);
///   merge in the kernel. With an FP8 cache below sm_90 and from sm_120 on, multi-block mode is off: one CTA
///   per (KV head, request). A 16-bit query over an FP8 cache runs XQA even when the gain test fails, since
///   MMHA has no kernel for that pair (DecoderXQARunner::shouldUse): a small batch then streams each
///   sequence through one CTA. Otherwise (plain MHA included) MMHA (masked multi-head attention on CUDA
///   cores, one CTA per (query head, request, split)) in multi-block mode: 256 to 1024 threads and the blocks
///   per sequence of mmha_launch_kernel_ex / multi_block_grid_setup (`mmha_multi_block`); below sm_90 it
///   converts an FP8 cache in software (mmha_fp8_convert_ops).
/// FP8 context (fp8_compute) runs on the FP8 tensor rate; XQA with an FP8 cache on sm_90 is the QGMMA
/// (FP8 wgmma) kernel, elsewhere FP8 K/V are converted to 16 bit before the MMA.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>

#include "synperf/family/attention/flash_tile.hpp"
#include "synperf/family/attention/kernel_plan.hpp"
#include "synperf/family/attention/op_work.hpp"
#include "synperf/family/attention/problem.hpp"
#include "synperf/gpu/numbers.hpp"
#include "synperf/gpu/occupancy.hpp"
#include "synperf/work/launch.hpp"
#include "synperf/work/task.hpp"

namespace synperf::family::attention {

namespace trtllm_detail {

using op_detail::ceil_div;
using op_detail::round_up;

inline constexpr int min_history_tokens_per_block = 128;  // kMinHistoryTokensPerBlock (decoderXQAConstants.h)
inline constexpr double target_wave_factor = 8;           // kTargetWaveFactor
inline constexpr double enable_min_block_factor = 4;      // kEnableMinBlockFactor
inline constexpr int max_sub_sequences = 6000;            // kXQA_MAX_NUM_SUB_SEQ, the multi-block workspace cap

[[nodiscard]] inline std::int64_t max_kv_len(const attention_problem& p) noexcept {
    std::int64_t m = 0;
    for (const auto& r : p.requests) m = std::max(m, r.kv_len);
    return m;
}

/// XQA's multi-block count (computeMultiBlockCount) for `ctas_per_request` CTAs per request and split.
[[nodiscard]] inline int multi_block_count(std::int64_t batch, std::int64_t ctas_per_request, std::int64_t history, int sms) {
    int count = int(std::min<std::int64_t>(history / min_history_tokens_per_block, 1 << 20));
    // Too many blocks per sequence make the final merge dominate.
    count = std::min(count, int(std::lround(std::sqrt(double(count) * 8.0))));
    count = std::max(count, 1);
    const double waves = double(batch) * double(ctas_per_request) * count / double(sms);
    const double adjust = waves / target_wave_factor;
    if (adjust > 1.0) count = int(std::floor(count / adjust));
    count = std::max(count, 1);
    count = int(std::max<std::int64_t>(std::min<std::int64_t>(count, max_sub_sequences / std::max<std::int64_t>(batch, 1)), 1));
    return count;
}

/// MMHA's launch in multi-block mode (TensorRT-LLM's default): threads per CTA and blocks per sequence.
struct mmha_launch {
    int threads = 256;
    int splits = 1;
};

inline constexpr int mmha_regs = 64;  // registers per thread (approximation: the cubins' count is not published)

/// mmha_launch_kernel_ex and multi_block_grid_setup (decoderMaskedMultiheadAttentionLaunch.h), with the op's tile
/// bounds (AttentionOp::getMaxNumSeqLenTile): the 256-thread kernel grows to 512 or 1024 threads when batch x heads
/// CTAs leave SMs idle (by the ratio of the resident 256-thread CTAs to the CTAs per SM the grid gives, if the larger
/// CTA still fits); a sequence is then split into blocks that each cover at least one unrolled KV loop
/// (threads / threads-per-value x 8 timesteps), at most enough for one CTA per SM over the grid, at least enough for
/// the chunk's fp32 logits to fit in shared memory.
[[nodiscard]] inline mmha_launch mmha_multi_block(std::int64_t batch, int heads, int head_dim, std::int64_t history,
                                                 const gpu::gpu_numbers& g) {
    const std::int64_t sms = g.sm_count, grid = std::max<std::int64_t>(1, batch * heads);
    const auto resident = [&](int threads) { return gpu::occupancy(g, {threads, mmha_regs, 0}).ctas_per_sm; };
    const std::int64_t per_sm = std::max(1, resident(256));
    const std::int64_t factor = std::min<std::int64_t>(ceil_div(sms * per_sm, grid), per_sm);
    const std::int64_t wanted = std::min<std::int64_t>(256 * factor, 1024);
    mmha_launch out;
    out.threads = wanted < 512 ? 256 : wanted < 1024 ? 512 : 1024;
    int slots = resident(out.threads);
    while (out.threads > 256 && slots < 1) {
        out.threads /= 2;
        slots = resident(out.threads);
    }
    const int dh_max = head_dim <= 64 ? 64 : head_dim <= 128 ? 128 : head_dim <= 256 ? 256 : 512;
    const int threads_per_value = std::max(1, dh_max * 2 / 16);  // 16 bytes of a 16-bit query per thread
    const std::int64_t kv_loop = ceil_div(out.threads, threads_per_value) * 8;
    const std::int64_t min_tile = std::max<std::int64_t>(1, ceil_div(4 * (history + 1), std::max(1, g.smem_per_cta_bytes - 2048)));
    const std::int64_t max_tile = std::min(ceil_div(history + 1, kv_loop), std::max(min_tile, ceil_div(sms, grid)));
    const std::int64_t balanced = ceil_div(sms * std::max(1, slots), grid);
    out.splits = int(std::max(min_tile, std::min(balanced, max_tile)));
    return out;
}

/// fmha_v2 flash-attention tile (query rows x KV step) on sm_80/86/89/120.
struct grid_tile {
    int q = 64, kv = 128;
};
[[nodiscard]] inline grid_tile fmha_v2_grid_tile(int d) noexcept {
    if (d <= 64) return {128, 128};
    if (d <= 128) return {64, 128};
    if (d <= 256) return {64, 64};
    return {64, 32};
}

/// fmha_v2 warp-specialized KV step on sm_90 (select_kv_loop_step).
[[nodiscard]] constexpr int ws_kv_step(int d) noexcept { return d <= 64 ? 256 : d <= 128 ? 128 : 64; }

/// Query-head tile of trtllm-gen's generation kernels (g padded to the next supported N).
[[nodiscard]] constexpr int gen_q_tile(int g) noexcept { return g <= 8 ? 8 : g <= 16 ? 16 : g <= 32 ? 32 : 64; }

/// XQA's HMMA / QGMMA support (supportConfigCommon, supportConfigHMMA): head size 64 / 128 / 256, 2 to 32 query
/// heads per KV head; plain MHA with beam 1 is left to MMHA.
inline bool xqa_supported(const attention_problem& p) noexcept {
    const int d = p.head_dim;
    return (d == 64 || d == 128 || d == 256) && p.dv() == d && p.group_size() >= 2 && p.group_size() <= 32;
}

/// FP32-lane slots MMHA spends converting one FP8 cache element to 16 bit. TensorRT-LLM builds its MMHA kernels
/// for sm_80 / 86 / 90 / 100 / 120 and runs the sm_86 code on sm_89 (cuda_configuration.cmake), so below sm_90 the
/// conversion takes cuda_fp8.hpp's software path (sign, exponent and mantissa extracted and re-biased, NaN and
/// denormal checks: about a dozen integer instructions, at half the FP32 lane rate on sm_8x); from sm_90 on it is
/// one cvt per two elements.
inline double mmha_fp8_convert_ops(const attention_problem& p, const gpu::gpu_numbers& g) noexcept {
    if (p.kv_type != kv_dtype::fp8) return 0.0;
    return g.sm_version() < 90 ? 24.0 : 0.5;
}

/// Whether XQA may split the KV of a sequence across CTAs: TensorRT-LLM turns multi-block mode off for an FP8
/// cache below sm_90 and on sm_120 and later (convertMMHAParamsToXQAParams in 1.3.0rc20, the data's version; later
/// releases keep it on for sm_120 itself).
inline bool xqa_multi_block(const attention_problem& p, const gpu::gpu_numbers& g) noexcept {
    const int sm = g.sm_version();
    return !(p.kv_type == kv_dtype::fp8 && (sm < 90 || sm >= 120));
}

inline bool xqa_has_gain(const attention_problem& p, const gpu::gpu_numbers& g) noexcept {
    const std::int64_t per_sequence =
        xqa_multi_block(p, g) ? std::max<std::int64_t>(1, max_kv_len(p) / min_history_tokens_per_block) : 1;
    const double blocks = double(p.kv_heads) * double(p.batch()) * double(per_sequence);
    return blocks * enable_min_block_factor >= double(g.sm_count);
}

/// Whether XQA runs the decode: a supported shape with enough CTAs to gain over MMHA, or a 16-bit query over
/// an FP8 cache, which MMHA does not run (DecoderXQARunner::shouldUse).
inline bool xqa_selected(const attention_problem& p, const gpu::gpu_numbers& g) noexcept {
    if (!xqa_supported(p)) return false;
    return xqa_has_gain(p, g) || (p.kv_type == kv_dtype::fp8 && !p.fp8_compute);
}

/// Adds the split-KV CTAs of one decode kernel: per request group, `splits` CTAs per (request, head unit)
/// of `chunk` KV tokens each (the last one shorter, the ones past the end empty), each covering `rows`
/// query rows (`valid_rows` useful) and merging in the kernel when split.
inline void add_decode_splits(work::kernel_launch& k, const attention_problem& p, const request_group& r,
                              std::int64_t units_per_request, int splits, int align, const flash_tile_shape& base,
                              double valid_rows, bool merge_in_kernel) {
    const std::int64_t kv = std::max<std::int64_t>(1, std::int64_t(reachable_kv(p, r)));
    const std::int64_t chunk = round_up(ceil_div(kv, splits), align);
    const std::int64_t full = std::min<std::int64_t>(kv / chunk, splits);
    const std::int64_t rest = kv - full * chunk;
    const std::int64_t used = full + (rest > 0 ? 1 : 0);
    const std::int64_t count = r.count * units_per_request;
    const auto cta = [&](std::int64_t tokens) {
        flash_tile_shape s = base;
        s.kv = double(round_up(tokens, align));
        work::task_work w = flash_tile_work(s);
        if (merge_in_kernel && splits > 1) w += op_detail::in_kernel_merge_work(valid_rows, p.dv());
        return w;
    };
    if (full > 0) k.tasks.push_back({cta(chunk), count * full});
    if (rest > 0) k.tasks.push_back({cta(rest), count});
    if (splits > used) k.tasks.push_back({work::task_work{}, count * (splits - used)});
}

inline attention_plan plan_prefill(const attention_problem& p, const gpu::gpu_numbers& g) {
    attention_plan out;
    out.implementation = kernel_impl::trtllm;
    const int d = p.head_dim, dv = p.dv();
    const double qe = q_element_bytes(p);
    flash_tile_shape base;
    base.head_dim = d;
    base.v_head_dim = dv;
    base.q_bytes = qe;
    // Context FMHA reads the new tokens' K/V from the QKV buffer (FP8 after pre-processing for FP8 math),
    // cached prefix tokens from the paged cache.
    base.kv_bytes = p.fp8_compute ? 1.0 : 2.0;
    base.mma_type = op_detail::math_type(p, g);
    work::kernel_launch k;
    const std::string dtype = p.fp8_compute ? "e4m3" : "bf16";
    if (g.cc_major == 10) {
        out.tile_q = 128;
        out.tile_kv = 128;
        out.variant = "trtllm_gen_context";
        k.name = "fmhaSm100Kernel_Q" + dtype + "_H" + std::to_string(d) + "_tile128x128_persistent";
        const double q_tile = 128.0 * d * qe, kv_stage = 128.0 * (d + dv) * base.kv_bytes;
        k.launch = {384, 168, work::tile_smem(q_tile + 3 * kv_stage + 16384, q_tile + kv_stage, g, k.name)};
        k.dispatch = work::dispatch_kind::persistent_static;
        op_detail::add_prefill_tiles(k, p, out.tile_q, out.tile_kv, base, true);
        k.persistent_ctas = std::min<std::int64_t>(op_detail::task_count(k), g.sm_count);
    } else if (g.cc_major == 9) {
        out.tile_q = 128;  // two 64-row compute groups
        out.tile_kv = ws_kv_step(d);
        out.variant = "trtllm_fmha_v2_sm90_ws";
        k.name = "fmha_v2_flash_attention_" + dtype + "_64_" + std::to_string(out.tile_kv) + "_S_q_paged_kv_" +
                 std::to_string(d) + "_tma_ws_sm90";
        const double q_tile = 128.0 * d * qe, kv_stage = double(out.tile_kv) * (d + dv) * base.kv_bytes;
        k.launch = {384, 168, work::tile_smem(q_tile + 2 * kv_stage + 8192, q_tile + kv_stage, g, k.name)};
        k.dispatch = work::dispatch_kind::persistent_longest_first;
        op_detail::add_prefill_tiles(k, p, out.tile_q, out.tile_kv, base, true);
        k.persistent_ctas = std::min<std::int64_t>(op_detail::task_count(k), g.sm_count);
    } else {
        grid_tile t = fmha_v2_grid_tile(d);
        const auto smem = [&](const grid_tile& x) { return x.q * d * int(qe) + x.kv * (d + dv) * int(base.kv_bytes); };
        while (t.kv > 16 && smem(t) > g.smem_per_cta_bytes) t.kv /= 2;  // the "tiled" variants of large heads
        while (t.q > 16 && smem(t) > g.smem_per_cta_bytes) t.q /= 2;
        out.tile_q = t.q;
        out.tile_kv = t.kv;
        out.variant = "trtllm_fmha_v2_sm" + std::to_string(g.sm_version());
        const int threads = std::max(128, t.q * 2);
        const int regs = int(std::min<std::int64_t>(255, round_up(64 + std::int64_t(t.q) * (t.kv + dv) / threads, 8)));
        k.name = "fmha_v2_flash_attention_" + dtype + "_" + std::to_string(t.q) + "_" + std::to_string(t.kv) + "_S_q_paged_kv_" +
                 std::to_string(d) + "_sm" + std::to_string(g.sm_version());
        k.launch = {threads, regs, work::tile_smem(smem(t), smem(t), g, k.name)};
        k.dispatch = work::dispatch_kind::hardware;
        base.mma_issue = gpu::mma_issue::warp_sync;  // the pre-Hopper fmha_v2 kernels issue mma.sync
        op_detail::add_prefill_tiles(k, p, out.tile_q, out.tile_kv, base, false);
    }
    k.compulsory = compulsory_attention_work(p, g, base.mma_issue);
    op_detail::spread_dram(k, k.compulsory->dram_bytes);
    out.kernels.push_back(std::move(k));
    return out;
}

/// Whether MMHA's V pass over a K-only cache (`v_aliases_k`) finds K's blocks still in L2. A CTA reads its
/// chunk's K in one pass, keeps the logits in shared memory, then reads V in a second pass
/// (decoderMaskedMultiheadAttentionTemplate.h); between the two, the resident CTAs stream their chunks of K, so
/// the re-reads hit only when those chunks fit in L2 together. The grid runs the query heads fastest, so the
/// resident CTAs of one KV head's group read the same chunk: the working set is one chunk per group. (XQA and
/// the flash kernels read a tile's K and V back to back, where the aliased reads always hit.)
[[nodiscard]] inline bool mmha_v_pass_hits_l2(const attention_problem& p, const gpu::gpu_numbers& g, const work::launch_config& launch,
                                              int splits, std::int64_t chunk_tokens) {
    const double ctas = double(p.batch()) * double(p.heads) * double(splits);
    const double resident = std::min(ctas, double(gpu::occupancy(g, launch).ctas_per_sm) * g.sm_count);
    const double chunk_bytes = double(chunk_tokens) * double(p.head_dim) * p.kv_bytes_per_element();
    return resident / double(p.group_size()) * chunk_bytes <= g.l2_bytes;
}

inline attention_plan plan_decode(const attention_problem& p, const gpu::gpu_numbers& g) {
    attention_plan out;
    out.implementation = kernel_impl::trtllm;
    const int d = p.head_dim, dv = p.dv(), grp = p.group_size();
    const double kve = p.kv_bytes_per_element();
    const std::string cache = p.kv_type == kv_dtype::fp8 ? "e4m3" : "bf16";
    flash_tile_shape base;
    base.head_dim = d;
    base.v_head_dim = dv;
    base.q_bytes = q_element_bytes(p);
    base.kv_bytes = kve;
    work::kernel_launch k;
    k.dispatch = work::dispatch_kind::hardware;
    const std::int64_t batch = p.batch();
    const std::int64_t history = max_kv_len(p);
    bool v_reads_miss_l2 = false;  // over a K-only cache: MMHA's second pass (mmha_v_pass_hits_l2)
    if (g.cc_major == 10) {
        const int qt = gen_q_tile(grp);
        const std::int64_t q_ctas = ceil_div(grp, qt);
        const std::int64_t single = q_ctas * p.kv_heads * batch;
        const std::int64_t max_split = std::max<std::int64_t>(1, ceil_div(history, 2 * 128));
        const int splits = int(std::min<std::int64_t>(max_split, std::max<std::int64_t>(1, g.sm_count / single)));
        out.variant = "trtllm_gen_decode";
        out.tile_q = qt;
        out.tile_kv = 128;
        out.splits = splits;
        out.pack_gqa = true;
        base.rows = qt;
        base.mma_type = p.kv_type == kv_dtype::fp8 && g.tensor_fp8_flop_per_clk > 0 ? gpu::tensor_dtype::fp8 : gpu::tensor_dtype::bf16;
        k.name = std::string("fmhaSm100Kernel_Q") + (p.fp8_compute ? "e4m3" : "Bfloat16") + "_Kv" + cache + "_H" + std::to_string(d) + "_swapsMmaAb_q" + std::to_string(qt) +
                 (splits > 1 ? "_multiCtasKv" + std::to_string(splits) : std::string("_persistent"));
        const double q_tile = double(qt) * d * 2, kv_stage = 128.0 * (d + dv) * kve;
        k.launch = {256, 128, work::tile_smem(3 * kv_stage + q_tile + 8192, kv_stage + q_tile, g, k.name)};
        for (const auto& r : p.requests)
            add_decode_splits(k, p, r, q_ctas * p.kv_heads, splits, 128, base, double(std::min(grp, qt)), true);
    } else if (xqa_selected(p, g)) {
        const int splits = xqa_multi_block(p, g) ? multi_block_count(batch, p.kv_heads, history, g.sm_count) : 1;
        const bool gmma = g.cc_major == 9 && p.kv_type == kv_dtype::fp8;
        out.variant = gmma ? "trtllm_xqa_gmma" : "trtllm_xqa";
        out.tile_q = gmma ? 64 : int(round_up(grp, 16));  // wgmma M = 64; mma.sync M = 16
        out.tile_kv = gmma ? 128 : 64;
        out.splits = splits;
        out.pack_gqa = true;
        base.rows = out.tile_q;
        base.mma_type = gmma ? gpu::tensor_dtype::fp8 : gpu::tensor_dtype::bf16;
        base.mma_issue = gmma ? gpu::mma_issue::native : gpu::mma_issue::warp_sync;  // wgmma, or HMMA (mma.sync)
        k.name = std::string(gmma ? "xqa_kernel_sm90_gmma" : "xqa_kernel_hmma") + "_kv" + cache + "_h" + std::to_string(d) + "_g" +
                 std::to_string(grp) + "_tokensPerPage" + std::to_string(p.page_size) + (splits > 1 ? "_multiblock" : "");
        // Block (128, 1, 3) for the GMMA kernel, (128, 1, 2) for HMMA (the launches in decoderXQAImplJIT /
        // decoderXQAImplPrecompiled). Registers per thread are estimates; HMMA's 64 keeps four CTAs per SM by registers
        // (with 128, two: a worse fit on the training GPUs, docs/families/attention.md).
        const double q_tile = double(out.tile_q) * d * 2, kv_stage = double(out.tile_kv) * (d + dv) * kve;
        k.launch = {gmma ? 384 : 256, gmma ? 168 : 64, work::tile_smem(q_tile + 2 * kv_stage + (gmma ? 16384 : 4096), q_tile + kv_stage, g, k.name)};
        for (const auto& r : p.requests)
            add_decode_splits(k, p, r, p.kv_heads, splits, out.tile_kv, base, double(grp), true);
    } else {
        // MMHA: one query head per CTA on CUDA cores; each CTA reads its KV head's cache (L2 serves the
        // group's re-reads).
        const mmha_launch launch = mmha_multi_block(batch, p.heads, d, history, g);
        const int splits = launch.splits;
        out.variant = "trtllm_mmha";
        out.tile_q = 1;
        out.tile_kv = 32;
        out.splits = splits;
        base.rows = 1;
        base.tensor_cores = false;
        base.fma_lanes_per_issue = g.fma_lanes_per_issue();
        base.kv_convert_ops = mmha_fp8_convert_ops(p, g);  // every query head's CTA converts its KV head's cache
        k.name = "masked_multihead_attention_kernel_h" + std::to_string(d) + "_kv" + cache + (splits > 1 ? "_multiblock" : "");
        const std::int64_t chunk = ceil_div(std::max<std::int64_t>(history, 1), splits);
        const double logits = double(std::min<std::int64_t>(chunk * 4 + 4096, std::max(4096, g.smem_per_cta_bytes - 2048)));
        k.launch = {launch.threads, mmha_regs, work::tile_smem(logits, 4096, g, k.name)};
        for (const auto& r : p.requests) add_decode_splits(k, p, r, p.heads, splits, 32, base, 1.0, true);
        v_reads_miss_l2 = p.v_aliases_k && !mmha_v_pass_hits_l2(p, g, k.launch, splits, chunk);
    }
    // Over a K-only cache V's reads are K's bytes again; they add to the bytes to move only when they miss L2.
    k.compulsory = compulsory_attention_work(p, g, p.v_aliases_k && !v_reads_miss_l2);
    k.compulsory->tensor_issue = base.mma_issue;
    op_detail::spread_dram(k, k.compulsory->dram_bytes);
    out.kernels.push_back(std::move(k));
    return out;
}

}  // namespace trtllm_detail

/// TensorRT-LLM's context FMHA and decode kernels (also SGLang's trtllm_mha backend on Blackwell, which
/// calls the trtllm-gen kernels through FlashInfer).
struct trtllm {
    static constexpr kernel_impl impl = kernel_impl::trtllm;

    /// sm_80, 86, 89, 90, 100, 103, 120 (the architectures TensorRT-LLM ships kernels for); head dims up to
    /// 512; FP8 math needs an FP8 tensor rate.
    [[nodiscard]] static bool supports(const attention_problem& p, const gpu::gpu_numbers& g) noexcept {
        const bool arch = g.cc_major == 8 || g.cc_major == 9 || g.cc_major == 10 || g.cc_major == 12;
        if (!arch) return false;
        if (p.head_dim > 512 || p.dv() > 512) return false;
        if (p.fp8_compute && g.tensor_fp8_flop_per_clk <= 0) return false;
        return true;
    }

    /// Kernels of one attention op (pre-processing not included).
    [[nodiscard]] static attention_plan plan(const attention_problem& p, const gpu::gpu_numbers& g) {
        validate(p);
        attention_plan out = p.stage == phase::prefill ? trtllm_detail::plan_prefill(p, g) : trtllm_detail::plan_decode(p, g);
        const op_bytes b = compulsory_bytes(p);
        out.kv_footprint_bytes = b.kv;
        out.q_o_bytes = b.q + b.o;
        out.attention_kernels = out.kernels.size();
        return out;
    }
};

static_assert(AttentionKernel<trtllm>);

}  // namespace synperf::family::attention
