// SPDX-License-Identifier: Apache-2.0
#pragma once
/// \file FlashInfer prefill and decode as SGLang's `flashinfer` backend runs them.
///
/// Prefill on sm_8x / sm_10x / sm_12x: the FA2-style BatchPrefill kernel, query heads of a KV head packed
/// into the Q tile, CTA_TILE_Q from the average packed query length, KV split into chunks by a binary
/// search against (2 x SMs) / h_k CTAs, a merge-states kernel when split (scheduler.cuh
/// PrefillSplitQOKVIndptr, utils.cuh FA2DetermineCtaTileQ, prefill.cuh). Prefill on sm_90 (16-bit KV): the
/// SM90 plan, SMs persistent CTAs fed by a host-side longest-processing-time list (PrefillSM90Plan).
/// Decode: BatchDecode on CUDA cores (one CTA per request chunk and KV head covering its g query heads;
/// pages-per-chunk binary search against the occupancy-derived grid), or, when h / h_k > 4, the tensor-core
/// prefill kernel with packed query length g (docs/kernels.md#attention-decode). Sources:
/// docs/kernels.md#flashinfer-prefill, docs/kernels.md#attention-decode; flashinfer
/// @fb28d724 include/flashinfer/attention/{scheduler.cuh, prefill.cuh, cascade.cuh, hopper/prefill_sm90.cuh}.
#include <algorithm>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "synperf/error.hpp"
#include "synperf/family/attention/kernel_plan.hpp"
#include "synperf/family/attention/op_work.hpp"
#include "synperf/family/attention/problem.hpp"
#include "synperf/family/attention/tile_classes.hpp"
#include "synperf/gpu/numbers.hpp"
#include "synperf/gpu/occupancy.hpp"
#include "synperf/work/launch.hpp"
#include "synperf/work/task.hpp"

