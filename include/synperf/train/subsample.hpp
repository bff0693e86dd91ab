// SPDX-License-Identifier: Apache-2.0
#pragma once
/// \file A deterministic subsample of training rows: the same rows for the same seed, whatever their order.
#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <utility>
#include <vector>

#include "synperf/data/protocol.hpp"
#include "synperf/train/sample.hpp"

namespace synperf::train {

/// The `max_rows` rows with the smallest hashes of (row key, seed); every row when `max_rows` is 0 or not below
/// their count. A full training set would take hours on a few cores; a hash, not a shuffle, keeps the subsample
/// the same when rows are read in another order.
[[nodiscard]] inline std::vector<const sample*> subsample(std::vector<const sample*> rows, std::size_t max_rows, std::uint64_t seed) {
    if (max_rows == 0 || rows.size() <= max_rows) return rows;
    std::vector<std::pair<std::uint64_t, const sample*>> keyed;
    keyed.reserve(rows.size());
    std::array<std::int64_t, 9> key{};
    for (const auto* r : rows) {
        std::copy_n(r->key.begin(), r->key_size, key.begin());
        key[r->key_size] = static_cast<std::int64_t>(seed);
        keyed.emplace_back(data::shape_hash(std::span<const std::int64_t>(key.data(), r->key_size + 1)), r);
    }
    std::sort(keyed.begin(), keyed.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    keyed.resize(max_rows);
    std::vector<const sample*> out;
    out.reserve(max_rows);
    for (const auto& [h, r] : keyed) out.push_back(r);
    return out;
}

}  // namespace synperf::train
