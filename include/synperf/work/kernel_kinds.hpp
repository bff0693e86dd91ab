// SPDX-License-Identifier: Apache-2.0
#pragma once
/// \file Which auxiliary kernels a cost model prices: the kinds (`kernel_launch::kind`) its training ops ran.
#include <algorithm>
#include <functional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "synperf/work/launch.hpp"

namespace synperf::work {

/// The kinds of auxiliary kernel a cost model saw in its training ops, or every kind.
///
/// A model learns the time of the kernels its training ops contained; an op with a kernel of a kind none of them ran
/// (SGLang's torch casts of K and V, where the training GPUs fused the cast into the KV store) would be read as a
/// bigger op of the kinds it knows. Such a kernel is priced apart, at its own floor, and the model sees the rest.
class kernel_kind_set {
public:
    /// Every kind: the model prices every kernel (weights that do not record their kernels).
    kernel_kind_set() = default;
    /// Exactly `kinds` (any order, duplicates allowed).
    explicit kernel_kind_set(std::vector<std::string> kinds) : kinds_(std::move(kinds)), every_kind_(false) {
        std::sort(kinds_.begin(), kinds_.end());
        kinds_.erase(std::unique(kinds_.begin(), kinds_.end()), kinds_.end());
    }

    /// Whether the model prices `k`: a kernel the family's model is about (no kind) or one of a kind in the set.
    [[nodiscard]] bool covers(const kernel_launch& k) const noexcept { return k.kind.empty() || contains(k.kind); }
    /// Whether `kind` is in the set.
    [[nodiscard]] bool contains(std::string_view kind) const noexcept {
        return every_kind_ || std::binary_search(kinds_.begin(), kinds_.end(), kind, std::less<>{});
    }
    /// Whether the set is every kind (nothing is priced apart).
    [[nodiscard]] bool every_kind() const noexcept { return every_kind_; }
    /// The kinds, sorted; empty when `every_kind()`.
    [[nodiscard]] const std::vector<std::string>& kinds() const noexcept { return kinds_; }

    friend bool operator==(const kernel_kind_set&, const kernel_kind_set&) = default;

private:
    std::vector<std::string> kinds_;
    bool every_kind_ = true;
};

/// Every kind: for a cost model that prices every kernel.
[[nodiscard]] inline const kernel_kind_set& every_kernel_kind() noexcept {
    static const kernel_kind_set every;
    return every;
}

}  // namespace synperf::work
