// SPDX-License-Identifier: Apache-2.0
#pragma once
/// \file The measurement protocol (docs/method.md): leave-GPU-out splits and the seen split by shape hash.
#include <cstdint>
#include <initializer_list>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "synperf/error.hpp"

namespace synperf::data {

/// How a GPU relates to the training GPUs of a model.
enum class split { seen, unseen_arch, unseen_sku, sibling, loo };

[[nodiscard]] constexpr std::string_view to_string(split s) noexcept {
    switch (s) {
        case split::seen: return "seen";
        case split::unseen_arch: return "unseen-arch";
        case split::unseen_sku: return "unseen-sku";
        case split::sibling: return "sibling";
        case split::loo: return "loo";
    }
    return "?";
}

/// Train GPUs and labelled held-out GPUs of one family.
struct protocol {
    std::vector<std::string> train;
    std::vector<std::pair<std::string, split>> held_out;

    [[nodiscard]] bool is_train(std::string_view gpu) const {
        for (const auto& t : train)
            if (t == gpu) return true;
        return false;
    }
    /// The split label of a GPU; GPUs not named by the protocol are treated as unseen SKUs.
    [[nodiscard]] split label(std::string_view gpu) const {
        if (is_train(gpu)) return split::seen;
        for (const auto& [g, s] : held_out)
            if (g == gpu) return s;
        return split::unseen_sku;
    }
};

/// GEMM, attention and MoE: train on h100_sxm, b200_sxm, l40s (docs/method.md#splits).
[[nodiscard]] inline protocol gemm_protocol() {
    return protocol{{"h100_sxm", "b200_sxm", "l40s"},
                    {{"a100_sxm", split::unseen_arch},
                     {"rtx_pro_6000_server", split::unseen_arch},
                     {"rtx_5090", split::unseen_arch},
                     {"b300_sxm", split::unseen_sku},
                     {"gb300", split::unseen_sku},
                     {"h200_sxm", split::sibling},
                     {"gb200", split::sibling}}};
}

/// FP8 GEMM (pure CUTLASS kernel, PipeWeave's data): PipeWeave's own split, train on h20 and h800; h200_sxm is
/// an unseen SKU and h100_sxm a sibling of h800 (docs/method.md#splits), so the numbers compare with the paper's.
[[nodiscard]] inline protocol gemm_fp8_protocol() {
    return protocol{{"h20", "h800"}, {{"h200_sxm", split::unseen_sku}, {"h100_sxm", split::sibling}}};
}

/// Part of a seen GPU's rows a shape belongs to: 70 % train, 10 % validation, 20 % seen-test.
enum class seen_part { train, validation, test };

/// FNV-1a over 64-bit keys: stable across platforms and runs.
[[nodiscard]] constexpr std::uint64_t shape_hash(std::initializer_list<std::int64_t> key) noexcept {
    std::uint64_t h = 1469598103934665603ull;
    for (std::int64_t v : key) {
        auto u = static_cast<std::uint64_t>(v);
        for (int i = 0; i < 8; ++i) {
            h ^= (u >> (8 * i)) & 0xffu;
            h *= 1099511628211ull;
        }
    }
    return h;
}

/// The same hash over a span of keys.
[[nodiscard]] constexpr std::uint64_t shape_hash(std::span<const std::int64_t> key) noexcept {
    std::uint64_t h = 1469598103934665603ull;
    for (std::int64_t v : key) {
        auto u = static_cast<std::uint64_t>(v);
        for (int i = 0; i < 8; ++i) {
            h ^= (u >> (8 * i)) & 0xffu;
            h *= 1099511628211ull;
        }
    }
    return h;
}

[[nodiscard]] constexpr seen_part part_of(std::uint64_t hash) noexcept {
    const auto bucket = (hash >> 17) % 10;
    return bucket < 7 ? seen_part::train : bucket < 8 ? seen_part::validation : seen_part::test;
}

}  // namespace synperf::data
