// SPDX-License-Identifier: Apache-2.0
#pragma once
/// \file SGLang's tuned fused_moe config lookup (fused_moe_triton_config.py, try_get_optimal_moe_config): the file of
/// (device, E on the rank, N = I / tp, dtype, block shape), then its entry whose token count is nearest to M.
#include <cstdint>
#include <optional>
#include <string_view>

#include "synperf/family/moe_config.hpp"
#include "synperf/family/moe_sglang_configs.hpp"

namespace synperf::family {

/// The tuned-config file SGLang 0.5.10 (Triton 3.5.1) would load on GPU `gpu` (a synperf id), or nullptr.
[[nodiscard]] constexpr const sglang_tuned_file* sglang_tuned_file_for(std::string_view gpu, std::int64_t experts, std::int64_t n,
                                                                      moe_dtype d, bool block_fp8) noexcept {
    for (const auto& f : sglang_moe_configs::files)
        if (f.gpu == gpu && f.experts == experts && f.n == n && f.dtype == d && f.block_fp8 == block_fp8) return &f;
    return nullptr;
}

namespace moe_tuned_detail {

/// Reads the next unsigned integer of `text` from `pos` (the generated tables hold digits and separators only).
constexpr std::int64_t next_int(std::string_view text, std::size_t& pos) noexcept {
    std::int64_t v = 0;
    while (pos < text.size() && text[pos] >= '0' && text[pos] <= '9') v = v * 10 + (text[pos++] - '0');
    ++pos;  // the separator
    return v;
}

}  // namespace moe_tuned_detail

/// The file's entry nearest to `m` tokens; on a tie the smaller key (Python's `min` over the file's keys in order).
[[nodiscard]] constexpr moe_kernel_config nearest_entry(const sglang_tuned_file& f, std::int64_t m) noexcept {
    moe_kernel_config best{};
    std::int64_t best_distance = -1;
    std::size_t pos = 0;
    while (pos < f.entries.size()) {
        const std::int64_t key = moe_tuned_detail::next_int(f.entries, pos);
        moe_kernel_config c;
        c.bm = int(moe_tuned_detail::next_int(f.entries, pos));
        c.bn = int(moe_tuned_detail::next_int(f.entries, pos));
        c.bk = int(moe_tuned_detail::next_int(f.entries, pos));
        c.group_m = int(moe_tuned_detail::next_int(f.entries, pos));
        c.warps = int(moe_tuned_detail::next_int(f.entries, pos));
        c.stages = int(moe_tuned_detail::next_int(f.entries, pos));
        const std::int64_t distance = key > m ? key - m : m - key;
        if (best_distance < 0 || distance < best_distance) {
            best = c;
            best_distance = distance;
        }
    }
    return best;
}

/// SGLang's tuned config for `m` tokens, or std::nullopt when it ships no file for these sizes on this GPU.
[[nodiscard]] constexpr std::optional<moe_kernel_config> sglang_tuned_config(std::string_view gpu, std::int64_t experts, std::int64_t n,
                                                                            moe_dtype d, bool block_fp8, std::int64_t m) noexcept {
    if (const sglang_tuned_file* f = sglang_tuned_file_for(gpu, experts, n, d, block_fp8)) return nearest_entry(*f, m);
    return std::nullopt;
}

}  // namespace synperf::family
