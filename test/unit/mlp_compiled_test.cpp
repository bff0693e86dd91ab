// SPDX-License-Identifier: Apache-2.0
#include "synperf/mlp/compiled.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "synperf/cost/mlp_cost.hpp"
#include "synperf/mlp/evaluate.hpp"

namespace {

using synperf::invalid_argument;
using synperf::mlp::activation;
using synperf::mlp::compiled_network;
using synperf::mlp::dense_layer;
using synperf::mlp::network;

double sigmoid(double z) { return 1.0 / (1.0 + std::exp(-z)); }

// Inputs log1p(x), log1p(y), one-hot(mode in {a, b}); hidden 2 relu; output sigmoid (docs/weights-format.md).
network tiny_network() {
    network net;
    net.family = "tiny";
    net.feature_names = {"x", "y"};
    net.categoricals = {{"mode", {"a", "b"}}};
    net.layers.push_back(dense_layer{4, 2, activation::relu, {1.0f, 0.5f, 2.0f, -1.0f, -1.0f, 1.0f, 0.0f, 3.0f}, {0.25f, -0.5f}});
    net.layers.push_back(dense_layer{2, 1, activation::sigmoid, {0.5f, -0.25f}, {0.125f}});
    return net;
}

std::string numbered(const char* prefix, std::size_t i) { return std::string(prefix).append(std::to_string(i)); }

// Widths from input to output; `features` numeric inputs, the rest of the input one categorical's levels.
// Weights ~ N(0, scale^2 / in) as after training with He-style initialisation; hidden layers use `hidden`.
network random_network(const std::vector<std::size_t>& widths, std::size_t features, std::uint32_t seed,
                       activation hidden = activation::relu, float scale = 1.0f) {
    std::mt19937 gen(seed);
    network net;
    net.family = "random";
    for (std::size_t i = 0; i < features; ++i) net.feature_names.push_back(numbered("f", i));
    if (widths.front() > features) {
        net.categoricals.push_back({"kind", {}});
        for (std::size_t l = features; l < widths.front(); ++l) net.categoricals[0].levels.push_back(numbered("k", l));
    }
    for (std::size_t i = 0; i + 1 < widths.size(); ++i) {
        std::normal_distribution<float> dist(0.0f, scale / std::sqrt(static_cast<float>(widths[i])));
        dense_layer l{widths[i], widths[i + 1], i + 2 == widths.size() ? activation::sigmoid : hidden, {}, {}};
        for (std::size_t k = 0; k < l.in * l.out; ++k) l.weights.push_back(dist(gen));
        for (std::size_t k = 0; k < l.out; ++k) l.bias.push_back(dist(gen));
        net.layers.push_back(std::move(l));
    }
    return net;
}

// A plain double-precision forward pass on the input vector.
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

}  // namespace

TEST_CASE("mlp compiled_network: hand-computed forward pass, as mlp::evaluate") {
    const network net = tiny_network();
    const compiled_network c(net);
    CHECK(c.input_width() == 4);
    CHECK(c.description().family == "tiny");
    CHECK(c.description().feature_names == net.feature_names);
    CHECK(c.description().categoricals.size() == 1);
    CHECK(c.description().layers.empty());

    const std::vector<double> numeric{std::expm1(1.0), std::expm1(2.0)};  // log1p inputs 1 and 2
    const std::vector<std::size_t> a{0}, b{1};
    CHECK(c.evaluate(numeric, b) == doctest::Approx(sigmoid(-0.125)).epsilon(1e-6));
    CHECK(c.evaluate(numeric, a) == doctest::Approx(sigmoid(2.125)).epsilon(1e-6));
    // relu clamps the second hidden unit: inputs (0, 0, 1, 0), hidden (2.25, 0).
    CHECK(c.evaluate(std::vector<double>{0.0, 0.0}, a) == doctest::Approx(sigmoid(1.25)).epsilon(1e-6));
    // Small sums in input order are exact in float: the same bits as mlp::evaluate.
    CHECK(c.evaluate(numeric, b) == synperf::mlp::evaluate(net, numeric, b));

    network lin = net;
    lin.layers[0].act = activation::identity;
    CHECK(compiled_network(lin).evaluate(std::vector<double>{0.0, 0.0}, a) == doctest::Approx(sigmoid(1.375)).epsilon(1e-6));

    const std::vector<double> input{1.0, 2.0, 0.0, 1.0};
    CHECK(c.evaluate(synperf::mlp::transformed_input, input) == doctest::Approx(sigmoid(-0.125)).epsilon(1e-6));
}

