// SPDX-License-Identifier: Apache-2.0
#pragma once
/// \file The trained MLP as a cost model.
#include <array>
#include <cstddef>
#include <memory>
#include <span>
#include <utility>

#include "synperf/cost/concept.hpp"
#include "synperf/mlp/evaluate.hpp"
#include "synperf/mlp/network.hpp"

namespace synperf::cost {

/// Efficiency from a family's MLP (loaded from a weights file or embedded).
class mlp_cost {
public:
    mlp_cost() = default;
    explicit mlp_cost(mlp::network net) : net_(std::make_shared<const mlp::network>(std::move(net))) {}
    explicit mlp_cost(std::shared_ptr<const mlp::network> net) : net_(std::move(net)) {}

    [[nodiscard]] double efficiency(std::span<const double> features, std::size_t framework_level) const {
        const std::array<std::size_t, 1> level{framework_level};
        return mlp::evaluate(*net_, features, std::span<const std::size_t>(level));
    }
    [[nodiscard]] const mlp::network& network() const noexcept { return *net_; }
    [[nodiscard]] bool loaded() const noexcept { return net_ != nullptr; }

private:
    std::shared_ptr<const mlp::network> net_;
};

static_assert(CostModel<mlp_cost>);

}  // namespace synperf::cost
