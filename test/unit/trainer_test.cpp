// SPDX-License-Identifier: Apache-2.0
// The MLP trainer (determinism, BatchNorm folding, stopping rules), the linear baseline and the metrics.
#include <doctest/doctest.h>

#include <synperf/train/metrics.hpp>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <limits>
#include <string>
#include <vector>

TEST_CASE("metrics: MAPE and nearest-rank P90 on a hand-worked example") {
    using synperf::train::summarize;
    // Errors 10 %, 10 %, 0 %, 50 %: mean 17.5 %; P90 is rank ceil(0.9 * 4) = 4 of the sorted errors, 50 %.
    const std::vector<double> pred{110, 90, 100, 150};
    const std::vector<double> meas{100, 100, 100, 100};
    const auto s = summarize(pred, meas);
    CHECK(s.n == 4);
    CHECK(s.mape == doctest::Approx(17.5));
    CHECK(s.p90 == doctest::Approx(50.0));

    // Ten rows with errors 1..10 %: P90 is rank 9, i.e. 9 %, not an interpolated 9.1 %.
    std::vector<double> p10, m10;
    for (int i = 1; i <= 10; ++i) {
        m10.push_back(200.0);
        p10.push_back(200.0 * (1.0 + (i % 2 == 0 ? 1 : -1) * i / 100.0));
    }
    const auto t = summarize(p10, m10);
    CHECK(t.mape == doctest::Approx(5.5));
    CHECK(t.p90 == doctest::Approx(9.0));

    // One row: P90 is that row.
    CHECK(summarize(std::vector<double>{3.0}, std::vector<double>{2.0}).p90 == doctest::Approx(50.0));

    const auto empty = summarize({}, {});
    CHECK(empty.n == 0);
    CHECK(std::isnan(empty.mape));

    CHECK_THROWS_WITH_AS(summarize(std::vector<double>{1, 2}, std::vector<double>{1}), doctest::Contains("got 2"),
                         synperf::invalid_argument);
    CHECK_THROWS_WITH_AS(summarize(std::vector<double>{1}, std::vector<double>{0}),
                         doctest::Contains("measured values must be finite and > 0"), synperf::invalid_argument);
}

#if SYNPERF_HAVE_XTENSOR
#include <synperf/mlp/evaluate.hpp>
#include <synperf/train/linear_baseline.hpp>
#include <synperf/train/mlp_trainer.hpp>

#include <sstream>

namespace {

using synperf::train::dataset;
using synperf::train::train_options;
using synperf::train::train_report;

/// A smooth efficiency of three numeric inputs and a two-level categorical, in (0.05, 0.95).
float target(float a, float b, float c, bool level) {
    const float z = 0.8f * a - 0.6f * b + 0.5f * std::sin(1.5f * c) + (level ? 0.4f : -0.4f);
    return 0.05f + 0.9f / (1.0f + std::exp(-z));
}

/// Rows of log1p-style inputs: three numeric columns, then a one-hot pair.
dataset make_rows(std::size_t n, std::uint64_t seed, bool weighted = false) {
    synperf::train::detail::rng gen(seed);
    dataset d;
    d.x = xt::xtensor<float, 2>::from_shape({n, 5});
    d.efficiency = xt::xtensor<float, 1>::from_shape({n});
    if (weighted) d.weight = xt::xtensor<float, 1>::from_shape({n});
    for (std::size_t i = 0; i < n; ++i) {
        const float a = 3.0f * gen.uniform(), b = 3.0f * gen.uniform(), c = 3.0f * gen.uniform();
        const bool level = gen.uniform() < 0.5f;
        d.x(i, 0) = a;
        d.x(i, 1) = b;
        d.x(i, 2) = c;
        d.x(i, 3) = level ? 0.0f : 1.0f;
        d.x(i, 4) = level ? 1.0f : 0.0f;
        d.efficiency(i) = target(a, b, c, level);
        if (weighted) d.weight(i) = i % 3 == 0 ? 0.0f : 1.0f + static_cast<float>(i % 5);
    }
    return d;
}

train_options small_options() {
    train_options o;
    o.hidden = {32, 16};
    o.batch = 128;
    o.lr = 3e-3;
    o.max_epochs = 30;
    o.verbose = false;
    return o;
}

std::vector<float> all_weights(const synperf::mlp::network& net) {
    std::vector<float> v;
    for (const auto& l : net.layers) {
        v.insert(v.end(), l.weights.begin(), l.weights.end());
        v.insert(v.end(), l.bias.begin(), l.bias.end());
    }
    return v;
}

/// Weighted mean |log(ê / e)|, the training loss, computed from scratch.
double mean_log_error(const xt::xtensor<float, 1>& pred, const dataset& d) {
    double loss = 0, weight = 0;
    for (std::size_t i = 0; i < pred.size(); ++i) {
        const double w = d.weight.size() != 0 ? d.weight(i) : 1.0;
        loss += w * std::abs(std::log(std::max(static_cast<double>(pred(i)), 1e-6) / d.efficiency(i)));
        weight += w;
    }
    return loss / weight;
}

/// Names the inputs so that the exported network is complete and the library evaluator accepts it.
void name_inputs(synperf::mlp::network& net, std::size_t numeric) {
    net.family = "synthetic";
    for (std::size_t i = 0; i < numeric; ++i)
        net.feature_names.push_back(std::string(1, 'x').append(std::to_string(i)));
    net.categoricals.push_back({"level", {"a", "b"}});
}

}  // namespace