TEST_CASE("mlp compiled_network: matches mlp::evaluate on real-size and awkward widths") {
    struct shape {
        std::vector<std::size_t> widths;
        std::size_t features;
        activation hidden;
    };
    // 26-256-128-64-1 (24 GEMM features + 2 frameworks) is the production shape. 13-37-21-1 leaves a lone
    // block after the pairs in every layer and a partial block; 48 is three blocks; 512 is the widest.
    const shape shapes[] = {
        {{26, 256, 128, 64, 1}, 24, activation::relu},   {{20, 256, 128, 64, 1}, 17, activation::relu},
        {{13, 37, 21, 1}, 9, activation::relu},          {{5, 48, 80, 1}, 5, activation::identity},
        {{512, 512, 1}, 100, activation::relu},          {{1, 1}, 1, activation::relu},
        {{33, 16, 32, 17, 1}, 30, activation::relu},
    };
    for (const auto& s : shapes) {
        CAPTURE(s.widths.front());
        CAPTURE(s.widths.size());
        const network net = random_network(s.widths, s.features, 7);
        const compiled_network c(net);
        std::mt19937 gen(3);
        std::uniform_real_distribution<double> dist(0.0, 1e6);
        for (std::size_t trial = 0; trial < 50; ++trial) {
            std::vector<double> numeric(s.features);
            for (std::size_t i = 0; i < numeric.size(); ++i) numeric[i] = (trial + i) % 4 == 0 ? 0.0 : dist(gen);  // zeros are skipped
            std::vector<std::size_t> cat;
            std::vector<double> input;
            for (double v : numeric) input.push_back(double(float(std::log1p(v))));
            if (!net.categoricals.empty()) {
                const std::size_t level = trial % net.categoricals[0].levels.size();
                cat.push_back(level);
                for (std::size_t l = 0; l < net.categoricals[0].levels.size(); ++l) input.push_back(l == level ? 1.0 : 0.0);
            }
            const double want = synperf::mlp::evaluate(net, numeric, cat);
            const double got = c.evaluate(numeric, cat);
            CHECK(got == doctest::Approx(want).epsilon(5e-6));  // seen: up to 4e-6 on 512-wide layers
            CHECK(got == doctest::Approx(reference(net, input)).epsilon(1e-4));
            CHECK(got == c.evaluate(synperf::mlp::transformed_input, input));
        }
    }
}

TEST_CASE("mlp compiled_network: every weight reaches its own output") {
    // One non-zero weight at a time, in a 3-40-1 network with identity hidden units: the output is
    // sigmoid(w * x_j) only if (o, j) was placed where the kernel reads it, for outputs in a pair of
    // blocks (0..31) and in the lone block after it (32..39).
    network net = random_network({3, 40, 1}, 3, 1, activation::identity);
    for (auto& w : net.layers[0].weights) w = 0.0f;
    for (auto& b : net.layers[0].bias) b = 0.0f;
    net.layers[1].bias[0] = 0.0f;
    for (std::size_t o = 0; o < 40; ++o) net.layers[1].weights[o] = static_cast<float>(o + 1);
    const std::vector<double> input{1.0, 2.0, 4.0};
    for (std::size_t o = 0; o < 40; ++o) {
        for (std::size_t j = 0; j < 3; ++j) {
            network one = net;
            one.layers[0].weights[o * 3 + j] = 0.125f;
            const double z = 0.125 * input[j] * double(o + 1);
            CHECK(compiled_network(one).evaluate(synperf::mlp::transformed_input, input) == doctest::Approx(sigmoid(z)).epsilon(1e-6));
        }
        network biased = net;
        biased.layers[0].bias[o] = 0.5f;
        CHECK(compiled_network(biased).evaluate(synperf::mlp::transformed_input, input) ==
              doctest::Approx(sigmoid(0.5 * double(o + 1))).epsilon(1e-6));
    }
}

