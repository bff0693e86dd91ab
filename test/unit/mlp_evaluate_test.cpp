// SPDX-License-Identifier: Apache-2.0
#include "synperf/mlp/evaluate.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <new>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "synperf/cost/mlp_cost.hpp"
#include "synperf/mlp/compiled.hpp"

// Counts heap allocations (the replaceable global operator new), so a test can check that a prediction
// makes none. Only counts: every allocation still goes to malloc and free.
namespace {
std::atomic<std::size_t> allocations{0};
}  // namespace

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"  // malloc/free behind new/delete is the point here
void* operator new(std::size_t size) {
    allocations.fetch_add(1, std::memory_order_relaxed);
    if (void* p = std::malloc(size == 0 ? 1 : size)) return p;
    throw std::bad_alloc();
}
void operator delete(void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }
#pragma GCC diagnostic pop

namespace {

using synperf::mlp::activation;
using synperf::mlp::dense_layer;
using synperf::mlp::network;

// Inputs log1p(x), log1p(y), one-hot(mode in {a, b}); hidden 2 relu; output sigmoid.
network tiny_network() {
    network net;
    net.family = "tiny";
    net.feature_names = {"x", "y"};
    net.categoricals = {{"mode", {"a", "b"}}};
    net.layers.push_back(dense_layer{4, 2, activation::relu, {1.0f, 0.5f, 2.0f, -1.0f, -1.0f, 1.0f, 0.0f, 3.0f}, {0.25f, -0.5f}});
    net.layers.push_back(dense_layer{2, 1, activation::sigmoid, {0.5f, -0.25f}, {0.125f}});
    return net;
}

double sigmoid(double z) { return 1.0 / (1.0 + std::exp(-z)); }

// A plain double-precision forward pass, to check the blocked float kernel against.
double reference(const network& net, std::vector<double> x) {
    for (const auto& l : net.layers) {
        std::vector<double> y(l.out);
        for (std::size_t o = 0; o < l.out; ++o) {
            double z = l.bias[o];
            for (std::size_t j = 0; j < l.in; ++j) z += double(l.weights[o * l.in + j]) * x[j];
            y[o] = l.act == activation::relu ? std::max(z, 0.0) : l.act == activation::sigmoid ? sigmoid(z) : z;
        }
        x = std::move(y);
    }
    return x[0];
}

network random_network(std::vector<std::size_t> widths, std::size_t features, std::uint32_t seed) {
    std::mt19937 gen(seed);
    std::normal_distribution<float> dist(0.0f, 0.3f);
    network net;
    net.family = "random";
    for (std::size_t i = 0; i < features; ++i) net.feature_names.push_back(std::string("f").append(std::to_string(i)));
    if (widths.front() > features) {
        net.categoricals.push_back({"kind", {}});
        for (std::size_t l = features; l < widths.front(); ++l) net.categoricals[0].levels.push_back(std::string("k").append(std::to_string(l)));
    }
    for (std::size_t i = 0; i + 1 < widths.size(); ++i) {
        dense_layer l{widths[i], widths[i + 1], i + 2 == widths.size() ? activation::sigmoid : activation::relu, {}, {}};
        for (std::size_t k = 0; k < l.in * l.out; ++k) l.weights.push_back(dist(gen));
        for (std::size_t k = 0; k < l.out; ++k) l.bias.push_back(dist(gen));
        net.layers.push_back(std::move(l));
    }
    return net;
}

}  // namespace

TEST_CASE("mlp::detail::all_finite: false for infinities and NaN only") {
    using lim = std::numeric_limits<float>;
    const std::vector<float> finite{0.0f, -0.0f, 1.5f, -lim::max(), lim::max(), lim::denorm_min(), -lim::min()};
    CHECK(synperf::mlp::detail::all_finite(finite));
    CHECK(synperf::mlp::detail::all_finite(std::vector<float>{}));
    for (const float bad : {lim::infinity(), -lim::infinity(), lim::quiet_NaN(), -lim::quiet_NaN(), lim::signaling_NaN()}) {
        std::vector<float> v = finite;
        v.insert(v.begin() + 3, bad);
        CHECK_FALSE(synperf::mlp::detail::all_finite(v));
    }
}