namespace synperf::family::attention {

/// `count` requests of one packed query length and KV length (KV in the unit the search counts: pages).
struct kv_chunk_request {
    std::int64_t packed_qo_len = 0;  ///< query rows x query heads per KV head
    std::int64_t kv_len = 0;         ///< KV length (pages for a paged cache, tokens for a ragged one)
    std::int64_t count = 1;          ///< requests alike
};

/// Result of the KV-chunk search.
struct kv_chunk_choice {
    bool split = false;              ///< the KV is split (the chunk is shorter than the longest KV)
    std::int64_t chunk = 0;          ///< KV chunk, in the unit of `kv_len`
    std::int64_t new_batch_size = 0; ///< CTAs per KV head: sum of q tiles x KV chunks
};

/// FlashInfer's prefill KV-chunk binary search (scheduler.cuh PrefillBinarySearchKVChunkSize, no CUDA
/// graph): the smallest chunk in [min_chunk, max kv_len] with sum_i ceil(packed_i / qo_tile) x
/// ceil(max(kv_i, 1) / chunk) <= max_batch_size_if_split; split when that chunk is below the longest KV.
[[nodiscard]] inline kv_chunk_choice flashinfer_kv_chunk_size(std::span<const kv_chunk_request> requests,
                                                              std::int64_t max_batch_size_if_split,
                                                              std::int64_t qo_tile, std::int64_t min_chunk = 1) {
    using flash_detail::ceil_div;
    std::int64_t max_kv = 1;
    for (const kv_chunk_request& r : requests) max_kv = std::max(max_kv, r.kv_len);
    const auto batch_size = [&](std::int64_t chunk) {
        std::int64_t n = 0;
        for (const kv_chunk_request& r : requests)
            n += ceil_div(r.packed_qo_len, qo_tile) * ceil_div(std::max<std::int64_t>(r.kv_len, 1), chunk) * r.count;
        return n;
    };
    std::int64_t low = std::max<std::int64_t>(min_chunk, 1), high = max_kv;
    while (low < high) {
        const std::int64_t mid = (low + high) / 2;
        if (batch_size(mid) > max_batch_size_if_split) low = mid + 1;
        else high = mid;
    }
    return {low < max_kv, low, batch_size(low)};
}

/// FlashInfer's decode pages-per-chunk search (scheduler.cuh PartitionPagedKVCacheBinarySearchMinNumPagePerBatch):
/// the smallest chunk in [min_pages, max pages] with sum_i ceil(pages_i / chunk) x kv_heads <= max_grid.
[[nodiscard]] inline kv_chunk_choice flashinfer_decode_chunk_pages(std::span<const kv_chunk_request> requests,
                                                                   std::int64_t max_grid, std::int64_t kv_heads,
                                                                   std::int64_t min_pages) {
    using flash_detail::ceil_div;
    std::int64_t low = min_pages, high = 0;
    for (const kv_chunk_request& r : requests) high = std::max(high, r.kv_len);
    const auto batch_size = [&](std::int64_t chunk) {
        std::int64_t n = 0;
        for (const kv_chunk_request& r : requests) n += ceil_div(std::max<std::int64_t>(r.kv_len, 1), chunk) * r.count;
        return n;
    };
    while (low < high) {
        const std::int64_t mid = (low + high) / 2;
        if (batch_size(mid) * kv_heads > max_grid) low = mid + 1;
        else high = mid;
    }
    return {false, low, batch_size(low)};
}

namespace flashinfer_detail {

using flash_detail::ceil_div;

/// FA2DetermineCtaTileQ (utils.cuh) for cc >= 8: 128 above 64 packed rows (d < 256), 64 above 16, else 16
/// when one KV step of the 1 x 4 warp layout fits shared memory (else 64).
[[nodiscard]] constexpr int cta_tile_q(std::int64_t avg_packed_qo_len, int dv, int d, double kv_bytes, int smem_per_cta) noexcept {
    if (dv >= 512) return avg_packed_qo_len <= 32 ? 16 : 32;
    if (d >= 512) return 16;
    if (avg_packed_qo_len > 64 && dv < 256) return 128;
    if (avg_packed_qo_len > 16) return 64;
    const double need = 16.0 * d * 2 + double(d + dv) * 16 * 4 * kv_bytes;
    return need <= smem_per_cta ? 16 : 64;
}

/// The FA2-style prefill kernel's shape (prefill.cuh KernelTraits and the NUM_MMA_KV dispatch).
struct fa2_kernel {
    int tile_q = 0, tile_kv = 0;
    int warps_q = 4, warps_kv = 1, mma_q = 1, mma_kv = 1;
    int smem = 0;        ///< the estimate: the Q tile and mma_kv steps of K and V, at most a CTA's limit
    double essential = 0;  ///< the Q tile and one 16-key step of K and V
};

[[nodiscard]] constexpr fa2_kernel fa2_shape(int tile_q, int d, int dv, double kv_bytes, const gpu::gpu_numbers& g) noexcept {
    fa2_kernel k;
    k.tile_q = tile_q;
    k.warps_q = tile_q == 32 ? 1 : (tile_q > 16 ? 4 : 1);
    k.warps_kv = 4 / k.warps_q;
    k.mma_q = tile_q == 32 ? 2 : (tile_q > 64 ? 2 : 1);
    // K and V of one 16-key MMA step per KV warp (+ the FP8 repack staging), Q tile fixed.
    const bool repack = kv_bytes == 1 && dv != 64 && dv <= 256 && tile_q > 16;
    const double per_kv = double(d + dv) * 16 * k.warps_kv * kv_bytes + (repack ? double(std::max(d, dv)) * 16 * k.warps_kv * 2 : 0.0);
    const double fixed = double(tile_q) * d * 2;
    const int ctas = g.smem_per_sm_bytes >= 2 * (fixed + per_kv) ? 2 : 1;
    const double per_block = std::min<double>(g.smem_per_sm_bytes / ctas, g.smem_per_cta_bytes);
    const int by_smem = int((per_block - fixed) / per_kv);
    const int by_regs = 8 / k.mma_q;
    const int most = std::min(by_smem, by_regs);
    k.mma_kv = most >= 8 ? 8 : most >= 4 ? 4 : most >= 2 ? 2 : 1;
    k.tile_kv = k.mma_kv * k.warps_kv * 16;
    k.smem = int(std::min<double>(fixed + k.mma_kv * per_kv, g.smem_per_cta_bytes));
    k.essential = fixed + per_kv;
    return k;
}

/// SM90 prefill CTA tile (hopper/prefill_sm90.cuh getCTATileSize, ragged KV).
[[nodiscard]] constexpr std::pair<int, int> sm90_tile(int d, int dv, bool causal) noexcept {
    if (d != dv) return {128, 128};  // 192 / 128 (DeepSeek prefill)
    if (d == 64) return {192, 128};
    if (d == 128) return {128, causal ? 128 : 192};
    return {128, 64};
}

/// Registers per thread assumed for the CUDA-core decode and merge kernels (not published; an estimate).
inline constexpr int decode_registers = 64;

/// The merge-states kernel (cascade.cuh PersistentVariableLengthMergeStates): SMs x occupancy persistent CTAs
/// of 128 threads; one unit per (query row, head) merging its chunks' bf16 partial outputs and FP32 LSEs.
[[nodiscard]] inline work::kernel_launch merge_kernel(const std::vector<std::pair<std::int64_t, double>>& units_by_chunks,
                                                      int dv, double max_units, const gpu::gpu_numbers& g) {
    const int vec = std::max(8, dv / 32);
    const int bdx = std::max(1, dv / vec), bdy = std::max(1, 128 / bdx);
    work::kernel_launch k;
    k.name = "PersistentVariableLengthMergeStatesKernel";
    const double smem = 4.0 * bdy * dv * 2 + 128 * 4;
    k.launch = {128, decode_registers, work::tile_smem(smem, smem, g, k.name)};
    const int occ = std::max(1, gpu::ctas_per_sm(g, k.launch));
    const std::int64_t per_sm = std::max<std::int64_t>(1, std::min<std::int64_t>(occ, ceil_div(std::int64_t(max_units), g.sm_count)));
    k.dispatch = work::dispatch_kind::persistent_static;
    k.persistent_ctas = per_sm * g.sm_count;
    for (const auto& [chunks, units] : units_by_chunks) {
        work::task_work w;
        const double c = double(chunks);
        w.l2_bytes = c * (dv * 2.0 + 4.0) + dv * 2.0 + 4.0;
        w.fma_ops = c * dv * 2.0;
        w.xu_ops = c;
        k.tasks.push_back({w, std::int64_t(units)});
    }
    k.compulsory = work::task_work{};  // splitting is the library's choice (op_work.hpp)
    return k;
}

}  // namespace flashinfer_detail

/// FlashInfer (SGLang `flashinfer` backend): batch prefill (FA2-style or the SM90 plan) and batch decode.
struct flashinfer {
    static constexpr kernel_impl impl = kernel_impl::flashinfer;