#if defined(__GNUC__)
TEST_CASE("mlp compiled_network: the vector and plain C++ kernels give the same bits") {
    std::mt19937 gen(9);
    std::normal_distribution<float> dist(0.0f, 1.0f);
    constexpr std::size_t in = 70;
    std::vector<float> w(in * 32), x(in), bias(32);
    for (auto& v : w) v = dist(gen);
    for (auto& v : x) v = dist(gen);
    for (auto& v : bias) v = dist(gen);
    std::vector<std::uint16_t> nonzero;
    for (std::size_t j = 0; j < in; ++j)
        if (j % 3 != 1) nonzero.push_back(static_cast<std::uint16_t>(j));
    float portable[32], vec[32];
    using synperf::mlp::detail::accumulate_portable;
    using synperf::mlp::detail::accumulate_vector;
    accumulate_portable<32>(w.data(), x.data(), nonzero.data(), nonzero.size(), bias.data(), portable, std::make_index_sequence<32>{});
    accumulate_vector<32>(w.data(), x.data(), nonzero.data(), nonzero.size(), bias.data(), vec, std::make_index_sequence<8>{});
    for (std::size_t k = 0; k < 32; ++k) CHECK(portable[k] == vec[k]);
    accumulate_portable<16>(w.data(), x.data(), nonzero.data(), nonzero.size(), bias.data(), portable, std::make_index_sequence<16>{});
    accumulate_vector<16>(w.data(), x.data(), nonzero.data(), nonzero.size(), bias.data(), vec, std::make_index_sequence<4>{});
    for (std::size_t k = 0; k < 16; ++k) CHECK(portable[k] == vec[k]);
    // Each output is its bias plus the products in input order.
    for (std::size_t k = 0; k < 16; ++k) {
        float z = bias[k];
        for (std::uint16_t j : nonzero) z += x[j] * w[j * 16 + k];
        CHECK(vec[k] == z);
    }
}
#endif

#if defined(SYNPERF_MLP_HAS_AVX2_PATH)
TEST_CASE("mlp compiled_network: the AVX2 path gives the bits of the 4-wide one, layer by layer") {
    if (!synperf::mlp::detail::cpu_has_avx2()) {
        MESSAGE("this CPU has no AVX2: the AVX2 path is not run here");
        return;
    }
    // Layers whose 16-output blocks go four per pass (256 outputs), four, two and one (112), two and one (48), and
    // outputs that do not fill their last block (21, 1); ReLU and sigmoid layers.
    const network net = random_network({37, 256, 112, 48, 21, 1}, 34, 11);
    std::mt19937 gen(4);
    std::normal_distribution<float> dist(0.0f, 1.0f);
    for (const auto& l : net.layers) {
        synperf::mlp::detail::compiled_layer c;
        c.in = l.in;
        c.out = l.out;
        c.act = l.act;
        c.blocks = (l.out + 15) / 16;
        c.weights = 0;
        c.bias = c.blocks * 16 * l.in;
        std::vector<float> values(c.bias + c.blocks * 16);
        for (auto& v : values) v = dist(gen);
        std::vector<float> x(l.in);
        std::vector<std::uint16_t> nonzero;
        for (std::size_t j = 0; j < l.in; ++j) {
            x[j] = j % 4 == 2 ? 0.0f : dist(gen);
            if (x[j] != 0.0f) nonzero.push_back(static_cast<std::uint16_t>(j));
        }
        std::vector<float> narrow(c.blocks * 16), wide(c.blocks * 16);
        synperf::mlp::detail::dense_blocked(values.data(), c, x.data(), nonzero.data(), nonzero.size(), narrow.data());
        synperf::mlp::detail::dense_blocked_avx2(values.data(), c, x.data(), nonzero.data(), nonzero.size(), wide.data());
        for (std::size_t o = 0; o < l.out; ++o) CHECK(std::bit_cast<std::uint32_t>(narrow[o]) == std::bit_cast<std::uint32_t>(wide[o]));
    }
}
#endif

