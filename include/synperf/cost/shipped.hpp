// SPDX-License-Identifier: Apache-2.0
#pragma once
/// \file The shipped efficiency model of a family, when this build has one.
///
/// `models::shipped<"gemm">` is declared here and defined by the weights add-on: each
/// `<synperf/models/<family>.hpp>`, generated at build time from models/<family>.mlp (the `synperf::models`
/// target; `<synperf/models.hpp>` includes them all), specialises it for its family's name. Whether a family has
/// shipped weights is therefore known at compile time (`has_shipped_weights<F>`), and a predictor that needs them
/// and has none is a compile error, not a run-time failure.
#include <algorithm>
#include <cstddef>
#include <memory>
#include <string_view>

#include "synperf/cost/mlp_cost.hpp"
#include "synperf/mlp/network.hpp"

namespace synperf::models {

/// A family name as a template argument (`shipped<"gemm">`).
template <std::size_t N>
struct family_name {
    char text[N > 0 ? N : 1]{};
    constexpr family_name(const char (&s)[N + 1]) noexcept { std::copy_n(s, N, text); }  // NOLINT: implicit by design
    constexpr explicit family_name(std::string_view s) noexcept { std::copy_n(s.data(), std::min(N, s.size()), text); }
    [[nodiscard]] constexpr std::string_view view() const noexcept { return {text, N}; }
};
template <std::size_t N>
family_name(const char (&)[N]) -> family_name<N - 1>;

/// The shipped weights of the family called `Name`: `static const mlp::network& network()`, defined by the
/// generated header of that family. Undefined where this build has none.
template <family_name Name>
struct shipped;

/// The name of family F as a template argument.
template <class F>
inline constexpr family_name<F::name.size()> name_of{F::name};

/// Whether this translation unit sees shipped weights for family F.
template <class F>
concept has_shipped_weights = requires { { shipped<name_of<F>>::network() } -> std::same_as<const mlp::network&>; };

/// The shipped network of family F.
template <class F>
    requires has_shipped_weights<F>
[[nodiscard]] const mlp::network& shipped_network() {
    return shipped<name_of<F>>::network();
}

/// The shipped network of family F as a cost model: compiled once, shared by every copy.
template <class F>
    requires has_shipped_weights<F>
[[nodiscard]] const cost::mlp_cost& shipped_cost() {
    // The embedded network lives for the whole program: the cost model borrows it.
    static const cost::mlp_cost cost(std::shared_ptr<const mlp::network>(&shipped_network<F>(), [](const mlp::network*) {}));
    return cost;
}

}  // namespace synperf::models