TEST_CASE("trainer: learns a synthetic efficiency function to low loss") {
    const dataset train = make_rows(3000, 1), validation = make_rows(600, 2);
    train_options o = small_options();
    o.max_epochs = 60;
    train_report r;
    std::ostringstream progress;
    o.verbose = true;
    o.log_every = 20;
    const auto net = synperf::train::train_mlp(train, validation, o, &r, &progress);

    // The best constant prediction (the median efficiency) is the baseline; the fit must be far better.
    std::vector<float> sorted(validation.efficiency.begin(), validation.efficiency.end());
    std::nth_element(sorted.begin(), sorted.begin() + 300, sorted.end());
    auto flat = xt::xtensor<float, 1>::from_shape({600});
    std::fill(flat.begin(), flat.end(), sorted[300]);
    const double constant = mean_log_error(flat, validation);
    CHECK(constant > 0.2);
    CHECK(r.best_val_loss < 0.1 * constant);
    CHECK(r.final_train_loss < 0.15);
    CHECK(r.epochs_run <= 60);
    CHECK(r.best_epoch >= 1);
    CHECK(r.best_epoch <= r.epochs_run);
    REQUIRE(net.layers.size() == 3);
    CHECK(net.layers[0].in == 5);
    CHECK(net.layers[0].out == 32);
    CHECK(net.layers[0].act == synperf::mlp::activation::relu);
    CHECK(net.layers[2].out == 1);
    CHECK(net.layers[2].act == synperf::mlp::activation::sigmoid);
    CHECK(net.meta.find("seed=42") != std::string::npos);
    // The output clamp is the training targets' range.
    const auto [lo, hi] = std::minmax_element(train.efficiency.begin(), train.efficiency.end());
    CHECK(net.efficiency_min == static_cast<double>(*lo));
    CHECK(net.efficiency_max == std::min(static_cast<double>(*hi), 1.0));
    CHECK(progress.str().find("epoch    1") != std::string::npos);
    CHECK(progress.str().find("epoch   20") != std::string::npos);
}

TEST_CASE("trainer: same seed gives bit-identical weights for any thread count, another seed differs") {
    const dataset train = make_rows(700, 3), validation = make_rows(200, 4);
    train_options o = small_options();
    o.max_epochs = 4;
    o.threads = 1;
    const auto a = all_weights(synperf::train::train_mlp(train, validation, o));
    o.threads = 3;
    const auto b = all_weights(synperf::train::train_mlp(train, validation, o));
    o.threads = 4;
    const auto c = all_weights(synperf::train::train_mlp(train, validation, o));
    o.seed = 43;
    const auto d = all_weights(synperf::train::train_mlp(train, validation, o));
    REQUIRE(a.size() == b.size());
    CHECK(a == b);  // exact float equality, element by element
    CHECK(a == c);
    CHECK(a != d);
}

