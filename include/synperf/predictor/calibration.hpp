// SPDX-License-Identifier: Apache-2.0
#pragma once
/// \file A correction of a model's latencies fitted on a few measurements of the GPU it is applied to.
///
/// A model predicts a GPU it never measured from the GPU's spec alone. Where that GPU runs its kernels much
/// closer to (or further from) their bound than the training GPUs, the error is mostly a smooth function of the
/// predicted latency: short ops too fast, long ones too slow, or the reverse. A handful of measured rows of that
/// GPU fix such a trend: log(measured / predicted) = a + b · log(predicted µs), fitted by least squares.
///
/// The fit chooses its own form by leave-one-out error on the rows it is given: a correction is kept only where it
/// predicts those rows, each left out of its own fit, better than the model does. The forms: `none` (keep the
/// model), `scale` (a alone) or `trend` (a and b, from 5 rows on; b is shrunk toward 0, and log(predicted) is
/// clamped into the fitted rows' range, so the correction does not extrapolate a trend beyond the sizes it saw).
/// Rows that do not represent what is predicted (other sizes, other GPU counts) can still fit a wrong correction.
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <limits>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "synperf/error.hpp"

namespace synperf {

/// Which correction a fit chose.
enum class calibration_form { none, scale, trend };

[[nodiscard]] constexpr std::string_view to_string(calibration_form f) noexcept {
    switch (f) {
        case calibration_form::none: return "none";
        case calibration_form::scale: return "scale";
        case calibration_form::trend: return "trend";
    }
    return "?";
}

/// corrected = predicted · exp(log_scale + slope · (clamp(log predicted, log_low, log_high) − log_centre)), µs.
struct latency_calibration {
    calibration_form form = calibration_form::none;
    double log_scale = 0;   ///< a: the mean log ratio measured / predicted at the centre
    double slope = 0;       ///< b: its change per unit of log predicted µs
    double log_centre = 0;  ///< mean log predicted µs of the fitted rows
    double log_low = 0;     ///< least and greatest log predicted µs of the fitted rows
    double log_high = 0;

    /// The corrected latency of a prediction (finite and > 0, as every `prediction::latency_us` is).
    [[nodiscard]] double apply(double predicted_us) const noexcept {
        if (form == calibration_form::none) return predicted_us;
        const double x = std::clamp(std::log(predicted_us), log_low, log_high);
        return predicted_us * std::exp(log_scale + slope * (x - log_centre));
    }
};

/// A fit and what it is worth on its own rows.
struct calibration_fit {
    latency_calibration calibration;
    std::size_t rows = 0;
    double mape_before = 0;     ///< the model's MAPE on the rows, percent
    double loo_mape_after = 0;  ///< leave-one-out MAPE of the chosen form on the same rows, percent
};

namespace calibration_detail {

/// Least rows for the trend (two parameters, one left out, three to fit).
inline constexpr std::size_t min_trend_rows = 5;
/// Ridge on the slope, per row, in units of (log µs)²: a trend over a narrow size range is taken at less than face value.
inline constexpr double slope_ridge_per_row = 0.25;

/// What a least-squares fit of the log ratios on the log predictions needs from its rows: sums of the values less
/// the rows' means (so the sums of squares do not cancel), and the two least and two greatest log predictions. A fit
/// that leaves one row out subtracts that row, so each of the leave-one-out fits costs O(1), not a pass over the rows.
class fit_sums {
public:
    fit_sums(std::span<const double> log_p, std::span<const double> log_ratio) : log_p_(log_p), log_ratio_(log_ratio) {
        const double n = double(log_p.size());
        for (std::size_t i = 0; i < log_p.size(); ++i) {
            mean_x_ += log_p[i] / n;
            mean_y_ += log_ratio[i] / n;
        }
        for (std::size_t i = 0; i < log_p.size(); ++i) add(i, 1.0);
        low_row_ = std::size_t(std::min_element(log_p.begin(), log_p.end()) - log_p.begin());
        high_row_ = std::size_t(std::max_element(log_p.begin(), log_p.end()) - log_p.begin());
        for (std::size_t i = 0; i < log_p.size(); ++i) {
            if (i != low_row_) next_low_ = std::min(next_low_, log_p[i]);
            if (i != high_row_) next_high_ = std::max(next_high_, log_p[i]);
        }
    }

