// SPDX-License-Identifier: Apache-2.0
#pragma once
/// \file Task classes of flash-style kernels: work units tallied by their KV iterations, the KV block
/// range of a query block, and the launch assembly shared by the FA3, FA2 and FlashInfer models.
///
/// A flash kernel's CTAs (or persistent work units) differ only in how many KV tiles they visit and in
/// whether they write a split-KV partial, so units are tallied by (iterations, partial) with counts: a
/// uniform batch gives at most one class per query block, whatever its batch size and head count.
#include <algorithm>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "synperf/family/attention/flash_tile.hpp"
#include "synperf/family/attention/problem.hpp"
#include "synperf/gpu/numbers.hpp"
#include "synperf/work/launch.hpp"
#include "synperf/work/task.hpp"

namespace synperf::family::attention::flash_detail {

/// ceil(a / b) for a >= 0, b > 0.
[[nodiscard]] constexpr std::int64_t ceil_div(std::int64_t a, std::int64_t b) noexcept { return (a + b - 1) / b; }

/// The mask as the kernels see it.
struct mask {
    bool causal = false;       ///< bottom-right aligned causal mask (prefill)
    std::int64_t window = 0;   ///< keys a query sees at most, itself included (0: unlimited)
    /// FlashAttention's "local" mode: any window (a causal window is run as local, not causal).
    [[nodiscard]] constexpr bool local() const noexcept { return window > 0; }
};

/// The mask of a problem: causal only in prefill (a single decode query sees every cached key, which is
/// also what FlashAttention makes of causal with one query).
[[nodiscard]] inline mask mask_of(const attention_problem& p) noexcept {
    std::int64_t max_q = 0;
    for (const request_group& r : p.requests) max_q = std::max(max_q, r.q_len);
    return {p.causal && p.stage == phase::prefill && max_q > 1, p.window};
}

/// KV blocks [first, last) a block of packed query rows visits.
struct block_range {
    std::int64_t first = 0;
    std::int64_t last = 0;
    [[nodiscard]] constexpr std::int64_t size() const noexcept { return last > first ? last - first : 0; }
};

/// KV blocks of `tile_kv` keys that packed rows [row0, row0 + tile_q) of request `r` visit, `pack` query
/// heads per query token (row = token * pack + head). Causal: up to the last row's key; a window: from the
/// first row's first key, rounded down to a block (flash-attention hopper/block.h get_n_block_min_max).
[[nodiscard]] constexpr block_range kv_blocks(const request_group& r, mask m, std::int64_t pack, std::int64_t row0,
                                              std::int64_t tile_q, std::int64_t tile_kv) noexcept {
    const std::int64_t rows = r.q_len * pack;
    const std::int64_t row1 = std::min(rows, row0 + tile_q);
    if (row1 <= row0) return {};
    const std::int64_t q_first = row0 / pack, q_last = (row1 - 1) / pack;
    const std::int64_t prefix = r.kv_len - r.q_len;
    std::int64_t hi = r.kv_len, lo = 0;
    if (m.causal) {
        hi = std::min(r.kv_len, prefix + q_last + 1);
        if (m.window > 0) lo = std::max<std::int64_t>(0, prefix + q_first + 1 - m.window);
    } else if (m.window > 0) {
        lo = std::max<std::int64_t>(0, r.kv_len - m.window);
    }
    if (hi <= lo) return {};
    return {lo / tile_kv, ceil_div(hi, tile_kv)};
}

/// A run of consecutive query blocks that visit the same number of KV blocks.
struct block_run {
    std::int64_t kv_blocks = 0;  ///< KV blocks each query block of the run visits
    std::int64_t blocks = 0;     ///< query blocks in the run
};

/// The query blocks b = 0, 1, 2, ... of request `r` under a causal mask without a window, as runs of equal
/// `kv_blocks(r, m, pack, b * tile_q, tile_q, tile_kv).size()`. A long prefill has thousands of query blocks
/// but only about q_len / tile_kv distinct counts, so runs cost a few divisions each instead of one pass
/// per block.
///
/// Block b's last query token is t(b) = min(((b + 1) tile_q - 1) / pack, q_len - 1) and it sees keys up to
/// h(b) = min(kv_len, prefix + t(b) + 1), prefix = kv_len - q_len; it visits ceil(h(b) / tile_kv) blocks (0
/// when h(b) <= 0). The count is non-decreasing in b, and it stays at most j while t(b) <= j tile_kv - prefix - 1,
/// that is, for b < ((j tile_kv - prefix) pack) / tile_q.
class causal_block_runs {
public:
    causal_block_runs(const request_group& r, std::int64_t pack, std::int64_t tile_q, std::int64_t tile_kv) noexcept
        : kv_len_(r.kv_len), prefix_(r.kv_len - r.q_len), q_max_(r.q_len - 1), pack_(pack), tile_q_(tile_q),
          tile_kv_(tile_kv), blocks_(ceil_div(r.q_len * pack, tile_q)) {}

