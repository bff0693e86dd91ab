// SPDX-License-Identifier: Apache-2.0
// fit_latency_calibration: the correction a few measurements of a GPU fit, the form it chooses, and bad input.
#include "synperf/predictor/calibration.hpp"

#include <doctest/doctest.h>

#include <cmath>
#include <limits>
#include <vector>

#include "synperf/error.hpp"

using namespace synperf;

namespace {

/// Predicted latencies from 2 µs to 2 ms, log-spaced.
std::vector<double> predicted_range(int n) {
    std::vector<double> p;
    for (int i = 0; i < n; ++i) p.push_back(2.0 * std::pow(1000.0, double(i) / double(n - 1)));
    return p;
}

double mape(const latency_calibration& c, const std::vector<double>& p, const std::vector<double>& m) {
    double sum = 0;
    for (std::size_t i = 0; i < p.size(); ++i) sum += std::abs(c.apply(p[i]) / m[i] - 1.0);
    return 100.0 * sum / double(p.size());
}

}  // namespace

TEST_CASE("calibration: a model too fast on short ops and too slow on long ones gets a trend") {
    // Measured = predicted * 1.3 * (predicted / 40 us)^-0.2: the sm_120 pattern, with no noise.
    const std::vector<double> p = predicted_range(16);
    std::vector<double> m;
    for (double v : p) m.push_back(v * 1.3 * std::pow(v / 40.0, -0.2));
    const calibration_fit fit = fit_latency_calibration(p, m);
    CHECK(fit.calibration.form == calibration_form::trend);
    CHECK(fit.rows == 16);
    CHECK(fit.mape_before > 20.0);
    // The ridge takes the slope at a little less than face value: within a few percent over the fitted range.
    CHECK(fit.loo_mape_after < 5.0);
    CHECK(mape(fit.calibration, p, m) < 5.0);
    CHECK(fit.calibration.slope < -0.15);
    CHECK(fit.calibration.slope > -0.2);
    CHECK(fit.calibration.log_low == doctest::Approx(std::log(p.front())));
    CHECK(fit.calibration.log_high == doctest::Approx(std::log(p.back())));
}

TEST_CASE("calibration: the trend is not extrapolated beyond the fitted sizes") {
    const std::vector<double> p = predicted_range(8);
    std::vector<double> m;
    for (double v : p) m.push_back(v * std::pow(v / 40.0, 0.1));
    const latency_calibration c = fit_latency_calibration(p, m).calibration;
    REQUIRE(c.form == calibration_form::trend);
    // Ten times past either end, the correction is the one at that end.
    CHECK(c.apply(p.back() * 10) / (p.back() * 10) == doctest::Approx(c.apply(p.back()) / p.back()));
    CHECK(c.apply(p.front() / 10) / (p.front() / 10) == doctest::Approx(c.apply(p.front()) / p.front()));
}

TEST_CASE("calibration: a uniform bias is a scale, a model already right is kept") {
    const std::vector<double> p = predicted_range(12);
    SUBCASE("20 % too slow everywhere, with +-2 % scatter") {
        std::vector<double> m;
        for (std::size_t i = 0; i < p.size(); ++i) m.push_back(p[i] * 0.8 * (i % 2 == 0 ? 1.02 : 1.0 / 1.02));
        const calibration_fit fit = fit_latency_calibration(p, m);
        CHECK(fit.calibration.form != calibration_form::none);
        CHECK(fit.calibration.apply(100.0) == doctest::Approx(80.0).epsilon(0.03));
        CHECK(fit.loo_mape_after < 3.0);
        CHECK(fit.mape_before > 20.0);
    }
    SUBCASE("unbiased, +-5 % scatter: no correction earns its parameters") {
        std::vector<double> m;
        for (std::size_t i = 0; i < p.size(); ++i) m.push_back(p[i] * (i % 2 == 0 ? 1.05 : 1.0 / 1.05));
        const calibration_fit fit = fit_latency_calibration(p, m);
        CHECK(fit.calibration.form == calibration_form::none);
        CHECK(fit.loo_mape_after == doctest::Approx(fit.mape_before));
        CHECK(fit.calibration.apply(123.0) == 123.0);
    }
}

TEST_CASE("calibration: fewer than 5 rows fit a scale at most") {
    const std::vector<double> p{5, 50, 500, 5000};
    std::vector<double> m;
    for (double v : p) m.push_back(v * std::pow(v / 50.0, -0.3));
    CHECK(fit_latency_calibration(p, m).calibration.form != calibration_form::trend);
}

TEST_CASE("calibration: bad input is refused with the row and the cause") {
    const std::vector<double> ok{10, 20, 30};
    const double nan = std::numeric_limits<double>::quiet_NaN(), inf = std::numeric_limits<double>::infinity();
    CHECK_THROWS_WITH_AS((void)fit_latency_calibration(ok, std::vector<double>{10, 20}), doctest::Contains("must pair up"), invalid_argument);
    CHECK_THROWS_WITH_AS((void)fit_latency_calibration(std::vector<double>{10}, std::vector<double>{11}), doctest::Contains("at least 2"),
                         invalid_argument);
    CHECK_THROWS_WITH_AS((void)fit_latency_calibration(std::vector<double>{}, std::vector<double>{}), doctest::Contains("at least 2"),
                         invalid_argument);
    CHECK_THROWS_WITH_AS((void)fit_latency_calibration(ok, std::vector<double>{10, 0, 30}),
                         doctest::Contains("row 2: the measured latency must be a finite time > 0"), invalid_argument);
    CHECK_THROWS_WITH_AS((void)fit_latency_calibration(ok, std::vector<double>{10, 20, -3}), doctest::Contains("row 3: the measured"),
                         invalid_argument);
    CHECK_THROWS_WITH_AS((void)fit_latency_calibration(std::vector<double>{nan, 20, 30}, ok), doctest::Contains("row 1: the predicted"),
                         invalid_argument);
    CHECK_THROWS_WITH_AS((void)fit_latency_calibration(ok, std::vector<double>{10, inf, 30}), doctest::Contains("row 2: the measured"),
                         invalid_argument);
}
