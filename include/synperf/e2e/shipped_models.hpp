// SPDX-License-Identifier: Apache-2.0
#pragma once
/// \file The shipped efficiency model of every family this build has weights for (the synperf::models add-on);
/// not included by synperf/e2e.hpp (the embedded weights are large to compile).
///
/// A family without shipped weights stays null, and the end-to-end model refuses runs that need it.
#include <memory>
#include <string_view>

#include "synperf/e2e/kernel_costs.hpp"
#include "synperf/mlp/network.hpp"

#include "synperf/family/builtin.hpp"
#if __has_include(<synperf/models.hpp>)
#include <synperf/models.hpp>  // the synperf::models add-on: every shipped network of this build
#endif

namespace synperf::e2e {

namespace shipped_detail {
/// A non-owning handle on an embedded network (they live for the whole program).
inline std::shared_ptr<const mlp::network> borrow(const mlp::network& n) {
    return std::shared_ptr<const mlp::network>(&n, [](const mlp::network*) {});
}
}  // namespace shipped_detail

/// Every shipped model of this build for the families of `List`; families without one are null.
template <class List = builtin_families>
[[nodiscard]] basic_family_models<List> shipped_models() {
    basic_family_models<List> m;
    List::for_each([&m](auto family) {
        using F = typename decltype(family)::type;
        if constexpr (models::has_shipped_weights<F>) m.template get<F>() = shipped_detail::borrow(models::shipped_network<F>());
    });
    return m;
}

}  // namespace synperf::e2e