TEST_CASE("trainer: the exported network (BatchNorm and standardisation folded) matches the eval-mode forward pass") {
    const dataset train = make_rows(800, 5), validation = make_rows(300, 6);
    for (const std::vector<std::size_t>& hidden :
         {std::vector<std::size_t>{}, std::vector<std::size_t>{8}, std::vector<std::size_t>{24, 12, 6}}) {
        CAPTURE(hidden.size());
        train_options o = small_options();
        o.hidden = hidden;
        o.max_epochs = 8;
        const auto model = synperf::train::fit_mlp(train, validation, o);
        // Trained BatchNorm statistics are far from the identity, so folding is really exercised.
        if (!hidden.empty()) CHECK(std::abs(model.norms[0].running_mean[0]) > 1e-3);
        auto net = synperf::train::export_network(model);
        REQUIRE(net.layers.size() == hidden.size() + 1);
        name_inputs(net, 3);
        const auto expected = synperf::train::predict(model, validation.x);
        double worst = 0;
        for (std::size_t i = 0; i < validation.x.shape(0); ++i) {
            const std::vector<double> input{validation.x(i, 0), validation.x(i, 1), validation.x(i, 2),
                                            validation.x(i, 3), validation.x(i, 4)};
            const double got = synperf::mlp::evaluate(net, synperf::mlp::transformed_input, input);
            worst = std::max(worst, std::abs(got - static_cast<double>(expected(i))));
        }
        CHECK(worst < 1e-5);
    }
}

TEST_CASE("trainer: a column constant in training is ignored, whatever value it takes later") {
    dataset train = make_rows(600, 7);
    const dataset validation = make_rows(200, 8);
    for (std::size_t i = 0; i < train.x.shape(0); ++i) train.x(i, 1) = 2.0f;  // b never varies in training
    train_options o = small_options();
    o.max_epochs = 6;
    const auto model = synperf::train::fit_mlp(train, validation, o);
    CHECK(std::isinf(model.input_std[1]));
    auto net = synperf::train::export_network(model);
    name_inputs(net, 3);
    for (std::size_t out = 0; out < net.layers[0].out; ++out) CHECK(net.layers[0].weights[out * 5 + 1] == 0.0f);
    std::vector<double> input{1.0, 2.0, 1.5, 0.0, 1.0};
    const double seen = synperf::mlp::evaluate(net, synperf::mlp::transformed_input, input);
    input[1] = 40.0;  // far outside anything the model saw
    CHECK(synperf::mlp::evaluate(net, synperf::mlp::transformed_input, input) == seen);
}

TEST_CASE("trainer: respects max_epochs, stops early, and keeps the best epoch's weights") {
    const dataset train = make_rows(600, 7), validation = make_rows(300, 8, /*weighted=*/true);
    train_options o = small_options();
    o.max_epochs = 3;
    o.early_stop = 100;
    train_report r;
    (void)synperf::train::fit_mlp(train, validation, o, &r);
    CHECK(r.epochs_run == 3);

    // A high learning rate makes the validation loss wander, so 3 epochs without a new best come soon.
    o.max_epochs = 200;
    o.early_stop = 3;
    o.lr = 0.05;
    const auto model = synperf::train::fit_mlp(train, validation, o, &r);
    CHECK(r.epochs_run < 200);
    CHECK(r.epochs_run == r.best_epoch + 3);
    // The returned weights are the best epoch's: their (weighted) validation loss is the reported best.
    CHECK(mean_log_error(synperf::train::predict(model, validation.x), validation) ==
          doctest::Approx(r.best_val_loss).epsilon(1e-5));

    CHECK_THROWS_WITH_AS(synperf::train::predict(model, xt::xtensor<float, 2>::from_shape({2, 4})),
                         doctest::Contains("needs 5 input columns, got 4"), synperf::invalid_argument);
    CHECK(synperf::train::predict(model, xt::xtensor<float, 2>::from_shape({0, 5})).size() == 0);

    // No validation rows: the training loss is monitored instead.
    o.max_epochs = 2;
    (void)synperf::train::fit_mlp(train, dataset{}, o, &r);
    CHECK(r.epochs_run == 2);
    CHECK(r.best_val_loss > 0);
}