#if defined(SYNPERF_MLP_HAS_AVX2_PATH)
TEST_CASE("mlp compiled_network: the AVX2 scan finds the non-zero inputs the scalar test finds") {
    if (!synperf::mlp::detail::cpu_has_avx2()) {
        MESSAGE("this CPU has no AVX2: the AVX2 path is not run here");
        return;
    }
    std::mt19937 gen(9);
    std::uniform_int_distribution<int> pick(0, 5);
    const float nan = std::numeric_limits<float>::quiet_NaN();
    for (std::size_t count : {0u, 1u, 7u, 8u, 9u, 64u, 255u, 256u, 512u}) {
        std::vector<float> x(count);
        for (auto& v : x) {
            const int k = pick(gen);  // zeros, negative zeros and NaN among ordinary values
            v = k == 0 ? 0.0f : k == 1 ? -0.0f : k == 2 ? nan : static_cast<float>(k) - 3.5f;
        }
        std::vector<std::uint16_t> expected;
        for (std::size_t j = 0; j < count; ++j)
            if (x[j] != 0.0f) expected.push_back(static_cast<std::uint16_t>(j));
        std::vector<std::uint16_t> found(count);
        const std::size_t n = synperf::mlp::detail::nonzero_indices_avx2(x.data(), count, found.data());
        found.resize(n);
        CHECK(found == expected);
    }
}
#endif

TEST_CASE("mlp compiled_network: rejects bad inputs with mlp::evaluate's messages") {
    const network net = tiny_network();
    const compiled_network c(net);
    const std::vector<std::size_t> cat{0};
    const std::vector<double> good{1.0, 2.0};
    const double nan = std::numeric_limits<double>::quiet_NaN();
    const double inf = std::numeric_limits<double>::infinity();
    CHECK_THROWS_WITH_AS((void)c.evaluate(std::vector<double>{1.0}, cat),
                         "synperf: mlp 'tiny': expected 2 numeric features, got 1", invalid_argument);
    CHECK_THROWS_WITH_AS((void)c.evaluate(good, std::vector<std::size_t>{}),
                         "synperf: mlp 'tiny': expected 1 categorical level indices, got 0", invalid_argument);
    CHECK_THROWS_WITH_AS((void)c.evaluate(std::vector<double>{1.0, -1.0}, cat),
                         "synperf: mlp 'tiny': feature 2 'y' must be finite and >= 0, got -1", invalid_argument);
    CHECK_THROWS_WITH_AS((void)c.evaluate(std::vector<double>{nan, 1.0}, cat),
                         "synperf: mlp 'tiny': feature 1 'x' must be finite and >= 0, got nan", invalid_argument);
    CHECK_THROWS_WITH_AS((void)c.evaluate(std::vector<double>{inf, 1.0}, cat),
                         "synperf: mlp 'tiny': feature 1 'x' must be finite and >= 0, got inf", invalid_argument);
    CHECK_THROWS_WITH_AS((void)c.evaluate(good, std::vector<std::size_t>{2}),
                         "synperf: mlp 'tiny': categorical 'mode': level index 2 out of range (2 levels: a, b)",
                         invalid_argument);
    CHECK_THROWS_WITH_AS((void)c.evaluate(synperf::mlp::transformed_input, std::vector<double>{1.0, 2.0, 0.0}),
                         "synperf: mlp 'tiny': expected an input vector of 4 values, got 3", invalid_argument);
    CHECK_THROWS_WITH_AS((void)c.evaluate(synperf::mlp::transformed_input, std::vector<double>{1.0, 1e39, 0.0, 1.0}),
                         "synperf: mlp 'tiny': input value 2 must be finite as a float, got 1e+39", invalid_argument);
    // Every message matches the reference evaluator's.
    for (const auto& bad : {std::vector<double>{1.0}, std::vector<double>{1.0, -1.0}, std::vector<double>{nan, 1.0}}) {
        std::string want, got;
        try {
            (void)synperf::mlp::evaluate(net, bad, cat);
        } catch (const invalid_argument& e) {
            want = e.what();
        }
        try {
            (void)c.evaluate(bad, cat);
        } catch (const invalid_argument& e) {
            got = e.what();
        }
        CHECK(!want.empty());
        CHECK(got == want);
    }
}