    /// False once every block has been returned.
    [[nodiscard]] bool more() const noexcept { return next_ < blocks_; }

    /// The next run (call only while `more()`).
    block_run next() noexcept {
        std::int64_t count = next_count_;
        if (count < 0) {
            const std::int64_t h = keys_seen(next_);
            count = h <= 0 ? 0 : ceil_div(h, tile_kv_);
        }
        std::int64_t end = blocks_;
        // The run ends at the first block that sees more than count * tile_kv keys; none does once the blocks
        // see every key or reach the last query token.
        const std::int64_t last_token = count * tile_kv_ - prefix_ - 1;  // the last token that sees <= count blocks
        if (count * tile_kv_ < kv_len_ && last_token < q_max_)
            end = std::max(next_ + 1, std::min(blocks_, (last_token + 1) * pack_ / tile_q_));  // a run holds >= 1 block
        const block_run run{count, end - next_};
        next_ = end;
        // The next block's last token lies past the run's and at most ceil(tile_q / pack) tokens after its
        // last block's: when that is at most tile_kv, it sees exactly one KV block more.
        next_count_ = tile_q_ <= pack_ * tile_kv_ ? count + 1 : -1;
        return run;
    }

private:
    // One past the last key the last query token of block b sees.
    [[nodiscard]] std::int64_t keys_seen(std::int64_t b) const noexcept {
        const std::int64_t token = std::min(((b + 1) * tile_q_ - 1) / pack_, q_max_);
        return std::min(kv_len_, prefix_ + token + 1);
    }

    std::int64_t kv_len_, prefix_, q_max_, pack_, tile_q_, tile_kv_, blocks_;
    std::int64_t next_ = 0;
    std::int64_t next_count_ = -1;  ///< KV blocks of the next run where known without dividing (-1: not known)
};

/// Splits a block range into `splits` near-equal parts and returns part `s` (FA2/FA3 split-KV).
[[nodiscard]] constexpr block_range split_part(block_range b, std::int64_t splits, std::int64_t s) noexcept {
    if (splits <= 1) return b;
    const std::int64_t per = b.size() == 0 ? 0 : ceil_div(b.size(), splits);
    const std::int64_t first = b.first + s * per;
    return {first, std::min(b.last, first + per)};
}

/// `count` work units that visit `iters` KV tiles; `partial`: they write an FP32 split-KV partial.
struct unit_count {
    std::int64_t iters = 0;
    bool partial = false;
    std::int64_t count = 0;
};

/// Tally of work units by (iterations, partial); adjacent equal keys merge at once, `finish` merges the rest.
class unit_tally {
public:
    unit_tally() = default;
    /// A tally whose units visit at most `max_iters` KV tiles: up to a few thousand, it counts them straight
    /// into a table indexed by (iterations, partial), which `finish` reads from the top.
    explicit unit_tally(std::int64_t max_iters) {
        if (max_iters >= 0 && max_iters < max_table_iters) table_.assign(2 * static_cast<std::size_t>(max_iters + 1), 0);
    }