TEST_CASE("trainer: tiny data sets (batches of 2 or 3 rows, shards without rows) train and export finite weights") {
    const dataset train = make_rows(5, 12), validation = make_rows(3, 13);
    train_options o = small_options();
    o.batch = 2;
    o.max_epochs = 3;
    train_report r;
    const auto net = synperf::train::train_mlp(train, validation, o, &r);
    CHECK(r.epochs_run == 3);
    CHECK(std::isfinite(r.best_val_loss));
    for (float w : all_weights(net)) REQUIRE(std::isfinite(w));
}

TEST_CASE("trainer: a prediction saturated at efficiency 1 still gets a gradient back toward the measurement") {
    using synperf::train::detail::sigmoid;
    const float log_half = std::log(0.5f);
    // The gradient for a prediction ê against a measured efficiency of 0.5.
    const auto gradient = [&](float e_hat, float least) {
        return synperf::train::detail::log_error_gradient(e_hat, std::log(std::clamp(e_hat, synperf::train::detail::min_efficiency, 1.0f)) - log_half, least);
    };
    // A logit of 20 rounds the sigmoid to exactly 1 in float: the exact gradient (1 - ê) is 0.
    REQUIRE(sigmoid(20.0f) == 1.0f);
    CHECK(gradient(sigmoid(20.0f), 0.0f) == 0.0f);
    // With the floor it is positive (ê too high: lower the logit), of the floor's size.
    CHECK(gradient(sigmoid(20.0f), 0.02f) == doctest::Approx(0.02f));
    // Away from saturation the exact gradient is unchanged: sign(log ê - log e) * (1 - ê).
    CHECK(gradient(0.25f, 0.02f) == doctest::Approx(-0.75f));
    CHECK(gradient(0.75f, 0.02f) == doctest::Approx(0.25f));
    CHECK(gradient(0.5f, 0.02f) == 0.0f);   // exact prediction
    CHECK(gradient(1e-7f, 0.02f) == 0.0f);  // below the clamp: none
    const dataset train = make_rows(50, 14), validation = make_rows(20, 15);
    train_options o = small_options();
    o.saturation_gradient_floor = 1.0;
    CHECK_THROWS_WITH_AS(synperf::train::fit_mlp(train, validation, o),
                         doctest::Contains("saturation_gradient_floor must be in [0, 1)"), synperf::invalid_argument);
}

TEST_CASE("trainer: rejects bad data and options with a clear message") {
    dataset train = make_rows(50, 9), validation = make_rows(20, 10);
    const train_options o = small_options();
    using synperf::train::fit_mlp;
    {
        dataset bad = train;
        bad.efficiency(7) = 0.0f;
        CHECK_THROWS_WITH_AS(fit_mlp(bad, validation, o), doctest::Contains("efficiency must be finite and > 0"),
                             synperf::invalid_argument);
    }
    {
        dataset bad = validation;
        bad.x = xt::xtensor<float, 2>::from_shape({20, 4});
        CHECK_THROWS_WITH_AS(fit_mlp(train, bad, o), doctest::Contains("needs 5 input columns, got 4"),
                             synperf::invalid_argument);
    }
    {
        dataset bad = train;
        bad.weight = xt::xtensor<float, 1>::from_shape({3});
        CHECK_THROWS_WITH_AS(fit_mlp(bad, validation, o), doctest::Contains("one per row (50), got 3"),
                             synperf::invalid_argument);
    }
    {
        dataset bad = train;
        bad.x(3, 1) = std::numeric_limits<float>::quiet_NaN();
        CHECK_THROWS_WITH_AS(fit_mlp(bad, validation, o), doctest::Contains("row 3, column 1"),
                             synperf::invalid_argument);
    }
    train_options bad = o;
    bad.batch = 1;
    CHECK_THROWS_WITH_AS(fit_mlp(train, validation, bad), doctest::Contains("batch must be >= 2"),
                         synperf::invalid_argument);
    bad = o;
    bad.dropout = 1.0;
    CHECK_THROWS_AS(fit_mlp(train, validation, bad), synperf::invalid_argument);
    bad = o;
    bad.hidden = {16, 1024};
    CHECK_THROWS_WITH_AS(fit_mlp(train, validation, bad), doctest::Contains("got 1024"), synperf::invalid_argument);
}