TEST_CASE("mlp evaluate: hand-computed forward pass (log1p, one-hot, relu, sigmoid)") {
    const network net = tiny_network();
    const std::size_t a = 0, b = 1;
    // x = e - 1, y = e^2 - 1, so the log1p inputs are 1 and 2.
    const double x = std::expm1(1.0), y = std::expm1(2.0);
    const std::vector<double> numeric{x, y};

    SUBCASE("mode b: input (1, 2, 0, 1), hidden (1.25, 3.5), z = -0.125") {
        const std::vector<std::size_t> cat{b};
        CHECK(synperf::mlp::evaluate(net, numeric, cat) == doctest::Approx(sigmoid(-0.125)).epsilon(1e-6));
    }
    SUBCASE("mode a: input (1, 2, 1, 0), hidden (4.25, 0.5), z = 2.125") {
        const std::vector<std::size_t> cat{a};
        CHECK(synperf::mlp::evaluate(net, numeric, cat) == doctest::Approx(sigmoid(2.125)).epsilon(1e-6));
    }
    SUBCASE("relu clamps: input (0, 0, 1, 0), hidden (2.25, -0.5 -> 0), z = 1.25") {
        const std::vector<double> zeros{0.0, 0.0};
        const std::vector<std::size_t> cat{a};
        CHECK(synperf::mlp::evaluate(net, zeros, cat) == doctest::Approx(sigmoid(1.25)).epsilon(1e-6));
    }
    SUBCASE("identity keeps the negative hidden unit: z = 1.125 + 0.125 + 0.125") {
        network lin = net;
        lin.layers[0].act = activation::identity;
        const std::vector<double> zeros{0.0, 0.0};
        const std::vector<std::size_t> cat{a};
        CHECK(synperf::mlp::evaluate(lin, zeros, cat) == doctest::Approx(sigmoid(1.375)).epsilon(1e-6));
    }
    SUBCASE("the transformed-input overload skips log1p and one-hot") {
        const std::vector<double> input{1.0, 2.0, 0.0, 1.0};
        const double raw = synperf::mlp::evaluate(net, synperf::mlp::transformed_input, input);
        CHECK(raw == doctest::Approx(sigmoid(-0.125)).epsilon(1e-6));
        const std::vector<std::size_t> cat{b};
        CHECK(raw == doctest::Approx(synperf::mlp::evaluate(net, numeric, cat)).epsilon(1e-7));
    }
}

TEST_CASE("mlp evaluate: features outside the training range are clamped to it, by both evaluators") {
    network net = tiny_network();
    net.feature_min = {1.0, 0.5};
    net.feature_max = {4.0, 2.0};
    const synperf::mlp::compiled_network compiled(net);
    const std::vector<std::size_t> cat{1};
    const auto both = [&](std::vector<double> x) {
        const double e = evaluate(net, x, cat);
        CHECK(compiled.evaluate(x, cat) == doctest::Approx(e).epsilon(1e-6));
        return e;
    };
    // Inside the range nothing changes; below and above, the value at the edge is used.
    CHECK(both({2.0, 1.0}) == doctest::Approx(reference(net, {std::log1p(2.0), std::log1p(1.0), 0.0, 1.0})));
    CHECK(both({0.0, 1.0}) == both({1.0, 1.0}));
    CHECK(both({100.0, 1.0}) == both({4.0, 1.0}));
    CHECK(both({2.0, 1e9}) == both({2.0, 2.0}));
    CHECK(both({100.0, 0.0}) == both({4.0, 0.5}));
    // Without a recorded range the input is used as is.
    net.feature_min.clear();
    net.feature_max.clear();
    CHECK(evaluate(net, std::vector<double>{100.0, 1.0}, cat) ==
          doctest::Approx(reference(net, {std::log1p(100.0), std::log1p(1.0), 0.0, 1.0})));
    // A bad feature is still refused, not clamped into range.
    net.feature_min = {1.0, 0.5};
    net.feature_max = {4.0, 2.0};
    CHECK_THROWS_AS((void)evaluate(net, std::vector<double>{-1.0, 1.0}, cat), synperf::invalid_argument);
    CHECK_THROWS_AS((void)compiled.evaluate(std::vector<double>{std::nan(""), 1.0}, cat), synperf::invalid_argument);
}

TEST_CASE("mlp evaluate: the output is clamped into the training efficiency range, by both evaluators") {
    network net = tiny_network();
    const std::vector<std::size_t> cat{1};
    const std::vector<double> x{2.0, 1.0};
    const double raw = evaluate(net, x, cat);  // no range recorded: the network's own output
    CHECK(raw == doctest::Approx(reference(net, {std::log1p(2.0), std::log1p(1.0), 0.0, 1.0})));
    const std::vector<double> input{std::log1p(2.0), std::log1p(1.0), 0.0, 1.0};
    for (const auto& range : {std::pair{raw + 0.1, 0.95}, std::pair{0.01, raw - 0.1}, std::pair{raw - 0.1, raw + 0.1}}) {
        const double lo = range.first, hi = range.second;  // named: CAPTURE's lambda cannot capture a structured binding in clang 14
        CAPTURE(lo);
        CAPTURE(hi);
        net.efficiency_min = lo;
        net.efficiency_max = hi;
        const synperf::mlp::compiled_network compiled(net);
        const double expected = std::clamp(raw, lo, hi);
        CHECK(evaluate(net, x, cat) == doctest::Approx(expected));
        CHECK(compiled.evaluate(x, cat) == doctest::Approx(expected));
        // The transformed-input entry point returns the network's own output (trainer checks compare it).
        CHECK(evaluate(net, synperf::mlp::transformed_input, input) == doctest::Approx(raw));
        CHECK(compiled.evaluate(synperf::mlp::transformed_input, input) == doctest::Approx(raw));
    }
}

