// SPDX-License-Identifier: Apache-2.0
#pragma once
/// \file How a sample is shown to the efficiency MLP (and to the linear baseline): its inputs and its target.
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <vector>

#include "synperf/ext/xtensor.hpp"
#include "synperf/train/mlp_trainer.hpp"
#include "synperf/train/sample.hpp"

namespace synperf::train {

/// log1p of the features then the one-hot framework block (`levels` columns): the model's input, written to
/// `out[0 .. features + levels)`.
inline void model_input(const sample& s, std::size_t levels, double* out) {
    std::size_t i = 0;
    for (double f : s.features) out[i++] = std::log1p(f);
    for (std::size_t l = 0; l < levels; ++l) out[i++] = (l == s.level) ? 1.0 : 0.0;
}

/// The efficiency a row teaches. The theoretical time is a lower bound; rows above 1 (measurement noise at the
/// floor) are clamped.
[[nodiscard]] inline float training_target(const sample& s) { return static_cast<float>(std::clamp(s.efficiency(), 1e-5, 1.0)); }

/// The trainer's rows for `rows`: `model_input` (`width` = features + `levels` columns) and `training_target`.
[[nodiscard]] inline dataset make_dataset(const std::vector<const sample*>& rows, std::size_t width, std::size_t levels) {
    dataset d;
    d.x = xt::xtensor<float, 2>::from_shape({rows.size(), width});
    d.efficiency = xt::xtensor<float, 1>::from_shape({rows.size()});
    std::vector<double> buf(width);
    for (std::size_t r = 0; r < rows.size(); ++r) {
        model_input(*rows[r], levels, buf.data());
        for (std::size_t c = 0; c < width; ++c) d.x(r, c) = static_cast<float>(buf[c]);
        d.efficiency(r) = training_target(*rows[r]);
    }
    return d;
}

}  // namespace synperf::train