    /// The fit of `form` to every row but `skip` (every row when `skip` is past the last).
    [[nodiscard]] latency_calibration fit(calibration_form form, std::size_t skip) const {
        latency_calibration c;
        c.form = form;
        if (form == calibration_form::none) return c;
        fit_sums s = *this;
        if (skip < log_p_.size()) s.add(skip, -1.0);
        const double mx = s.x_ / s.n_, my = s.y_ / s.n_;
        c.log_centre = mean_x_ + mx;
        c.log_scale = mean_y_ + my;
        c.log_low = skip == low_row_ ? next_low_ : log_p_[low_row_];
        c.log_high = skip == high_row_ ? next_high_ : log_p_[high_row_];
        if (form == calibration_form::trend)
            c.slope = (s.xy_ - s.n_ * mx * my) / (s.xx_ - s.n_ * mx * mx + slope_ridge_per_row * s.n_);
        return c;
    }

private:
    /// Adds row `i` (weight 1) or takes it away (weight -1).
    void add(std::size_t i, double weight) {
        const double dx = log_p_[i] - mean_x_, dy = log_ratio_[i] - mean_y_;
        n_ += weight;
        x_ += weight * dx;
        y_ += weight * dy;
        xx_ += weight * dx * dx;
        xy_ += weight * dx * dy;
    }

    std::span<const double> log_p_, log_ratio_;
    double mean_x_ = 0, mean_y_ = 0;
    double n_ = 0, x_ = 0, y_ = 0, xx_ = 0, xy_ = 0;
    std::size_t low_row_ = 0, high_row_ = 0;
    double next_low_ = std::numeric_limits<double>::infinity(), next_high_ = -std::numeric_limits<double>::infinity();
};

}  // namespace calibration_detail

/// Fits the correction of `predicted_us` toward `measured_us` (same rows, same order; every value finite and > 0;
/// at least 2 rows). Throws `invalid_argument` naming the first bad row.
[[nodiscard]] inline calibration_fit fit_latency_calibration(std::span<const double> predicted_us, std::span<const double> measured_us) {
    if (predicted_us.size() != measured_us.size())
        synperf::detail::report_error("calibration: " + std::to_string(predicted_us.size()) + " predictions for " +
                                      std::to_string(measured_us.size()) + " measurements; they must pair up");
    const std::size_t n = predicted_us.size();
    if (n < 2) synperf::detail::report_error("calibration: needs at least 2 measured rows, got " + std::to_string(n));
    std::vector<double> log_p(n), log_ratio(n);
    for (std::size_t i = 0; i < n; ++i) {
        const auto check = [i](double v, const char* what) {
            if (!(std::isfinite(v) && v > 0))
                synperf::detail::report_error("calibration: row " + std::to_string(i + 1) + ": " + what +
                                              " must be a finite time > 0 us, got " + std::to_string(v));
        };
        check(predicted_us[i], "the predicted latency");
        check(measured_us[i], "the measured latency");
        log_p[i] = std::log(predicted_us[i]);
        log_ratio[i] = std::log(measured_us[i] / predicted_us[i]);
    }
    const calibration_detail::fit_sums sums(log_p, log_ratio);
    const auto loo_mape = [&](calibration_form form) {
        double sum = 0;
        for (std::size_t i = 0; i < n; ++i) {
            const latency_calibration c = sums.fit(form, i);
            sum += std::abs(c.apply(predicted_us[i]) / measured_us[i] - 1.0);
        }
        return 100.0 * sum / double(n);
    };
    calibration_fit out;
    out.rows = n;
    out.mape_before = loo_mape(calibration_form::none);
    out.loo_mape_after = out.mape_before;
    // The simpler form wins a tie: a correction must earn its parameters on rows it did not see.
    for (calibration_form form : {calibration_form::scale, calibration_form::trend}) {
        if (form == calibration_form::trend && n < calibration_detail::min_trend_rows) break;
        const double e = loo_mape(form);
        if (e < out.loo_mape_after) {
            out.loo_mape_after = e;
            out.calibration.form = form;
        }
    }
    out.calibration = sums.fit(out.calibration.form, n);
    return out;
}

}  // namespace synperf