TEST_CASE("mlp evaluate: blocked float kernel matches a double reference on awkward widths") {
    // 20-256-128-64-1 is the production shape; 13-37-21-1 leaves remainders in every row block and lane loop.
    for (const auto& widths : {std::vector<std::size_t>{20, 256, 128, 64, 1}, std::vector<std::size_t>{13, 37, 21, 1},
                               std::vector<std::size_t>{1, 1}, std::vector<std::size_t>{512, 512, 1}}) {
        CAPTURE(widths.size());
        CAPTURE(widths.front());
        const std::size_t features = std::min<std::size_t>(widths.front(), 17);
        const network net = random_network(widths, features, 7);
        std::mt19937 gen(3);
        std::uniform_real_distribution<double> dist(0.0, 1000.0);
        for (int trial = 0; trial < 5; ++trial) {
            std::vector<double> numeric(features);
            for (auto& v : numeric) v = dist(gen);
            std::vector<std::size_t> cat;
            std::vector<double> input;
            for (double v : numeric) input.push_back(double(float(std::log1p(v))));
            if (!net.categoricals.empty()) {
                const std::size_t level = std::size_t(trial) % net.categoricals[0].levels.size();
                cat.push_back(level);
                for (std::size_t l = 0; l < net.categoricals[0].levels.size(); ++l) input.push_back(l == level ? 1.0 : 0.0);
            }
            const double got = synperf::mlp::evaluate(net, numeric, cat);
            CHECK(got == doctest::Approx(reference(net, input)).epsilon(1e-4));
            CHECK(got == synperf::mlp::evaluate(net, synperf::mlp::transformed_input, input));
        }
    }
}

TEST_CASE("mlp evaluate: a prediction allocates nothing") {
    const network net = random_network({20, 256, 128, 64, 1}, 17, 11);
    const std::vector<double> numeric(17, 3.0);
    const std::vector<std::size_t> cat{2};
    double sum = synperf::mlp::evaluate(net, numeric, cat);
    const std::size_t before = allocations.load();
    for (int i = 0; i < 100; ++i) sum += synperf::mlp::evaluate(net, numeric, cat);
    CHECK(allocations.load() == before);
    CHECK(std::isfinite(sum));
}

TEST_CASE("mlp compiled_network and cost::mlp_cost: a prediction allocates nothing") {
    const network net = random_network({26, 256, 128, 64, 1}, 24, 11);
    const synperf::mlp::compiled_network compiled(net);
    const synperf::cost::mlp_cost cost(net);
    const std::vector<double> numeric(24, 3.0);
    const std::vector<std::size_t> cat{1};
    double sum = compiled.evaluate(numeric, cat) + cost.efficiency(numeric, 1);
    const std::size_t before = allocations.load();
    for (int i = 0; i < 100; ++i) sum += compiled.evaluate(numeric, cat) + cost.efficiency(numeric, 0);
    CHECK(allocations.load() == before);
    CHECK(std::isfinite(sum));
}

TEST_CASE("mlp evaluate: rejects bad features and level indices, naming them") {
    const network net = tiny_network();
    const std::vector<std::size_t> cat{0};
    using synperf::invalid_argument;
    using synperf::mlp::evaluate;
    const double nan = std::numeric_limits<double>::quiet_NaN();
    const double inf = std::numeric_limits<double>::infinity();

    CHECK_THROWS_WITH_AS((void)evaluate(net, std::vector<double>{1.0, -1.0}, cat),
                         doctest::Contains("feature 2 'y' must be finite and >= 0, got -1"), invalid_argument);
    CHECK_THROWS_WITH_AS((void)evaluate(net, std::vector<double>{nan, 1.0}, cat), doctest::Contains("feature 1 'x'"),
                         invalid_argument);
    CHECK_THROWS_WITH_AS((void)evaluate(net, std::vector<double>{1.0, inf}, cat), doctest::Contains("got inf"),
                         invalid_argument);
    CHECK_THROWS_WITH_AS((void)evaluate(net, std::vector<double>{1.0}, cat),
                         doctest::Contains("synperf: mlp 'tiny': expected 2 numeric features, got 1"), invalid_argument);
    CHECK_THROWS_WITH_AS((void)evaluate(net, std::vector<double>{1.0, 1.0}, std::vector<std::size_t>{}),
                         doctest::Contains("expected 1 categorical level indices, got 0"), invalid_argument);
    CHECK_THROWS_WITH_AS((void)evaluate(net, std::vector<double>{1.0, 1.0}, std::vector<std::size_t>{2}),
                         doctest::Contains("categorical 'mode': level index 2 out of range (2 levels: a, b)"),
                         invalid_argument);
    CHECK_THROWS_WITH_AS((void)evaluate(net, synperf::mlp::transformed_input, std::vector<double>{1, 2, 3}),
                         doctest::Contains("expected an input vector of 4 values, got 3"), invalid_argument);
    CHECK_THROWS_WITH_AS((void)evaluate(net, synperf::mlp::transformed_input, std::vector<double>{1, nan, 0, 1}),
                         doctest::Contains("input value 2 must be finite"), invalid_argument);
    CHECK_NOTHROW((void)evaluate(net, std::vector<double>{0.0, 1e300}, cat));  // large but finite is fine
}