TEST_CASE("mlp compiled_network: a malformed network is refused when compiled") {
    network net = tiny_network();
    net.layers[0].bias[1] = std::numeric_limits<float>::quiet_NaN();
    CHECK_THROWS_WITH_AS((void)compiled_network(net), "synperf: mlp 'tiny': layer 1 bias value 2: not finite", invalid_argument);
    net = tiny_network();
    net.layers[1].weights.pop_back();
    CHECK_THROWS_WITH_AS((void)compiled_network(net), "synperf: mlp 'tiny': layer 2: weights need 1x2 = 2 values, got 1",
                         invalid_argument);
    net = tiny_network();
    net.layers.pop_back();
    CHECK_THROWS_WITH_AS((void)compiled_network(net), doctest::Contains("the last layer must have output width 1"),
                         invalid_argument);
    net = tiny_network();
    net.feature_min = {0.0, 1.0};
    net.feature_max = {1.0};
    CHECK_THROWS_AS((void)compiled_network(net), invalid_argument);
}

TEST_CASE("cost::mlp_cost: evaluates through the compiled network and keeps the original") {
    using synperf::cost::mlp_cost;
    const network net = random_network({26, 256, 128, 64, 1}, 24, 5);
    const auto shared = std::make_shared<const network>(net);
    const mlp_cost cost(shared);
    REQUIRE(cost.loaded());
    CHECK(&cost.network() == shared.get());
    CHECK(cost.compiled().input_width() == 26);
    const std::vector<double> features(24, 300.0);
    for (std::size_t level : {0u, 1u}) {
        const std::vector<std::size_t> cat{level};
        CHECK(cost.efficiency(features, level) == cost.compiled().evaluate(features, cat));
        CHECK(cost.efficiency(features, level) == doctest::Approx(synperf::mlp::evaluate(net, features, cat)).epsilon(5e-6));
    }
    // Copies share the network and its compiled form.
    const mlp_cost copy = cost;
    CHECK(&copy.network() == &cost.network());
    CHECK(&copy.compiled() == &cost.compiled());
    // By value: validated and compiled too.
    const mlp_cost owned(net);
    CHECK(owned.efficiency(features, 1) == cost.efficiency(features, 1));
    CHECK_THROWS_WITH_AS((void)owned.efficiency(features, 2), doctest::Contains("level index 2 out of range"), invalid_argument);

    const mlp_cost empty;
    CHECK_FALSE(empty.loaded());
    CHECK_THROWS_WITH_AS((void)empty.efficiency(features, 0), "synperf: mlp_cost: no network loaded", invalid_argument);
    CHECK_THROWS_WITH_AS((void)empty.network(), "synperf: mlp_cost: no network loaded", invalid_argument);
    CHECK_THROWS_WITH_AS((void)empty.compiled(), "synperf: mlp_cost: no network loaded", invalid_argument);
    CHECK_FALSE(mlp_cost(std::shared_ptr<const network>()).loaded());

    network bad = net;
    bad.layers[2].bias.clear();
    CHECK_THROWS_WITH_AS((void)mlp_cost(bad), doctest::Contains("layer 3: bias needs 64 values, got 0"), invalid_argument);
}