TEST_CASE("linear baseline: recovers known coefficients") {
    synperf::train::detail::rng gen(11);
    const std::size_t n = 200;
    xt::xtensor<double, 2> x = xt::xtensor<double, 2>::from_shape({n, 3});
    xt::xtensor<double, 1> y = xt::xtensor<double, 1>::from_shape({n});
    for (std::size_t i = 0; i < n; ++i) {
        for (std::size_t j = 0; j < 3; ++j) x(i, j) = std::log1p(1000.0 * gen.uniform());
        y(i) = 0.5 + 2.0 * x(i, 0) - 1.5 * x(i, 1) + 0.25 * x(i, 2);
    }
    const auto m = synperf::train::fit_linear(x, y);
    REQUIRE(m.coef.size() == 4);
    CHECK(m.coef[0] == doctest::Approx(0.5).epsilon(1e-6));
    CHECK(m.coef[1] == doctest::Approx(2.0).epsilon(1e-6));
    CHECK(m.coef[2] == doctest::Approx(-1.5).epsilon(1e-6));
    CHECK(m.coef[3] == doctest::Approx(0.25).epsilon(1e-6));
    const std::vector<double> row{1.0, 2.0, 4.0};
    CHECK(m.predict_log(row) == doctest::Approx(0.5 + 2.0 - 3.0 + 1.0).epsilon(1e-6));
    CHECK_THROWS_WITH_AS((void)m.predict_log(std::vector<double>{1.0}), doctest::Contains("needs 3 features, got 1"),
                         synperf::invalid_argument);

    // A column that is always 0 stays solvable (the ridge) and gets a zero coefficient.
    xt::xtensor<double, 2> x0 = xt::xtensor<double, 2>::from_shape({n, 2});
    for (std::size_t i = 0; i < n; ++i) {
        x0(i, 0) = x(i, 0);
        x0(i, 1) = 0.0;
        y(i) = 1.0 + 3.0 * x(i, 0);
    }
    const auto m0 = synperf::train::fit_linear(x0, y);
    CHECK(m0.coef[1] == doctest::Approx(3.0).epsilon(1e-6));
    CHECK(m0.coef[2] == doctest::Approx(0.0));
    CHECK_THROWS_AS(synperf::train::fit_linear(x0, xt::xtensor<double, 1>::from_shape({3})), synperf::invalid_argument);
}

TEST_CASE("linear baseline: one-hot levels that sum to the intercept stay solvable over many rows") {
    // The eval tools append the framework one-hot to the features: the levels sum to the intercept column,
    // and over hundreds of thousands of rows rounding can leave the normal equations not positive definite.
    synperf::train::detail::rng gen(5);
    const std::size_t n = 400000;
    xt::xtensor<double, 2> x = xt::xtensor<double, 2>::from_shape({n, 4});
    xt::xtensor<double, 1> y = xt::xtensor<double, 1>::from_shape({n});
    for (std::size_t i = 0; i < n; ++i) {
        x(i, 0) = std::log1p(1e6 * gen.uniform());
        x(i, 1) = std::log1p(10.0 * gen.uniform());
        const bool level = gen.uniform() < 0.3;
        x(i, 2) = level ? 1.0 : 0.0;
        x(i, 3) = level ? 0.0 : 1.0;
        y(i) = 0.2 + 1.5 * x(i, 0) - 0.5 * x(i, 1) + (level ? 0.4 : 0.0);
    }
    const auto m = synperf::train::fit_linear(x, y);
    for (std::size_t i = 0; i < n; i += 9973) {
        const std::vector<double> row{x(i, 0), x(i, 1), x(i, 2), x(i, 3)};
        CHECK(m.predict_log(row) == doctest::Approx(y(i)).epsilon(1e-6));
    }
}
#endif