TEST_CASE("mlp categorical_index: finds levels, lists them when unknown") {
    const network net = tiny_network();
    CHECK(synperf::mlp::categorical_index(net, 0, "a") == 0);
    CHECK(synperf::mlp::categorical_index(net, 0, "b") == 1);
    CHECK_THROWS_WITH_AS((void)synperf::mlp::categorical_index(net, 0, "c"),
                         doctest::Contains("synperf: mlp 'tiny': unknown mode 'c'; known: a, b"), synperf::invalid_argument);
    CHECK_THROWS_WITH_AS((void)synperf::mlp::categorical_index(net, 1, "a"),
                         doctest::Contains("categorical input 1 out of range (the network has 1)"), synperf::invalid_argument);
}

TEST_CASE("mlp evaluate: a malformed in-memory network is refused, never read out of bounds") {
    const std::vector<double> numeric{1.0, 1.0};
    const std::vector<std::size_t> cat{0};
    auto refuses = [&](const network& net, const char* what) {
        CAPTURE(what);
        CHECK_THROWS_WITH_AS((void)synperf::mlp::evaluate(net, numeric, cat), doctest::Contains(what),
                             synperf::invalid_argument);
        CHECK_THROWS_WITH_AS(synperf::mlp::validate(net), doctest::Contains(what), synperf::invalid_argument);
    };
    network net = tiny_network();
    CHECK_NOTHROW(synperf::mlp::validate(net));

    net.layers[0].weights.pop_back();
    refuses(net, "layer 1: weights need 2x4 = 8 values, got 7");
    net = tiny_network();
    net.layers[1].bias.clear();
    refuses(net, "layer 2: bias needs 1 values, got 0");
    net = tiny_network();
    net.layers[1].in = 3;
    refuses(net, "layer 2: input width 3 does not chain from layer 1's output width 2");
    net = tiny_network();
    net.categoricals[0].levels.push_back("c");
    refuses(net, "layer 1: input width 4 does not match the input vector width 5");
    net = tiny_network();
    net.layers[1].act = activation::relu;
    refuses(net, "layer 2: the last layer must use sigmoid");
    net = tiny_network();
    net.layers.pop_back();
    refuses(net, "layer 1: the last layer must have output width 1 (the efficiency), got 2");
    net = tiny_network();
    net.layers.clear();
    refuses(net, "needs at least 1 layer");

    // evaluate does not scan the weights per call, but a non-finite one makes its output NaN, which it does not
    // return: validate then names the value.
    net = tiny_network();
    net.layers[0].weights[5] = std::numeric_limits<float>::infinity();
    refuses(net, "layer 1 row 2 value 2: weight is not finite");
    net = tiny_network();
    net.layers[0].weights[7] = -std::numeric_limits<float>::quiet_NaN();
    refuses(net, "layer 1 row 2 value 4: weight is not finite");
    net = tiny_network();
    net.layers[1].bias[0] = std::numeric_limits<float>::quiet_NaN();
    refuses(net, "not finite");
    net = tiny_network();
    net.feature_names[1] = "x";
    CHECK_THROWS_WITH_AS(synperf::mlp::validate(net), doctest::Contains("duplicate input name 'x'"), synperf::invalid_argument);
    net = tiny_network();
    net.feature_names[1] = "two words";
    CHECK_THROWS_WITH_AS(synperf::mlp::validate(net), doctest::Contains("feature name 'two words' must be a non-empty word"),
                         synperf::invalid_argument);
    net = tiny_network();
    net.meta = "line\nbreak";
    CHECK_THROWS_WITH_AS(synperf::mlp::validate(net), doctest::Contains("meta must be a single line"), synperf::invalid_argument);
}