    void add(std::int64_t iters, bool partial, std::int64_t count) {
        if (count <= 0) return;
        if (iters <= 0) partial = false;  // an empty unit exits before writing anything
        if (iters >= 0 && static_cast<std::size_t>(iters) < table_.size() / 2) {
            table_[2 * static_cast<std::size_t>(iters) + (partial ? 1 : 0)] += count;
            in_table_ = true;
            return;
        }
        add_to_list(iters, partial, count);
    }
    /// Sorted longest first (then full outputs before partials), equal keys merged.
    [[nodiscard]] std::vector<unit_count> finish() {
        if (units_.empty()) return read_table();
        if (in_table_) {  // a count beyond the bound: the table's units join the list
            for (unit_count& u : read_table()) units_.push_back(u);
            table_.clear();
            in_table_ = false;
        }
        const auto [low, high] = std::minmax_element(units_.begin(), units_.end(),
                                                     [](const unit_count& a, const unit_count& b) { return a.iters < b.iters; });
        const std::int64_t first = low->iters;
        // Iteration counts span a short range (the KV tiles of one sequence): counting them per (iterations,
        // partial) costs O(units + range), where sorting them took most of a ragged prefill's planning.
        if (const std::int64_t range = high->iters - first + 1; range <= 8 * static_cast<std::int64_t>(units_.size()) + 64)
            return finish_by_counting(first, static_cast<std::size_t>(range));
        std::sort(units_.begin(), units_.end(), [](const unit_count& a, const unit_count& b) {
            return a.iters != b.iters ? a.iters > b.iters : (a.partial < b.partial);
        });
        std::vector<unit_count> out;
        out.reserve(units_.size());
        for (const unit_count& u : units_) {
            if (!out.empty() && out.back().iters == u.iters && out.back().partial == u.partial)
                out.back().count += u.count;
            else
                out.push_back(u);
        }
        return out;
    }
    [[nodiscard]] bool empty() const noexcept { return units_.empty() && !in_table_; }

private:
    /// `finish` for iteration counts in [first, first + range): the units per (iterations, partial), read
    /// from the longest down.
    [[nodiscard]] std::vector<unit_count> finish_by_counting(std::int64_t first, std::size_t range) const {
        std::vector<std::int64_t> counts(2 * range, 0);  // [2 i]: full outputs, [2 i + 1]: partials
        for (const unit_count& u : units_)
            counts[2 * static_cast<std::size_t>(u.iters - first) + (u.partial ? 1 : 0)] += u.count;
        std::vector<unit_count> out;
        for (std::size_t i = range; i-- > 0;)
            for (const bool partial : {false, true})
                if (const std::int64_t n = counts[2 * i + (partial ? 1 : 0)]; n > 0)
                    out.push_back({first + static_cast<std::int64_t>(i), partial, n});
        return out;
    }

    // Out of line, so that `add` stays small enough for the planners' loops to inline its table path.
    [[gnu::noinline]] void add_to_list(std::int64_t iters, bool partial, std::int64_t count) {
        if (!units_.empty() && units_.back().iters == iters && units_.back().partial == partial) {
            units_.back().count += count;
            return;
        }
        units_.push_back({iters, partial, count});
    }

    /// The table's units, longest first, full outputs before partials.
    [[nodiscard]] std::vector<unit_count> read_table() const {
        std::vector<unit_count> out;
        if (!in_table_) return out;
        for (std::size_t i = table_.size() / 2; i-- > 0;)
            for (const bool partial : {false, true})
                if (const std::int64_t n = table_[2 * i + (partial ? 1 : 0)]; n > 0)
                    out.push_back({static_cast<std::int64_t>(i), partial, n});
        return out;
    }

