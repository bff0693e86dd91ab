// SPDX-License-Identifier: Apache-2.0
#pragma once
/// \file `train::sample`: one measured row joined with its decomposition, what training and evaluation read.
#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "synperf/data/protocol.hpp"
#include "synperf/predictor/prediction.hpp"

namespace synperf::train {

/// One measured row, analyzed.
struct sample {
    std::string gpu;              ///< canonical GPU id
    std::string framework;        ///< the collector (a table row per (GPU, framework))
    std::string kernel;           ///< what ran, as the data names it (e.g. kernel_source), for reports
    std::vector<double> features; ///< the family's numeric features, >= 0
    std::size_t level = 0;        ///< framework level of the categorical input
    double theoretical_us = 0;    ///< lower bound of the op
    double kernel_floor_us = 0;   ///< least time of its kernels as decomposed (`prediction::kernel_floor_us`)
    double priced_apart_us = 0;   ///< time of its kernels priced apart from the model (`prediction::priced_apart_us`)
    std::vector<std::string> kernel_kinds;  ///< kinds of the auxiliary kernels the model prices (`kernel_report::kind`)
    std::vector<std::string> priced_apart_kinds;  ///< kinds of those it prices apart
    double latency_us = 0;        ///< measured
    double roofline_us = 0;       ///< datasheet roofline baseline
    data::split label = data::split::seen;
    data::seen_part part = data::seen_part::train;
    std::array<std::int64_t, 8> key{};  ///< row identity for deterministic subsampling
    std::size_t key_size = 0;

    /// Bound over measured time of what the model describes: the op less its kernels priced apart (a row whose
    /// measured time is below those kernels' alone reads as far above 1, a bound broken).
    [[nodiscard]] double efficiency() const { return theoretical_us / std::max(latency_us - priced_apart_us, 1e-9); }
    /// The latency a model of efficiency `eff` predicts for the row (as a predictor computes it).
    [[nodiscard]] double predicted_us(double eff) const {
        return floored_latency_us(theoretical_us, eff, kernel_floor_us) + priced_apart_us;
    }
    /// Takes the model inputs, bound, kernel floor and kernel kinds of the row's analysis (`synperf::analyze`).
    void take_analysis(prediction&& p) {
        features = std::move(p.features);
        theoretical_us = p.theoretical_us;
        kernel_floor_us = p.kernel_floor_us;
        priced_apart_us = p.priced_apart_us;
        kernel_kinds.clear();
        priced_apart_kinds.clear();
        for (const kernel_report& k : p.kernels) {
            std::vector<std::string>& kinds = k.priced_apart ? priced_apart_kinds : kernel_kinds;
            if (!k.kind.empty() && std::find(kinds.begin(), kinds.end(), k.kind) == kinds.end()) kinds.push_back(k.kind);
        }
    }
};

}  // namespace synperf::train
