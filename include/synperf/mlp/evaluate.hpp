// SPDX-License-Identifier: Apache-2.0
#pragma once
/// \file Forward pass of an efficiency MLP: float32, fixed summation order, no heap allocation.
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <limits>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "synperf/error.hpp"
#include "synperf/mlp/network.hpp"
#include "synperf/mlp/validate.hpp"

namespace synperf::mlp {

/// Tag selecting the `evaluate` overload that takes the input vector as-is (already transformed and one-hot encoded).
struct transformed_input_t {
    explicit transformed_input_t() = default;
};
/// The value of `transformed_input_t`.
inline constexpr transformed_input_t transformed_input{};

namespace detail {

[[nodiscard]] inline float activate(activation a, float z) noexcept {
    switch (a) {
        case activation::identity: return z;
        case activation::relu: return z > 0.0f ? z : 0.0f;
        case activation::sigmoid: return 1.0f / (1.0f + std::exp(-z));
    }
    return z;
}

/// Partial sums per dot product.
inline constexpr std::size_t dot_lanes = 8;

/// y[r] = act(w_r . x + bias[r]) for R consecutive rows of a row-major layer.
///
/// Lane k of a row sums the products j = k mod 8, then the lanes are added pairwise: an order fixed by the
/// source, so the compiler can vectorise without -ffast-math and every row block size gives the same result.
/// Doing R rows at once reuses each loaded piece of x R times.
template <std::size_t R>
inline void dense_rows(const float* w, const float* x, std::size_t in, const float* bias, activation act, float* y) noexcept {
    float acc[R][dot_lanes] = {};
    const std::size_t full = in / dot_lanes * dot_lanes;
    for (std::size_t j = 0; j < full; j += dot_lanes)
        for (std::size_t r = 0; r < R; ++r)
            for (std::size_t k = 0; k < dot_lanes; ++k) acc[r][k] += w[r * in + j + k] * x[j + k];
    for (std::size_t r = 0; r < R; ++r) {
        for (std::size_t k = 0; full + k < in; ++k) acc[r][k] += w[r * in + full + k] * x[full + k];
        for (std::size_t half = dot_lanes / 2; half > 0; half /= 2)
            for (std::size_t k = 0; k < half; ++k) acc[r][k] += acc[r][k + half];
        // A non-finite weight or bias makes its row's sum non-finite (every input is multiplied in); NaN carries it
        // to the output, where ReLU would have turned it into a plausible 0.
        const float z = acc[r][0] + bias[r];
        y[r] = std::isfinite(z) ? activate(act, z) : std::numeric_limits<float>::quiet_NaN();
    }
}

/// Runs one member's layers on the input in `a` (input_width() values); `b` is scratch. Both hold max_width
/// floats, and both are overwritten. The caller has checked `evaluable(net)`.
[[nodiscard]] inline double forward_member(const std::vector<dense_layer>& layers, float* a, float* b) noexcept {
    for (const auto& layer : layers) {
        const float* w = layer.weights.data();
        const float* bias = layer.bias.data();
        const std::size_t in = layer.in;
        std::size_t o = 0;
        for (; o + 16 <= layer.out; o += 16) dense_rows<16>(w + o * in, a, in, bias + o, layer.act, b + o);
        for (; o + 4 <= layer.out; o += 4) dense_rows<4>(w + o * in, a, in, bias + o, layer.act, b + o);
        for (; o < layer.out; ++o) dense_rows<1>(w + o * in, a, in, bias + o, layer.act, b + o);
        std::swap(a, b);
    }
    return static_cast<double>(a[0]);
}

/// Runs every member on the input in `input` (input_width() values, left unchanged) and combines their outputs.
[[nodiscard]] inline double forward(const network& net, const float* input) noexcept {
    float a[max_width];
    float b[max_width];
    double outputs[max_members];
    const std::size_t width = net.input_width();
    for (std::size_t m = 0; m < net.member_count(); ++m) {
        std::copy(input, input + width, a);
        outputs[m] = forward_member(net.member(m), a, b);
    }
    return combine_members(std::span<const double>(outputs, net.member_count()));
}

/// `output`, unless a non-finite value in the network made it NaN: then the reason (`validate` names the value).
[[nodiscard]] inline double checked_output(const network& net, double output) {
    if (std::isfinite(output)) return output;
    validate(net);
    report_network(net, "the network's output is not finite");
}

inline void require_evaluable(const network& net) {
    if (evaluable(net)) return;
    validate(net);  // throws with the precise reason
    report_network(net, "cannot be evaluated");
}

[[nodiscard]] inline std::string level_list(const categorical_input& c) {
    std::string s;
    for (const auto& l : c.levels) {
        if (!s.empty()) s += ", ";
        s += l;
    }
    return s;
}

}  // namespace detail

/// Predicts the efficiency in [0, 1] from the numeric features and the level index of each categorical input.
///
/// Each numeric feature must be finite and >= 0 (cycle counts, bytes, ratios): it is clamped into its
/// training range where the network records one (`network::feature_min`, `feature_max`) and enters the network
/// as log1p(x), computed in double and rounded to float. Each categorical input becomes a one-hot block after
/// the numeric features, in `network::categoricals` order. Every layer then runs in float32 (the precision
/// the model was trained in), each dot product with a fixed summation order (see `detail::dense_rows`); the
/// float output of the final sigmoid is widened to double (an ensemble's members' outputs combined by
/// `combine_members`) and clamped into the training rows' efficiency range where the network records one
/// (`network::efficiency_min`, `efficiency_max`). Throws `invalid_argument` for a
/// malformed network, a wrong number of inputs, a negative/NaN/Inf feature (naming it) or a level index out
/// of range. No heap allocation: activations live in stack buffers of `max_width` floats.
[[nodiscard]] inline double evaluate(const network& net, std::span<const double> numeric_features,
                                     std::span<const std::size_t> categorical_level_index) {
    using detail::report_network;
    detail::require_evaluable(net);
    if (numeric_features.size() != net.feature_names.size())
        report_network(net, "expected ", net.feature_names.size(), " numeric features, got ", numeric_features.size());
    if (categorical_level_index.size() != net.categoricals.size())
        report_network(net, "expected ", net.categoricals.size(), " categorical level indices, got ",
                       categorical_level_index.size());
    float a[max_width];
    for (std::size_t i = 0; i < numeric_features.size(); ++i) {
        const double x = numeric_features[i];
        if (!(x >= 0.0) || std::isinf(x))
            report_network(net, "feature ", i + 1, " '", net.feature_names[i], "' must be finite and >= 0, got ", x);
        a[i] = static_cast<float>(std::log1p(net.clamp_to_training_range(i, x)));
    }
    std::size_t offset = numeric_features.size();
    for (std::size_t c = 0; c < net.categoricals.size(); ++c) {
        const auto& cat = net.categoricals[c];
        const std::size_t level = categorical_level_index[c];
        if (level >= cat.levels.size())
            report_network(net, "categorical '", cat.name, "': level index ", level, " out of range (", cat.levels.size(),
                           " levels: ", detail::level_list(cat), ")");
        for (std::size_t l = 0; l < cat.levels.size(); ++l) a[offset + l] = l == level ? 1.0f : 0.0f;
        offset += cat.levels.size();
    }
    return net.clamp_efficiency(detail::checked_output(net, detail::forward(net, a)));
}

/// Predicts the efficiency from the input vector itself (`input_width()` finite values, already log1p'd and
/// one-hot encoded); for tests and for checking an exported model against the trainer. Returns the network's
/// own output: the efficiency range is not applied.
[[nodiscard]] inline double evaluate(const network& net, transformed_input_t, std::span<const double> input) {
    using detail::report_network;
    detail::require_evaluable(net);
    if (input.size() != net.input_width())
        report_network(net, "expected an input vector of ", net.input_width(), " values, got ", input.size());
    float a[max_width];
    for (std::size_t i = 0; i < input.size(); ++i) {
        a[i] = static_cast<float>(input[i]);
        if (!std::isfinite(a[i]))
            report_network(net, "input value ", i + 1, " must be finite as a float, got ", input[i]);
    }
    return detail::checked_output(net, detail::forward(net, a));
}

/// The index of `level` among the levels of categorical input `which`, for `evaluate`.
///
/// Throws `invalid_argument` listing the known levels when `level` is unknown, or when `which` is out of range.
[[nodiscard]] inline std::size_t categorical_index(const network& net, std::size_t which, std::string_view level) {
    if (which >= net.categoricals.size())
        detail::report_network(net, "categorical input ", which, " out of range (the network has ", net.categoricals.size(),
                               ")");
    const auto& cat = net.categoricals[which];
    for (std::size_t l = 0; l < cat.levels.size(); ++l)
        if (cat.levels[l] == level) return l;
    detail::report_network(net, "unknown ", cat.name, " '", level, "'; known: ", detail::level_list(cat));
}

}  // namespace synperf::mlp
