// SPDX-License-Identifier: Apache-2.0
#pragma once
/// \file The linear baseline reported beside the MLP: least squares of log(latency) on [1, log1p(features)...].
#include <synperf/error.hpp>
#include <synperf/mlp/validate.hpp>
#include <synperf/ext/xtensor.hpp>

#include <cmath>
#include <cstddef>
#include <span>
#include <string>
#include <utility>
#include <vector>

namespace synperf::train {

/// Added to the diagonal of the normal equations.
inline constexpr double linear_ridge = 1e-6;

/// A fitted linear model of log(latency): coef[0] + Σ coef[i+1] · log1p(feature_i).
struct linear_model {
    std::vector<double> coef;  ///< intercept, then one coefficient per feature

    /// Predicted log(latency) for one row of log1p-transformed features.
    [[nodiscard]] double predict_log(std::span<const double> log1p_features) const {
        if (coef.empty() || log1p_features.size() + 1 != coef.size())
            synperf::detail::report_error(mlp::detail::cat("linear_model: needs ", coef.empty() ? 0 : coef.size() - 1,
                                                           " features, got ", log1p_features.size()));
        double y = coef[0];
        for (std::size_t i = 0; i < log1p_features.size(); ++i) y += coef[i + 1] * log1p_features[i];
        return y;
    }
};

/// Fits `linear_model` by the normal equations with a small ridge, solved by Cholesky.
///
/// `x` is rows x features of log1p(feature) values. The ridge (1e-6 added to the diagonal of ZᵀZ, raised
/// tenfold while rounding leaves a collinear system not positive definite, at most to 1) only keeps an
/// all-zero or duplicated column solvable; its bias on a fit over thousands of rows is negligible.
inline linear_model fit_linear(const xt::xtensor<double, 2>& x, const xt::xtensor<double, 1>& log_latency) {
    const std::size_t rows = x.shape(0);
    const std::size_t k = x.shape(1) + 1;
    if (log_latency.size() != rows)
        synperf::detail::report_error(
            mlp::detail::cat("fit_linear: needs one log latency per row (", rows, "), got ", log_latency.size()));
    if (rows == 0) synperf::detail::report_error("fit_linear: needs >= 1 row, got 0");
    // Normal equations A c = r with A = ZᵀZ, r = Zᵀy, Z = [1, x].
    std::vector<double> a(k * k, 0.0), r(k, 0.0), z(k, 1.0);
    for (std::size_t i = 0; i < rows; ++i) {
        for (std::size_t j = 1; j < k; ++j) z[j] = x(i, j - 1);
        const double y = log_latency(i);
        for (std::size_t j = 0; j < k; ++j) {
            if (!std::isfinite(z[j]) || !std::isfinite(y))
                synperf::detail::report_error(mlp::detail::cat("fit_linear: values must be finite, got ",
                                                               std::isfinite(y) ? z[j] : y, " at row ", i));
            r[j] += z[j] * y;
            for (std::size_t m = 0; m <= j; ++m) a[j * k + m] += z[j] * z[m];
        }
    }
    // The framework one-hot columns sum to the intercept column, so ZᵀZ is singular but for the ridge; with
    // many rows, rounding can eat a ridge of 1e-6. Raise it tenfold until the factorization succeeds (a fit
    // that succeeds at once is unchanged).
    const std::vector<double> normal = a;
    double ridge = linear_ridge;
    for (;;) {
        a = normal;
        for (std::size_t j = 0; j < k; ++j) a[j * k + j] += ridge;
        std::size_t failed = k;
        // Cholesky A = L Lᵀ in the lower triangle.
        for (std::size_t j = 0; j < k && failed == k; ++j) {
            double d = a[j * k + j];
            for (std::size_t m = 0; m < j; ++m) d -= a[j * k + m] * a[j * k + m];
            if (!(d > 0)) {
                failed = j;
                break;
            }
            const double l = std::sqrt(d);
            a[j * k + j] = l;
            for (std::size_t i = j + 1; i < k; ++i) {
                double v = a[i * k + j];
                for (std::size_t m = 0; m < j; ++m) v -= a[i * k + m] * a[j * k + m];
                a[i * k + j] = v / l;
            }
        }
        if (failed == k) break;
        if (ridge >= 1.0)
            synperf::detail::report_error(
                mlp::detail::cat("fit_linear: normal equations are not positive definite (column ", failed, ")"));
        ridge *= 10;
    }
    // Solve L u = r, then Lᵀ c = u.
    for (std::size_t i = 0; i < k; ++i) {
        for (std::size_t m = 0; m < i; ++m) r[i] -= a[i * k + m] * r[m];
        r[i] /= a[i * k + i];
    }
    for (std::size_t i = k; i-- > 0;) {
        for (std::size_t m = i + 1; m < k; ++m) r[i] -= a[m * k + i] * r[m];
        r[i] /= a[i * k + i];
    }
    return linear_model{std::move(r)};
}

}  // namespace synperf::train