    static constexpr std::int64_t max_table_iters = std::int64_t{1} << 16;
    std::vector<std::int64_t> table_;  ///< [2 i]: full outputs of i iterations, [2 i + 1]: partials
    bool in_table_ = false;
    std::vector<unit_count> units_;
};

/// What one unit of a flash kernel looks like apart from its iteration count.
struct unit_shape {
    int tile_q = 0;            ///< query rows per unit (padded, packed GQA rows included)
    int tile_kv = 0;           ///< keys per iteration
    int head_dim = 0;
    int v_head_dim = 0;
    double q_bytes = 2;        ///< Q / O element bytes
    double kv_bytes = 2;       ///< K / V element bytes
    bool tensor_cores = true;
    double fma_lanes_per_issue = 1;  ///< `flash_tile_shape::fma_lanes_per_issue`
    gpu::tensor_dtype mma_type = gpu::tensor_dtype::bf16;
    gpu::mma_issue mma_issue = gpu::mma_issue::native;  ///< warp_sync for mma.sync kernels
};

/// Work of one unit visiting `iters` KV tiles (no DRAM share yet). An FP32 partial (+ LSE) replaces the
/// bf16 output of a split unit.
[[nodiscard]] inline work::task_work unit_work(const unit_shape& s, std::int64_t iters, bool partial) noexcept {
    if (iters <= 0) {
        work::task_work none;
        none.tensor_type = s.mma_type;
        none.tensor_issue = s.mma_issue;
        return none;
    }
    flash_tile_shape t;
    t.rows = s.tile_q;
    t.kv = double(iters) * s.tile_kv;
    t.head_dim = s.head_dim;
    t.v_head_dim = s.v_head_dim;
    t.q_bytes = s.q_bytes;
    t.kv_bytes = s.kv_bytes;
    t.tensor_cores = s.tensor_cores;
    t.fma_lanes_per_issue = s.fma_lanes_per_issue;
    t.mma_type = s.mma_type;
    t.mma_issue = s.mma_issue;
    work::task_work w = flash_tile_work(t);
    if (partial) w.l2_bytes += double(s.tile_q) * (double(s.v_head_dim) * (4.0 - s.q_bytes) + 4.0);
    return w;
}

/// K/V bytes a unit of `iters` iterations reads (the weight of its DRAM share).
[[nodiscard]] constexpr double unit_kv_bytes(const unit_shape& s, std::int64_t iters) noexcept {
    return double(iters) * s.tile_kv * double(s.head_dim + s.v_head_dim) * s.kv_bytes;
}

/// Task classes of a tally, each unit carrying its share of `dram_bytes` by its K/V reads.
[[nodiscard]] inline std::vector<work::task_class> make_classes(const std::vector<unit_count>& units,
                                                                const unit_shape& s, double dram_bytes) {
    double kv_total = 0;
    for (const unit_count& u : units) kv_total += unit_kv_bytes(s, u.iters) * double(u.count);
    std::vector<work::task_class> out;
    out.reserve(units.size());
    for (const unit_count& u : units) {
        work::task_work w = unit_work(s, u.iters, u.partial);
        if (kv_total > 0) w.dram_bytes = dram_bytes * unit_kv_bytes(s, u.iters) / kv_total;
        out.push_back({w, u.count});
    }
    return out;
}

/// Registers per thread of an mma.sync flash kernel (FA2, FA3's Sm80 path, FlashInfer FA2): the O and S
/// accumulators, P in 16 bit, plus addressing; an estimate (the compilers' counts are not published),
/// capped at 255.
[[nodiscard]] constexpr int mma_sync_registers(int tile_q, int tile_kv, int dv, int threads) noexcept {
    const int o = tile_q * dv / threads;
    const int s = tile_q * tile_kv / threads;
    const int regs = o + s + s / 2 + 64;
    return std::min(255, (regs + 7) / 8 * 8);
}

/// Registers per thread at launch of a warp-specialized kernel (one CTA per SM): the register file shared
/// evenly, rounded down to 8 (setmaxnreg re-balances producer and consumers later).
[[nodiscard]] constexpr int warp_specialized_registers(const gpu::gpu_numbers& g, int threads) noexcept {
    return std::clamp(g.regs_per_sm / threads / 8 * 8, 24, std::max(24, g.max_regs_per_thread));
}

/// The split-KV combine shared by FA2 and FA3: `rows` (query token x head) outputs merged from `splits`
/// FP32 partials each; CTAs of `block_rows` rows x `block_cols` columns, `threads` threads.
struct combine_shape {
    int block_rows = 8;
    int block_cols = 128;
    int threads = 256;
};

/// Task work of one combine CTA over `splits` partials of `dv` columns.
[[nodiscard]] inline work::task_work combine_cta_work(const combine_shape& c, int dv, std::int64_t splits) noexcept {
    work::task_work w;
    const double rows = c.block_rows, cols = std::min(c.block_cols, dv), k = double(splits);
    w.l2_bytes = k * rows * (cols * 4.0 + 4.0) + rows * cols * 2.0;  // partials + LSE in, bf16 O out
    w.fma_ops = k * rows * cols + 2.0 * k * rows;                    // scale-accumulate, LSE max/sum
    w.xu_ops = k * rows;                                             // exp of each LSE difference
    return w;
}

}  // namespace synperf::family::attention::flash_detail
