// SPDX-License-Identifier: Apache-2.0
#pragma once
/// \file The protocol's folds: which rows each weights file of a family is fitted on and evaluated on.
#include <string>
#include <vector>

#include "synperf/data/protocol.hpp"
#include "synperf/train/sample.hpp"
#include "synperf/train/source.hpp"

namespace synperf::train {

/// One train/evaluate pairing of the protocol: which rows a weights file is fitted on and evaluated on.
struct protocol_fold {
    std::string weights_suffix;  ///< "" or ".loo-<gpu>"
    std::string held_out_gpu;    ///< leave-one-out: the GPU left out; empty otherwise
    [[nodiscard]] bool fits_on(const sample& s) const {
        if (!held_out_gpu.empty()) return s.gpu != held_out_gpu;
        return s.label == data::split::seen && s.part != data::seen_part::test;
    }
    [[nodiscard]] bool evaluates(const sample& s) const {
        if (!held_out_gpu.empty()) return s.gpu == held_out_gpu;
        return !(s.label == data::split::seen && s.part != data::seen_part::test);
    }
};

/// The protocol folds of a family: one, or one per GPU when it is evaluated leave-one-GPU-out.
[[nodiscard]] inline std::vector<protocol_fold> protocol_folds(const family_source& fam) {
    if (!fam.leave_one_out) return {protocol_fold{}};
    std::vector<protocol_fold> out;
    for (const auto& g : fam.protocol().train) out.push_back({".loo-" + g, g});
    return out;
}

/// Weights path of a fold: `base` (e.g. models/protocol/<name>.mlp) with the fold's suffix before ".mlp".
[[nodiscard]] inline std::string fold_path(const std::string& base, const protocol_fold& fold) {
    if (fold.weights_suffix.empty()) return base;
    const std::string stem = base.size() > 4 && base.ends_with(".mlp") ? base.substr(0, base.size() - 4) : base;
    return stem + fold.weights_suffix + ".mlp";
}

}  // namespace synperf::train
