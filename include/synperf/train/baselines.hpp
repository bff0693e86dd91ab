// SPDX-License-Identifier: Apache-2.0
#pragma once
/// \file The two baselines an efficiency model is reported against, on a family's samples.
///
/// The roofline baseline is each sample's `roofline_us`, the datasheet roofline its source computes (peak tensor
/// rate and DRAM bandwidth, no decomposition). The linear baseline is a least-squares fit of log latency on the
/// model's own inputs (`linear_baseline.hpp`): what the features are worth without the MLP.
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <span>
#include <vector>

#include "synperf/error.hpp"
#include "synperf/ext/xtensor.hpp"
#include "synperf/train/encoding.hpp"
#include "synperf/train/linear_baseline.hpp"
#include "synperf/train/sample.hpp"

namespace synperf::train {

/// A linear model of log latency on a family's model inputs (`model_input`).
class linear_latency_baseline {
public:
    /// Fits the rows; `levels` is the family's framework level count. The target is what the features describe:
    /// the op less any kernel priced apart (none on rows of the trained kinds).
    linear_latency_baseline(const std::vector<const sample*>& rows, std::size_t features, std::size_t levels)
        : levels_(levels), width_(features + levels) {
        if (rows.empty()) synperf::detail::report_error("linear baseline: no rows to fit");
        xt::xtensor<double, 2> x = xt::xtensor<double, 2>::from_shape({rows.size(), width_});
        xt::xtensor<double, 1> y = xt::xtensor<double, 1>::from_shape({rows.size()});
        for (std::size_t r = 0; r < rows.size(); ++r) {
            model_input(*rows[r], levels, &x(r, 0));
            y(r) = std::log(std::max(rows[r]->latency_us - rows[r]->priced_apart_us, 1e-3));
        }
        model_ = fit_linear(x, y);
    }

    /// The baseline's latency for `s`, its kernels priced apart added as they are.
    [[nodiscard]] double predicted_us(const sample& s) const {
        std::vector<double> in(width_);
        model_input(s, levels_, in.data());
        return std::exp(model_.predict_log(std::span<const double>(in))) + s.priced_apart_us;
    }

private:
    std::size_t levels_;
    std::size_t width_;  ///< model inputs: features, then one column per framework level
    linear_model model_;
};

}  // namespace synperf::train
