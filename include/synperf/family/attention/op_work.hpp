// SPDX-License-Identifier: Apache-2.0
#pragma once
/// \file What every attention implementation must do (the op's compulsory work and bytes), and the KV
/// range one query block visits; shared by the kernel models.
#include <algorithm>
#include <cstdint>
#include <vector>

#include "synperf/family/attention/flash_tile.hpp"
#include "synperf/family/attention/kernel_plan.hpp"
#include "synperf/family/attention/problem.hpp"
#include "synperf/family/attention/tile_classes.hpp"
#include "synperf/gpu/numbers.hpp"
#include "synperf/work/launch.hpp"
#include "synperf/work/task.hpp"

namespace synperf::family::attention {

/// Bytes the op must read and write, whatever the kernel: Q, the K/V its mask can reach, O.
struct op_bytes {
    double q = 0;   ///< Q read
    double kv = 0;  ///< K + V read (the union of keys the batch's queries can see)
    double o = 0;   ///< O written
    [[nodiscard]] constexpr double footprint() const noexcept { return q + kv + o; }
};

/// KV tokens of one request that its queries can reach: all of them, or under a sliding window the last
/// `q_len + window - 1` (the union of the queries' windows).
[[nodiscard]] inline double reachable_kv(const attention_problem& p, const request_group& r) noexcept {
    const double kv = double(r.kv_len);
    if (p.window <= 0) return kv;
    return std::min(kv, double(r.q_len) + double(p.window) - 1.0);
}

/// Element bytes of Q and O as the attention kernel reads and writes them (FP8 math reads an FP8 Q).
[[nodiscard]] inline double q_element_bytes(const attention_problem& p) noexcept { return p.fp8_compute ? 1.0 : 2.0; }

/// Q, K/V and O bytes of the batch (unique bytes: when `v_reads_k`, V's reads land on K's blocks and hit, so only K
/// counts).
[[nodiscard]] inline op_bytes compulsory_bytes(const attention_problem& p, bool v_reads_k) noexcept {
    op_bytes b;
    const double qe = q_element_bytes(p);
    double kv_tokens = 0;
    for (const request_group& r : p.requests) kv_tokens += reachable_kv(p, r) * double(r.count);
    const double q_tokens = double(p.q_tokens());
    b.q = q_tokens * p.heads * p.head_dim * qe;
    b.o = q_tokens * p.heads * p.dv() * 2.0;  // outputs are written in bf16
    b.kv = kv_tokens * p.kv_heads * double(p.head_dim + (v_reads_k ? 0 : p.dv())) * p.kv_bytes_per_element();
    return b;
}

/// The problem's own unique bytes (V counted only when it does not alias K: `v_aliases_k`).
[[nodiscard]] inline op_bytes compulsory_bytes(const attention_problem& p) noexcept { return compulsory_bytes(p, p.v_aliases_k); }

namespace op_detail {

/// Tensor input type of the attention math on `g`: FP8 when the problem asks for FP8 math and the GPU has
/// an FP8 rate, else bf16.
[[nodiscard]] inline gpu::tensor_dtype math_type(const attention_problem& p, const gpu::gpu_numbers& g) noexcept {
    return p.fp8_compute && g.tensor_fp8_flop_per_clk > 0 ? gpu::tensor_dtype::fp8 : gpu::tensor_dtype::bf16;
}

}  // namespace op_detail

/// The attention kernel's compulsory work: useful MMA flop 2 (d + dv) per attended pair and head, one exp
/// per attended pair and head, and the footprint Q + K + V + O split into the bytes that cannot stay
/// resident in L2 (DRAM) and the rest (L2). Split-KV partials are the library's choice and are left out, so
/// the bound stays monotonic in the lengths. `v_reads_k`: V's reads hit K's blocks (see `compulsory_bytes`).
[[nodiscard]] inline work::task_work compulsory_attention_work(const attention_problem& p, const gpu::gpu_numbers& g, bool v_reads_k) {
    work::task_work w;
    const double pairs = p.attended_pairs() * p.heads;
    w.tensor_flop = 2.0 * double(p.head_dim + p.dv()) * pairs;
    w.tensor_type = op_detail::math_type(p, g);
    w.xu_ops = pairs;
    const double footprint = compulsory_bytes(p, v_reads_k).footprint();
    w.dram_bytes = std::max(0.0, footprint - g.l2_bytes);
    w.l2_bytes = footprint - w.dram_bytes;
    return w;
}

/// The compulsory work of the problem as given (V aliases K when `v_aliases_k`).
[[nodiscard]] inline work::task_work compulsory_attention_work(const attention_problem& p, const gpu::gpu_numbers& g) {
    return compulsory_attention_work(p, g, p.v_aliases_k);
}

/// The compulsory work of a kernel that issues its MMAs as `issue`: an mma.sync kernel cannot reach the
/// dense rate of sm_90 / sm_100, so its own rate is its bound (`gpu_numbers::warp_mma_flop_per_clk`).
[[nodiscard]] inline work::task_work compulsory_attention_work(const attention_problem& p, const gpu::gpu_numbers& g,
                                                               gpu::mma_issue issue) {
    work::task_work w = compulsory_attention_work(p, g);
    w.tensor_issue = issue;
    return w;
}

namespace op_detail {

/// KV tiles a query block visits: rows [m0, m0 + rows) of a request with `q_len` new tokens after
/// `prefix` cached ones; causal stops at the block's last row, a window starts at the first row's window
/// (aligned down to a tile, as the kernels iterate).
[[nodiscard]] inline std::int64_t visited_kv_tiles(const attention_problem& p, std::int64_t q_len, std::int64_t kv_len,
                                                   std::int64_t m0, std::int64_t rows, int tile_kv) noexcept {
    const std::int64_t prefix = kv_len - q_len;
    std::int64_t end = kv_len;
    if (p.causal && p.stage == phase::prefill) end = std::min(kv_len, prefix + std::min(q_len, m0 + rows));
    std::int64_t begin = 0;
    if (p.window > 0) begin = std::max<std::int64_t>(0, prefix + m0 - p.window + 1) / tile_kv * tile_kv;
    if (end <= begin) return 0;
    return (end - begin + tile_kv - 1) / tile_kv;
}

/// KV tokens a query block visits, in whole KV tiles (`visited_kv_tiles` x `tile_kv`).
[[nodiscard]] inline double visited_kv(const attention_problem& p, std::int64_t q_len, std::int64_t kv_len,
                                       std::int64_t m0, std::int64_t rows, int tile_kv) noexcept {
    return double(visited_kv_tiles(p, q_len, kv_len, m0, rows, tile_kv)) * tile_kv;
}

/// Spreads `dram_bytes` over a launch's tasks in proportion to their L2 traffic (expected DRAM traffic of a
/// kernel is known as a whole, not per tile).
inline void spread_dram(work::kernel_launch& k, double dram_bytes) {
    double total = 0;
    for (const auto& c : k.tasks) total += c.work.l2_bytes * double(c.count);
    if (total <= 0) return;
    for (auto& c : k.tasks) c.work.dram_bytes = dram_bytes * c.work.l2_bytes / total;
}

/// ceil(a / b) for positive integers.
[[nodiscard]] constexpr std::int64_t ceil_div(std::int64_t a, std::int64_t b) noexcept { return (a + b - 1) / b; }

/// Adds one task class per (request group, query block) of a one-CTA-per-(block, head) prefill grid:
/// `tile_q` padded rows against the KV tiles the block visits; `count` = requests x heads. With
/// `last_block_first` the blocks are listed from the last (longest under a causal mask) to the first, the
/// order persistent schedulers hand them out in. Under a longest-first dispatch (`k.dispatch`) units of one
/// length are interchangeable: one class per visited KV length instead, longest first, which leaves the
/// schedule as it is and spares the scheduler hundreds of classes on ragged batches.
inline void add_prefill_tiles(work::kernel_launch& k, const attention_problem& p, int tile_q, int tile_kv,
                              const flash_tile_shape& base, bool last_block_first) {
    if (k.dispatch == work::dispatch_kind::persistent_longest_first) {
        std::int64_t max_kv = 0;  // no block visits more KV tiles than the longest request has
        for (const request_group& r : p.requests) max_kv = std::max(max_kv, r.kv_len);
        flash_detail::unit_tally by_length(ceil_div(max_kv, tile_kv));
        for (const request_group& r : p.requests) {
            const std::int64_t blocks = ceil_div(r.q_len, tile_q);
            for (std::int64_t m = 0; m < blocks; ++m)
                by_length.add(visited_kv_tiles(p, r.q_len, r.kv_len, m * tile_q, tile_q, tile_kv), false, r.count * p.heads);
        }
        for (const flash_detail::unit_count& u : by_length.finish()) {
            flash_tile_shape s = base;
            s.rows = tile_q;
            s.kv = double(u.iters) * tile_kv;
            k.tasks.push_back({flash_tile_work(s), u.count});
        }
        return;
    }
    for (const request_group& r : p.requests) {
        const std::int64_t blocks = ceil_div(r.q_len, tile_q);
        for (std::int64_t i = 0; i < blocks; ++i) {
            const std::int64_t m = last_block_first ? blocks - 1 - i : i;
            flash_tile_shape s = base;
            s.rows = tile_q;
            s.kv = visited_kv(p, r.q_len, r.kv_len, m * tile_q, tile_q, tile_kv);
            k.tasks.push_back({flash_tile_work(s), r.count * p.heads});
        }
    }
}

/// Tasks of a launch, summed over its classes.
[[nodiscard]] inline std::int64_t task_count(const work::kernel_launch& k) noexcept {
    std::int64_t n = 0;
    for (const auto& c : k.tasks) n += c.count;
    return n;
}

/// Rounds `v` up to a multiple of `unit`.
[[nodiscard]] constexpr std::int64_t round_up(std::int64_t v, std::int64_t unit) noexcept { return ceil_div(v, unit) * unit; }

/// Work one split-KV CTA adds when it merges its partial result in the kernel (XQA, trtllm-gen): partial
/// O and (max, sum) written as FP32 and read back by the merging CTA, one rescale FMA per element.
[[nodiscard]] inline work::task_work in_kernel_merge_work(double rows, int dv) noexcept {
    work::task_work w;
    w.l2_bytes = 2.0 * rows * (double(dv) * 4.0 + 8.0);
    w.fma_ops = 2.0 * rows * double(dv);
    w.xu_ops = rows;
    return w;
}

}  // namespace op_detail

}  // namespace synperf::family::attention