    /// Whether the SM90 prefill plan runs: sm_90, 16-bit KV and math, head dims 64/128/256 (or 192/128).
    [[nodiscard]] static bool uses_sm90_prefill(const attention_problem& p, const gpu::gpu_numbers& g) noexcept {
        const int d = p.head_dim, dv = p.dv();
        const bool dims = (d == dv && (d == 64 || d == 128 || d == 256)) || (d == 192 && dv == 128);
        return g.cc_major == 9 && p.stage == phase::prefill && p.kv_type == kv_dtype::bf16 && !p.fp8_compute && dims;
    }
    /// Whether decode runs the tensor-core prefill kernel (h / h_k > 4, as SGLang and vLLM decide).
    [[nodiscard]] static bool decode_uses_tensor_cores(const attention_problem& p) noexcept { return p.group_size() > 4; }

    /// cc 8.x, 9.x, 10.x, 12.x; head dims 64, 128, 256 with dv == d (192/128 on sm_90 prefill); 16-bit math
    /// (an FP8 KV cache is read and converted).
    [[nodiscard]] static bool supports(const attention_problem& p, const gpu::gpu_numbers& g) noexcept {
        if (g.cc_major < 8 || p.fp8_compute) return false;
        const int d = p.head_dim, dv = p.dv();
        if (d == dv && (d == 64 || d == 128 || d == 256)) return true;
        return uses_sm90_prefill(p, g);
    }

