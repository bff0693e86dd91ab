// SPDX-License-Identifier: Apache-2.0
#pragma once
/// \file Accuracy summary we publish: MAPE and 90th-percentile relative error of latency, in percent.
#include <synperf/error.hpp>
#include <synperf/mlp/validate.hpp>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <limits>
#include <span>
#include <string>
#include <vector>

namespace synperf::train {

/// Relative error of a set of predictions, in percent.
struct error_summary {
    std::size_t n = 0;  ///< rows
    double mape = 0;    ///< mean of |pred − meas| / meas, percent (NaN when n = 0)
    double p90 = 0;     ///< 90th percentile (nearest rank) of |pred − meas| / meas, percent (NaN when n = 0)
};

/// Summarises predicted against measured latencies (same order, measured > 0).
inline error_summary summarize(std::span<const double> predicted, std::span<const double> measured) {
    if (predicted.size() != measured.size())
        synperf::detail::report_error(mlp::detail::cat("summarize: needs as many predictions as measurements (",
                                                       measured.size(), "), got ", predicted.size()));
    const std::size_t n = measured.size();
    if (n == 0) return {0, std::numeric_limits<double>::quiet_NaN(), std::numeric_limits<double>::quiet_NaN()};
    std::vector<double> err(n);
    double sum = 0;
    for (std::size_t i = 0; i < n; ++i) {
        if (!(measured[i] > 0) || !std::isfinite(measured[i]))
            synperf::detail::report_error(mlp::detail::cat("summarize: measured values must be finite and > 0, got ",
                                                           measured[i], " at row ", i));
        if (!std::isfinite(predicted[i]))
            synperf::detail::report_error(
                mlp::detail::cat("summarize: predicted values must be finite, got ", predicted[i], " at row ", i));
        err[i] = std::abs(predicted[i] - measured[i]) / measured[i];
        sum += err[i];
    }
    // Nearest rank: the smallest error with at least 90 % of the rows at or below it, rank ceil(0.9 n).
    const std::size_t rank = (9 * n + 9) / 10;
    std::nth_element(err.begin(), err.begin() + static_cast<std::ptrdiff_t>(rank - 1), err.end());
    return {n, 100.0 * sum / static_cast<double>(n), 100.0 * err[rank - 1]};
}

}  // namespace synperf::train
