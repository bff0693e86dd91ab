// SPDX-License-Identifier: Apache-2.0
#pragma once
/// \file Work of one flash-attention tile: a block of query rows against a run of KV blocks.
///
/// Every flash-style kernel (FA2, FA3, FlashInfer, TRT-LLM FMHA/XQA, Triton) runs the same online-softmax
/// loop; they differ in tiles, grids and schedulers. Per KV block of `tile_kv` keys a CTA does
/// S = Q K^T (2 rows kv d flop), P = exp(S - m) (rows kv exp2), O += P V (2 rows kv dv flop), plus the
/// scale/max/sum FP32 work, and loads K and V (kv (d + dv) elements).
#include <algorithm>
#include <cmath>
#include <cstdint>

#include "synperf/gpu/numbers.hpp"
#include "synperf/work/task.hpp"

namespace synperf::family::attention {

/// Shape of one tile's work.
struct flash_tile_shape {
    double rows = 0;          ///< query rows in the tile (packed GQA rows included; padding included)
    double kv = 0;            ///< KV tokens visited (iterations x tile_kv; padding included)
    int head_dim = 0;         ///< d
    int v_head_dim = 0;       ///< dv
    double q_bytes = 2;       ///< bytes per Q / O element
    double kv_bytes = 2;      ///< bytes per K / V element as loaded
    bool tensor_cores = true; ///< QK^T and PV on tensor cores (else on FP32 FMA lanes, e.g. decode on CUDA cores)
    gpu::tensor_dtype mma_type = gpu::tensor_dtype::bf16;  ///< tensor input type (fp8 for FP8 FMHA)
    gpu::mma_issue mma_issue = gpu::mma_issue::native;      ///< warp_sync for mma.sync kernels (FA2-style)
    double kv_reads = 1;      ///< how many times the K/V run is read by this tile (1 unless re-read per row block)
    double kv_convert_ops = 0;  ///< FP32-lane slots to convert one loaded K/V element (an FP8 cache read in 16 bit)
    double fma_lanes_per_issue = 1;  ///< `gpu_numbers::fma_lanes_per_issue` (read on the CUDA-core path only)
};

/// Work one tile puts on the pipes and on L2 (DRAM traffic is assigned by the kernel, not per tile).
[[nodiscard]] inline work::task_work flash_tile_work(const flash_tile_shape& s) noexcept {
    work::task_work w;
    const double pairs = s.rows * s.kv;
    const double mma = 2.0 * pairs * double(s.head_dim + s.v_head_dim);
    if (s.tensor_cores) {
        w.tensor_flop = mma;
        w.tensor_type = s.mma_type;
        w.tensor_issue = s.mma_issue;
        // Online softmax on FP32 lanes: scale-subtract (1 FFMA), running max and sum (2) per score, and the
        // O rescale per row per KV block (dv per 64-key step is folded into the per-score count).
        w.fma_ops = 3.0 * pairs + s.rows * double(s.v_head_dim) * (s.kv / 64.0);
    } else {
        // Dot products and the weighted V sum on CUDA cores: one FMA per multiply-add. Around them every K/V element
        // is loaded (16 bytes per thread) and unpacked to FP32, and each score's partial dot products are summed
        // across the t = d / 8 threads that hold its key (t log2 t shuffles and as many adds). The schedulers issue
        // one thread-instruction per lane per clock, so where the FP32 lanes match the issue width these
        // instructions, not the FMAs, set the pace (MMHA: about 2.5 per FMA); they enter as FMA-pipe lane-ops.
        const double fma = mma / 2.0 + 3.0 * pairs;
        const double elements = s.kv * double(s.head_dim + s.v_head_dim) * s.kv_reads;
        const double t = s.head_dim > 8 ? double(s.head_dim) / 8.0 : 1.0;
        const double reduce = t > 1 ? pairs * 2.0 * t * std::log2(t) : 0.0;
        const double issued = fma + elements * (1.0 + s.kv_bytes / 16.0) + reduce;
        w.fma_ops = std::max(fma, issued * s.fma_lanes_per_issue);
    }
    w.xu_ops = pairs + s.rows * (s.kv / 64.0);  // one exp2 per score, plus the row rescale exp2 per block
    w.fma_ops += s.kv * double(s.head_dim + s.v_head_dim) * s.kv_reads * s.kv_convert_ops;
    const double kv_load = s.kv * double(s.head_dim + s.v_head_dim) * s.kv_bytes * s.kv_reads;
    const double q_o = s.rows * double(s.head_dim + s.v_head_dim) * s.q_bytes;
    w.l2_bytes = kv_load + q_o;
    w.smem_bytes = kv_load * 2.0 + q_o;  // K/V written to smem once (TMA / cp.async) and read by the MMAs
    return w;
}

}  // namespace synperf::family::attention