    /// Prefill or decode kernels for problem `p` on GPU `g`.
    [[nodiscard]] static attention_plan plan(const attention_problem& p, const gpu::gpu_numbers& g) {
        validate(p);
        if (!supports(p, g))
            synperf::detail::report_error("attention: flashinfer has no kernel for head_dim " + std::to_string(p.head_dim) +
                                          ", v_head_dim " + std::to_string(p.dv()) + (p.fp8_compute ? ", FP8 math" : "") +
                                          " on compute capability " + std::to_string(g.cc_major) + "." +
                                          std::to_string(g.cc_minor));
        attention_plan out;
        if (p.stage == phase::prefill) {
            out = uses_sm90_prefill(p, g) ? sm90_prefill(p, g) : fa2_prefill(p, g, 1, "flashinfer_fa2_prefill");
        } else {
            out = decode_uses_tensor_cores(p) ? fa2_prefill(p, g, p.page_size, "flashinfer_decode_tensor_cores")
                                              : cuda_core_decode(p, g);
        }
        out.implementation = impl;
        const op_bytes bytes = compulsory_bytes(p);
        out.kv_footprint_bytes = bytes.kv;
        out.q_o_bytes = bytes.q + bytes.o;
        out.attention_kernels = out.kernels.size();
        return out;
    }

private:
    [[nodiscard]] static flash_detail::unit_shape shape_of(const attention_problem& p, const gpu::gpu_numbers& g, int tq, int tkv,
                                                           gpu::mma_issue issue) {
        flash_detail::unit_shape s;
        s.tile_q = tq;
        s.tile_kv = tkv;
        s.head_dim = p.head_dim;
        s.v_head_dim = p.dv();
        s.q_bytes = q_element_bytes(p);
        s.kv_bytes = p.kv_bytes_per_element();
        s.mma_type = op_detail::math_type(p, g);
        s.mma_issue = issue;
        s.fma_lanes_per_issue = g.fma_lanes_per_issue();
        return s;
    }

    /// FA2-style batch prefill; `page` tokens per KV page as the plan counts them (1: ragged KV).
    [[nodiscard]] static attention_plan fa2_prefill(const attention_problem& p, const gpu::gpu_numbers& g, int page,
                                                    const char* variant) {
        using flash_detail::ceil_div;
        const std::int64_t group = p.group_size();
        const flash_detail::mask m = flash_detail::mask_of(p);
        std::int64_t packed_sum = 0;
        for (const request_group& r : p.requests) packed_sum += r.q_len * group * r.count;
        const std::int64_t avg = packed_sum / p.batch();
        const int tq = flashinfer_detail::cta_tile_q(avg, p.dv(), p.head_dim, p.kv_bytes_per_element(), g.smem_per_cta_bytes);
        const flashinfer_detail::fa2_kernel k = flashinfer_detail::fa2_shape(tq, p.head_dim, p.dv(), p.kv_bytes_per_element(), g);

        // KV chunks (in pages): effective KV under a window is ceil((window_left + tile_q) / page).
        std::vector<kv_chunk_request> reqs;
        reqs.reserve(p.requests.size());
        for (const request_group& r : p.requests) {
            std::int64_t pages = ceil_div(r.kv_len, page);
            if (m.window > 0) pages = std::min(pages, ceil_div(m.window - 1 + tq, page));
            reqs.push_back({r.q_len * group, pages, r.count});
        }
        const std::int64_t max_batch_if_split = (2 * std::int64_t{g.sm_count}) / p.kv_heads;
        const kv_chunk_choice chunk = flashinfer_kv_chunk_size(reqs, max_batch_if_split, tq, std::max(128 / page, 1));
        const std::int64_t chunk_tokens = chunk.split ? chunk.chunk * page : std::int64_t{1} << 62;

        flash_detail::unit_tally tally;
        std::vector<std::pair<std::int64_t, double>> merge_units;  // (chunks, (row, head) units)
        for (std::size_t i = 0; i < p.requests.size(); ++i) {
            const request_group& r = p.requests[i];
            const std::int64_t tiles = ceil_div(r.q_len * group, tq);
            const std::int64_t chunks = chunk.split ? ceil_div(std::max<std::int64_t>(reqs[i].kv_len, 1), chunk.chunk) : 1;
            const std::int64_t units = r.count * p.kv_heads;
            for (std::int64_t t = 0; t < tiles; ++t) {
                // Token range the tile's rows see, then each chunk's share of it, in CTA_TILE_KV steps.
                const flash_detail::block_range tok = flash_detail::kv_blocks(r, m, group, t * tq, tq, 1);
                const std::int64_t origin = m.window > 0 ? tok.first : 0;
                for (std::int64_t c = 0; c < chunks; ++c) {
                    const std::int64_t lo = std::max(tok.first, origin + c * chunk_tokens);
                    const std::int64_t hi = std::min(tok.last, chunks == 1 ? tok.last : origin + (c + 1) * chunk_tokens);
                    tally.add(hi > lo ? ceil_div(hi - lo, k.tile_kv) : 0, false, units);
                }
            }
            if (chunk.split) {
                const double rows = double(r.q_len) * p.heads * double(r.count);
                auto it = std::find_if(merge_units.begin(), merge_units.end(), [&](const auto& e) { return e.first == chunks; });
                if (it == merge_units.end()) merge_units.emplace_back(chunks, rows);
                else it->second += rows;
            }
        }
        // The FA2-style kernels issue mma.sync (FlashInfer's mma.cuh).
        const flash_detail::unit_shape s = shape_of(p, g, tq, k.tile_kv, gpu::mma_issue::warp_sync);
        const work::task_work floor = compulsory_attention_work(p, g, gpu::mma_issue::warp_sync);

        attention_plan out;
        out.variant = variant;
        out.tile_q = tq;
        out.tile_kv = k.tile_kv;
        std::int64_t max_chunks = 1;
        for (const auto& [chunks, rows] : merge_units) max_chunks = std::max(max_chunks, chunks);
        out.splits = int(max_chunks);
        out.pack_gqa = group > 1;
        work::kernel_launch main;
        main.name = std::string("BatchPrefillWithKVCacheKernel_") + std::to_string(tq) + "x" + std::to_string(k.tile_kv) +
                    (chunk.split ? "_split" : "");
        main.launch = {128, flash_detail::mma_sync_registers(tq, k.tile_kv, p.dv(), 128), work::tile_smem(k.smem, k.essential, g, main.name)};
        main.dispatch = work::dispatch_kind::hardware;
        main.tasks = flash_detail::make_classes(tally.finish(), s, floor.dram_bytes);
        main.compulsory = floor;
        out.kernels.push_back(std::move(main));
        if (chunk.split) out.kernels.push_back(flashinfer_detail::merge_kernel(merge_units, p.dv(), double(p.q_tokens()) * p.heads, g));
        return out;
    }

