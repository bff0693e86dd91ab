// SPDX-License-Identifier: Apache-2.0
#pragma once
/// \file Token-to-expert routing of a MoE block on one rank, and moe_align_block_size's padding.
///
/// Routing is the aiconfigurator collector's `balanced` one (collector/helper.py balanced_logits): with
/// stride = ceil(E / topk), token t picks experts (t + i * stride) mod E for i < topk when T >= stride, else
/// floor(t * stride / T + i * stride) mod E; torch.topk then keeps the topk largest logits (a repeated expert
/// once, then the lowest free ids). Under expert parallelism the collector times rank 0 only
/// (collector/sglang/collect_moe.py build_rank0_workloads): the tokens with at least one of the first E / ep
/// experts, every remote slot of those tokens set to -1. What happens to the -1 slots differs:
/// - `dropped` (SGLang serving, and the collector before it clamped): moe_align_block_size sorts them into an
///   extra bucket whose m-blocks carry expert id -1; fused_moe_kernel writes zeros for those rows and returns;
/// - `clamped_to_expert0` (collect_moe.py now: topk_ids.clamp(min=0)): local expert 0 also computes all the
///   remote slots (with weight 0).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "synperf/error.hpp"

namespace synperf::family {

/// What the MoE kernels do with a token's slots routed to another rank's experts (topk id -1).
enum class moe_remote_slots { dropped, clamped_to_expert0 };

[[nodiscard]] constexpr std::string_view to_string(moe_remote_slots r) noexcept {
    return r == moe_remote_slots::dropped ? "dropped" : "clamped_to_expert0";
}

/// What the kernels of one rank see.
struct moe_routing {
    std::int64_t tokens = 0;          ///< rows of the hidden states the rank's kernels read
    std::int64_t local_experts = 0;   ///< experts held by the rank (E / ep)
    std::vector<std::int64_t> counts; ///< assignments per local expert (routed slots, incl. clamped remote ones)
    std::int64_t dropped = 0;         ///< remote slots of the rank's tokens sorted into the -1 bucket (not computed)
    [[nodiscard]] std::int64_t assignments() const {
        std::int64_t s = 0;
        for (auto c : counts) s += c;
        return s;
    }
    [[nodiscard]] std::int64_t active_experts() const {
        return std::count_if(counts.begin(), counts.end(), [](std::int64_t c) { return c > 0; });
    }
};

namespace moe_routing_detail {

constexpr std::int64_t ceil_div(std::int64_t a, std::int64_t b) noexcept { return (a + b - 1) / b; }

/// The topk distinct experts of token t (the collector's pattern, then torch.topk on the one-hot sums).
inline void experts_of(std::int64_t t, std::int64_t tokens, std::int64_t experts, std::int64_t topk,
                       std::vector<std::int64_t>& out, std::vector<char>& taken) {
    const std::int64_t stride = ceil_div(experts, topk);
    out.clear();
    for (std::int64_t i = 0; i < topk; ++i) {
        std::int64_t e;
        if (tokens >= stride) {
            e = (t + i * stride) % experts;
        } else {
            // float32 arithmetic in the collector; exact for these magnitudes, truncated by .long()
            const double v = std::fmod(double(t) * double(stride) / double(tokens) + double(i * stride), double(experts));
            e = static_cast<std::int64_t>(v);
        }
        if (!taken[std::size_t(e)]) {
            taken[std::size_t(e)] = 1;
            out.push_back(e);
        }
    }
    for (std::int64_t e = 0; std::int64_t(out.size()) < topk && e < experts; ++e)
        if (!taken[std::size_t(e)]) {
            taken[std::size_t(e)] = 1;
            out.push_back(e);
        }
    for (auto e : out) taken[std::size_t(e)] = 0;
}

/// True when no two slots of a token can land on the same expert for T >= stride (then closed forms hold).
inline bool distinct_offsets(std::int64_t experts, std::int64_t topk) {
    const std::int64_t stride = ceil_div(experts, topk);
    for (std::int64_t d = 1; d < topk; ++d)
        if ((d * stride) % experts == 0) return false;
    return true;
}

}  // namespace moe_routing_detail

/// Balanced routing of `tokens` tokens over `experts` experts, top-`topk`, as rank 0 of `ep` sees it.
inline moe_routing balanced_routing(std::int64_t tokens, std::int64_t experts, std::int64_t topk, std::int64_t ep,
                                    moe_remote_slots remote = moe_remote_slots::dropped) {
    using namespace moe_routing_detail;
    if (tokens <= 0 || experts <= 0 || topk <= 0 || ep <= 0 || topk > experts || experts % ep != 0)
        synperf::detail::report_error("moe: invalid routing (tokens " + std::to_string(tokens) + ", experts " +
                                      std::to_string(experts) + ", topk " + std::to_string(topk) + ", ep " + std::to_string(ep) + ")");
    moe_routing r;
    r.local_experts = experts / ep;
    const std::int64_t local = r.local_experts;
    std::vector<std::int64_t> global(std::size_t(experts), 0);
    std::int64_t kept = 0, kept_slots_local = 0;
    const std::int64_t stride = ceil_div(experts, topk);
    if (tokens >= stride && distinct_offsets(experts, topk)) {
        // Token t's experts depend on t mod E only: count one period, then scale.
        const std::int64_t periods = tokens / experts, rest = tokens % experts;
        for (std::int64_t t = 0; t < experts; ++t) {
            const std::int64_t n = periods + (t < rest ? 1 : 0);
            if (n == 0) continue;
            bool has_local = false;
            for (std::int64_t i = 0; i < topk; ++i) {
                const std::int64_t e = (t + i * stride) % experts;
                global[std::size_t(e)] += n;
                if (e < local) {
                    has_local = true;
                    kept_slots_local += n;
                }
            }
            if (has_local) kept += n;
        }
    } else {
        std::vector<std::int64_t> picked;
        std::vector<char> taken(std::size_t(experts), 0);
        for (std::int64_t t = 0; t < tokens; ++t) {
            experts_of(t, tokens, experts, topk, picked, taken);
            bool has_local = false;
            for (auto e : picked) {
                ++global[std::size_t(e)];
                if (e < local) {
                    has_local = true;
                    ++kept_slots_local;
                }
            }
            if (has_local) ++kept;
        }
    }
    r.counts.assign(global.begin(), global.begin() + local);
    if (ep == 1) {
        r.tokens = tokens;
    } else {
        r.tokens = kept;
        const std::int64_t remote_slots = kept * topk - kept_slots_local;
        if (remote == moe_remote_slots::clamped_to_expert0)
            r.counts[0] += remote_slots;
        else
            r.dropped = remote_slots;
    }
    return r;
}

/// moe_align_block_size (SGLang moe_align_block_size.py, sgl-kernel moe_align_kernel.cu) for block BM:
/// each expert's assignments padded to a multiple of BM.
struct moe_alignment {
    std::int64_t block_m = 0;
    std::int64_t post_padded = 0;     ///< num_tokens_post_padded = sum_e ceil(c_e / BM) * BM
    std::int64_t buffer = 0;          ///< sorted_token_ids length: numel * BM if numel < E + 1, else numel + (E + 1)(BM - 1)
    std::int64_t active_blocks = 0;   ///< m-blocks of local experts holding assignments
    std::int64_t dropped_blocks = 0;  ///< m-blocks of the -1 bucket (zeros written, no MMA)
};

inline moe_alignment align_block_size(const moe_routing& r, std::int64_t topk, std::int64_t block_m) {
    moe_alignment a;
    a.block_m = block_m;
    for (auto c : r.counts) a.post_padded += moe_routing_detail::ceil_div(c, block_m) * block_m;
    a.active_blocks = a.post_padded / block_m;
    a.dropped_blocks = moe_routing_detail::ceil_div(r.dropped, block_m);
    a.post_padded += a.dropped_blocks * block_m;
    const std::int64_t numel = r.tokens * topk;
    a.buffer = numel < r.local_experts + 1 ? numel * block_m : numel + (r.local_experts + 1) * (block_m - 1);
    return a;
}

}  // namespace synperf::family
