// SPDX-License-Identifier: Apache-2.0
#pragma once
/// \file Structural checks on an in-memory efficiency MLP (shapes, names, finite values).
#include <bit>
#include <charconv>
#include <cmath>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "synperf/error.hpp"
#include "synperf/mlp/network.hpp"

namespace synperf::mlp {

/// Widest vector the evaluator handles: input width and every layer's output width must not exceed it.
///
/// The forward pass keeps activations in two fixed stack buffers of this size, so it never allocates.
inline constexpr std::size_t max_width = 512;
/// Most members an ensemble may hold (each is evaluated per prediction).
inline constexpr std::size_t max_members = 16;

namespace detail {

/// Whether every value is finite (exponent bits not all ones), in one pass without a branch that compilers
/// vectorise: a file's or an ensemble's hundred thousand weights are checked each time a network is validated.
[[nodiscard]] inline bool all_finite(std::span<const float> values) noexcept {
    std::uint32_t infinite_or_nan = 0;
    for (const float v : values) infinite_or_nan |= (std::bit_cast<std::uint32_t>(v) & 0x7f800000u) == 0x7f800000u;
    return infinite_or_nan == 0;
}

inline void append_part(std::string& s, std::string_view v) { s.append(v); }
template <std::integral T>
void append_part(std::string& s, T v) {
    char buf[24];
    s.append(buf, std::to_chars(buf, buf + sizeof buf, v).ptr);
}
inline void append_part(std::string& s, double v) {
    char buf[32];
    s.append(buf, std::to_chars(buf, buf + sizeof buf, v).ptr);
}

/// Concatenates strings and numbers (shortest round-trip form) into a message.
///
/// Appending avoids `"literal" + std::string&&`, which trips a false -Wrestrict in g++ 12 at -O2 and above.
template <class... Parts>
[[nodiscard]] std::string cat(const Parts&... parts) {
    std::string s;
    (append_part(s, parts), ...);
    return s;
}

/// The text of an activation in the weights format.
[[nodiscard]] constexpr std::string_view activation_name(activation a) noexcept {
    switch (a) {
        case activation::identity: return "identity";
        case activation::relu: return "relu";
        case activation::sigmoid: return "sigmoid";
    }
    return "";
}

/// True for a non-empty word of printable ASCII without spaces: what the text format can carry as a name.
[[nodiscard]] constexpr bool is_word(std::string_view s) noexcept {
    if (s.empty()) return false;
    for (char c : s)
        if (c <= ' ' || c > '~') return false;
    return true;
}

/// Describes what is wrong with layer `index` (1-based) of `count`, or returns "" when its shape is fine.
/// Shared by the loader (which adds the line) and `validate` (which adds the network's family).
[[nodiscard]] inline std::string layer_shape_problem(std::size_t index, std::size_t count, std::size_t in,
                                                     std::size_t out, activation act, std::size_t expected_in) {
    if (in != expected_in) {
        if (index == 1)
            return cat("layer 1: input width ", in, " does not match the input vector width ", expected_in,
                       " (numeric features + one-hot levels)");
        return cat("layer ", index, ": input width ", in, " does not chain from layer ", index - 1, "'s output width ",
                   expected_in);
    }
    if (in == 0 || in > max_width) return cat("layer ", index, ": input width must be in 1..", max_width, ", got ", in);
    if (out == 0 || out > max_width) return cat("layer ", index, ": output width must be in 1..", max_width, ", got ", out);
    if (index == count && out != 1)
        return cat("layer ", index, ": the last layer must have output width 1 (the efficiency), got ", out);
    if (index == count && act != activation::sigmoid)
        return cat("layer ", index, ": the last layer must use sigmoid (efficiency in (0, 1)), got ", activation_name(act));
    return {};
}

/// True when the forward pass can run on `net` without reading out of bounds; cheap enough to call per prediction.
[[nodiscard]] inline bool evaluable(const network& net) noexcept {
    const std::size_t input_width = net.input_width();
    if (input_width == 0 || input_width > max_width || net.member_count() > max_members) return false;
    // The output is clamped into this range, so a NaN bound would pass straight through.
    if (!std::isfinite(net.efficiency_min) || !std::isfinite(net.efficiency_max)) return false;
    for (std::size_t m = 0; m < net.member_count(); ++m) {
        const auto& layers = net.member(m);
        if (layers.empty()) return false;
        std::size_t width = input_width;
        for (const auto& l : layers) {
            if (l.in != width || l.out == 0 || l.out > max_width) return false;
            if (l.weights.size() != l.in * l.out || l.bias.size() != l.out) return false;
            if (activation_name(l.act).empty()) return false;
            width = l.out;
        }
        if (width != 1 || layers.back().act != activation::sigmoid) return false;
    }
    return true;
}

template <class... Parts>
[[noreturn]] void report_network(const network& net, const Parts&... what) {
    synperf::detail::report_error(cat("mlp '", net.family, "': ", what...));
}

}  // namespace detail

/// Checks everything the weights format and the evaluator rely on; throws `invalid_argument` naming the first problem.
///
/// Family and names must be words (printable ASCII, no spaces), input names unique, categorical levels unique
/// within their input, trained kernel kinds words and unique, `meta` on one line; feature ranges absent (both
/// vectors empty) or one finite `min <= max` pair per numeric feature; the efficiency range within [0, 1] (`min <= max`, `max > 0`); layer
/// shapes must chain from `input_width()` (1..max_width) to a final width-1 sigmoid layer, with `in * out` weights
/// and `out` biases, all finite, in every member of an ensemble (at most `max_members`).
inline void validate(const network& net) {
    using detail::is_word;
    using detail::report_network;
    if (!is_word(net.family)) report_network(net, "family name must be a non-empty word without spaces");
    if (net.meta.find_first_of("\r\n") != std::string::npos) report_network(net, "meta must be a single line");
    if (net.trained_kernels)
        for (std::size_t i = 0; i < net.trained_kernels->size(); ++i) {
            const auto& kind = (*net.trained_kernels)[i];
            if (!is_word(kind)) report_network(net, "trained kernel kind '", kind, "' must be a non-empty word without spaces");
            for (std::size_t k = 0; k < i; ++k)
                if ((*net.trained_kernels)[k] == kind) report_network(net, "duplicate trained kernel kind '", kind, "'");
        }
    // Input names share one namespace: they label the columns of the input vector.
    for (std::size_t i = 0; i < net.feature_names.size(); ++i) {
        const auto& name = net.feature_names[i];
        if (!is_word(name)) report_network(net, "feature name '", name, "' must be a non-empty word without spaces");
        for (std::size_t k = 0; k < i; ++k)
            if (net.feature_names[k] == name) report_network(net, "duplicate input name '", name, "'");
    }
    if (!net.feature_min.empty() || !net.feature_max.empty()) {
        const std::size_t n = net.feature_names.size();
        if (net.feature_min.size() != n || net.feature_max.size() != n)
            report_network(net, "feature ranges: feature_min has ", net.feature_min.size(), " values and feature_max ",
                           net.feature_max.size(), "; both must be empty or hold one per numeric feature (", n, ")");
        for (std::size_t i = 0; i < n; ++i) {
            const double lo = net.feature_min[i];
            const double hi = net.feature_max[i];
            if (!std::isfinite(lo) || !std::isfinite(hi))
                report_network(net, "feature '", net.feature_names[i], "': range bounds must be finite, got ", lo, " .. ", hi);
            if (lo > hi)
                report_network(net, "feature '", net.feature_names[i], "': range minimum ", lo, " is greater than maximum ", hi);
            // Features are counts, bytes and ratios (>= 0, entering as log1p): a negative bound would clamp them
            // to a value the network never saw, or to one log1p cannot take.
            if (lo < 0.0)
                report_network(net, "feature '", net.feature_names[i], "': range minimum ", lo, " is negative (features are >= 0)");
        }
    }
    if (!(net.efficiency_min >= 0.0 && net.efficiency_min <= net.efficiency_max && net.efficiency_max <= 1.0 &&
          net.efficiency_max > 0.0))
        report_network(net, "efficiency range ", net.efficiency_min, " .. ", net.efficiency_max,
                       ": must satisfy 0 <= minimum <= maximum <= 1 with maximum > 0");
    for (std::size_t c = 0; c < net.categoricals.size(); ++c) {
        const auto& cat = net.categoricals[c];
        if (!is_word(cat.name)) report_network(net, "categorical name '", cat.name, "' must be a non-empty word without spaces");
        for (const auto& f : net.feature_names)
            if (f == cat.name) report_network(net, "duplicate input name '", cat.name, "'");
        for (std::size_t d = 0; d < c; ++d)
            if (net.categoricals[d].name == cat.name) report_network(net, "duplicate input name '", cat.name, "'");
        if (cat.levels.empty()) report_network(net, "categorical '", cat.name, "' must have at least 1 level");
        for (std::size_t l = 0; l < cat.levels.size(); ++l) {
            if (!is_word(cat.levels[l]))
                report_network(net, "categorical '", cat.name, "': level '", cat.levels[l], "' must be a non-empty word without spaces");
            for (std::size_t m = 0; m < l; ++m)
                if (cat.levels[m] == cat.levels[l])
                    report_network(net, "categorical '", cat.name, "': duplicate level '", cat.levels[l], "'");
        }
    }
    const std::size_t input_width = net.input_width();
    if (input_width == 0 || input_width > max_width)
        report_network(net, "input width must be in 1..", max_width, ", got ", input_width);
    if (net.member_count() > max_members)
        report_network(net, "an ensemble holds at most ", max_members, " members, got ", net.member_count());
    for (std::size_t m = 0; m < net.member_count(); ++m) {
        const auto& layers = net.member(m);
        // Messages name the member only in an ensemble, so a single network's read as before.
        const std::string member = net.member_count() == 1 ? std::string() : detail::cat("member ", m + 1, ": ");
        if (layers.empty()) report_network(net, member, "needs at least 1 layer");
        std::size_t width = input_width;
        for (std::size_t i = 0; i < layers.size(); ++i) {
            const auto& l = layers[i];
            const std::size_t index = i + 1;
            if (detail::activation_name(l.act).empty()) report_network(net, member, "layer ", index, ": unknown activation value");
            if (auto p = detail::layer_shape_problem(index, layers.size(), l.in, l.out, l.act, width); !p.empty())
                report_network(net, member, p);
            if (l.weights.size() != l.in * l.out)
                report_network(net, member, "layer ", index, ": weights need ", l.out, "x", l.in, " = ", l.in * l.out,
                               " values, got ", l.weights.size());
            if (l.bias.size() != l.out)
                report_network(net, member, "layer ", index, ": bias needs ", l.out, " values, got ", l.bias.size());
            if (!detail::all_finite(l.weights))  // then find the first, for the message
                for (std::size_t k = 0; k < l.weights.size(); ++k)
                    if (!std::isfinite(l.weights[k]))
                        report_network(net, member, "layer ", index, " row ", k / l.in + 1, " value ", k % l.in + 1,
                                       ": weight is not finite");
            if (!detail::all_finite(l.bias))
                for (std::size_t k = 0; k < l.bias.size(); ++k)
                    if (!std::isfinite(l.bias[k])) report_network(net, member, "layer ", index, " bias value ", k + 1, ": not finite");
            width = l.out;
        }
    }
}

}  // namespace synperf::mlp