    /// SM90 prefill: per query head, requests by KV length descending, q tiles last to first, each to the
    /// least-loaded of SMs persistent CTAs (no GQA packing in this kernel).
    [[nodiscard]] static attention_plan sm90_prefill(const attention_problem& p, const gpu::gpu_numbers& g) {
        using flash_detail::ceil_div;
        const flash_detail::mask m = flash_detail::mask_of(p);
        const int tq = p.dv() == 64 ? 192 : 128;  // PrefillSM90Plan cta_tile_q
        const int tkv = flashinfer_detail::sm90_tile(p.head_dim, p.dv(), m.causal).second;
        flash_detail::unit_tally tally;
        for (const request_group& r : p.requests) {
            const std::int64_t tiles = ceil_div(r.q_len, tq);
            for (std::int64_t t = tiles - 1; t >= 0; --t)
                tally.add(flash_detail::kv_blocks(r, m, 1, t * tq, tq, tkv).size(), false, r.count * p.heads);
        }
        const flash_detail::unit_shape s = shape_of(p, g, tq, tkv, gpu::mma_issue::native);  // wgmma
        const work::task_work floor = compulsory_attention_work(p, g);
        attention_plan out;
        out.variant = "flashinfer_sm90_prefill";
        out.tile_q = tq;
        out.tile_kv = tkv;
        work::kernel_launch main;
        main.name = "BatchPrefillWithRaggedKVCacheKernelSM90_" + std::to_string(tq) + "x" + std::to_string(tkv);
        const int threads = (tq / 64 + 1) * 128;  // consumer warp groups + one producer
        const double q_tile = double(tq) * p.head_dim * 2, kv_stage = double(tkv) * double(p.head_dim + p.dv()) * 2;
        const double smem = q_tile + 2.0 * kv_stage + double(tq) * p.dv() * 2;
        main.launch = {threads, flash_detail::warp_specialized_registers(g, threads), work::tile_smem(smem, q_tile + kv_stage, g, main.name)};
        main.dispatch = work::dispatch_kind::persistent_longest_first;
        main.persistent_ctas = g.sm_count;
        main.tasks = flash_detail::make_classes(tally.finish(), s, floor.dram_bytes);
        main.compulsory = floor;
        out.kernels.push_back(std::move(main));
        return out;
    }

    /// BatchDecode on CUDA cores: one CTA per (request chunk, KV head) covering the g query heads.
    [[nodiscard]] static attention_plan cuda_core_decode(const attention_problem& p, const gpu::gpu_numbers& g) {
        using flash_detail::ceil_div;
        const int d = p.head_dim;
        const int group = p.group_size();
        const double e = p.kv_bytes_per_element();
        const int vec = std::max(int(16 / e), d / 32);
        const int bdx = d / vec, bdy = group;
        const int threads = std::max(128, bdx * bdy);
        const int bdz = threads / (bdx * bdy);
        const int tile = group == 1 ? (e == 1 ? 2 : 4) : 1;
        constexpr int stages = 2;  // cc >= 8
        const int smem = int(2.0 * stages * tile * bdy * bdz * d * e) + std::max(tile * threads * 8, 2 * bdy * bdz * 4);
        work::launch_config launch{threads, flashinfer_detail::decode_registers,
                                   work::tile_smem(smem, smem, g, "BatchDecodeWithPagedKVCacheKernel")};
        const std::int64_t max_grid = std::int64_t{std::max(1, gpu::ctas_per_sm(g, launch))} * g.sm_count;

        const int page = p.page_size;
        std::vector<kv_chunk_request> reqs;
        reqs.reserve(p.requests.size());
        for (const request_group& r : p.requests) {
            const std::int64_t tokens = p.window > 0 ? std::min(r.kv_len, p.window) : r.kv_len;
            reqs.push_back({1, ceil_div(tokens, page), r.count});
        }
        std::int64_t chunk_pages = 0;
        bool split = false;
        for (const kv_chunk_request& r : reqs) chunk_pages = std::max(chunk_pages, r.kv_len);
        if (p.batch() * p.kv_heads < max_grid) {
            const kv_chunk_choice c = flashinfer_decode_chunk_pages(reqs, max_grid, p.kv_heads, std::max(128 / page, 1));
            split = c.new_batch_size != p.batch();  // no CUDA graph: split only if it adds CTAs
            if (split) chunk_pages = c.chunk;
        }
        const std::int64_t chunk_tokens = chunk_pages * page;
        const int step = tile * bdy * bdz;  // keys per pipeline step of the CTA

        flash_detail::unit_tally tally;
        std::vector<std::pair<std::int64_t, double>> merge_units;
        for (const request_group& r : p.requests) {
            const std::int64_t tokens = p.window > 0 ? std::min(r.kv_len, p.window) : r.kv_len;
            const std::int64_t chunks = split ? ceil_div(tokens, chunk_tokens) : 1;
            const std::int64_t full = split ? tokens / chunk_tokens : 0;
            if (split) {
                tally.add(ceil_div(chunk_tokens, step), false, full * r.count * p.kv_heads);
                if (tokens > full * chunk_tokens) tally.add(ceil_div(tokens - full * chunk_tokens, step), false, r.count * p.kv_heads);
                auto it = std::find_if(merge_units.begin(), merge_units.end(), [&](const auto& x) { return x.first == chunks; });
                const double rows = double(p.heads) * double(r.count);
                if (it == merge_units.end()) merge_units.emplace_back(chunks, rows);
                else it->second += rows;
            } else {
                tally.add(ceil_div(tokens, step), false, r.count * p.kv_heads);
            }
        }
        flash_detail::unit_shape s = shape_of(p, g, group, step, gpu::mma_issue::native);
        s.tensor_cores = false;
        const work::task_work floor = compulsory_attention_work(p, g);

        attention_plan out;
        out.variant = "flashinfer_decode";
        out.tile_q = group;
        out.tile_kv = step;
        std::int64_t max_chunks = 1;
        for (const auto& [c, rows] : merge_units) max_chunks = std::max(max_chunks, c);
        out.splits = int(max_chunks);
        out.pack_gqa = group > 1;
        work::kernel_launch main;
        main.name = "BatchDecodeWithPagedKVCacheKernel_" + std::to_string(bdx) + "x" + std::to_string(bdy) + "x" +
                    std::to_string(bdz) + (split ? "_split" : "");
        main.launch = launch;
        main.dispatch = work::dispatch_kind::hardware;
        main.tasks = flash_detail::make_classes(tally.finish(), s, floor.dram_bytes);
        main.compulsory = floor;
        out.kernels.push_back(std::move(main));
        if (split) out.kernels.push_back(flashinfer_detail::merge_kernel(merge_units, p.dv(), double(p.batch()) * p.heads, g));
        return out;
    }
};

static_assert(AttentionKernel<flashinfer>);

}  // namespace synperf::family::attention
