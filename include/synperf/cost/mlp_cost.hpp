// SPDX-License-Identifier: Apache-2.0
#pragma once
/// \file The trained MLP as a cost model.
#include <array>
#include <charconv>
#include <cmath>
#include <cstddef>
#include <memory>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "synperf/cost/concept.hpp"
#include "synperf/error.hpp"
#include "synperf/mlp/compiled.hpp"
#include "synperf/mlp/network.hpp"
#include "synperf/work/kernel_kinds.hpp"

namespace synperf::cost {

/// Efficiency from a family's MLP (loaded from a weights file or embedded).
///
/// The constructors validate the network and compile it once (`mlp::compiled_network`); copies share both,
/// so a predictor holding an `mlp_cost` is cheap to copy and `efficiency` does no allocation.
class mlp_cost {
public:
    /// No model: `loaded()` is false and `efficiency` throws.
    mlp_cost() = default;
    /// Takes the network; throws `invalid_argument` if it fails `mlp::validate`.
    explicit mlp_cost(mlp::network net) : mlp_cost(std::make_shared<const mlp::network>(std::move(net))) {}
    /// Shares the network (null means no model); throws `invalid_argument` if it fails `mlp::validate`.
    explicit mlp_cost(std::shared_ptr<const mlp::network> net)
        : net_(std::move(net)), compiled_(net_ ? std::make_shared<const mlp::compiled_network>(*net_) : nullptr) {
        if (net_ && net_->trained_kernels) trained_ = work::kernel_kind_set(*net_->trained_kernels);
        if (net_ && net_->feature_min.size() == net_->feature_names.size() && net_->feature_max.size() == net_->feature_names.size()) {
            auto bounds = std::make_shared<std::vector<std::pair<double, double>>>();
            for (std::size_t i = 0; i < net_->feature_min.size(); ++i) {
                const double lo = net_->feature_min[i], hi = net_->feature_max[i], slack = 0.05 * (hi - lo);
                bounds->emplace_back(lo - slack, hi + slack);
            }
            warn_outside_ = std::move(bounds);
        }
    }

    /// The efficiency for `features` (the family's numeric features) at `framework_level` (the index of the
    /// framework among the network's first categorical input); throws `invalid_argument` as `mlp::evaluate` does.
    [[nodiscard]] double efficiency(std::span<const double> features, std::size_t framework_level) const {
        if (compiled_ == nullptr) synperf::detail::report_error("mlp_cost: no network loaded");
        const std::array<std::size_t, 1> level{framework_level};
        return compiled_->evaluate(features, std::span<const std::size_t>(level));
    }
    /// Features outside the range the network was trained on (beyond 5 % of its width), by name, with the edge value it
    /// reads instead; and an efficiency at the lowest or highest one it was trained on (the evaluators clamp the network's
    /// output into the training efficiencies: there, the network said less or more). Empty when none, or no network.
    [[nodiscard]] std::vector<std::string> warnings(std::span<const double> features, double efficiency) const {
        std::vector<std::string> out;
        if (net_ == nullptr) return out;
        const mlp::network& net = *net_;
        if (net.efficiency_min > 0.0 && std::abs(efficiency - net.efficiency_min) <= 1e-9 * net.efficiency_min) {
            std::string& w = out.emplace_back("outside the training range: efficiency = ");
            append_general(w, efficiency);
            w += ", the lowest the model was trained on (the network's own output is lower)";
        } else if (net.efficiency_max < 1.0 && std::abs(efficiency - net.efficiency_max) <= 1e-9 * net.efficiency_max) {
            std::string& w = out.emplace_back("outside the training range: efficiency = ");
            append_general(w, efficiency);
            w += ", the highest the model was trained on (the network's own output is higher)";
        }
        if (warn_outside_ == nullptr || warn_outside_->size() != features.size()) return out;
        for (std::size_t i = 0; i < features.size(); ++i) {
            const auto [below, above] = (*warn_outside_)[i];
            if (!(features[i] < below || features[i] > above)) continue;
            const double lo = net.feature_min[i], hi = net.feature_max[i];
            std::string& w = out.emplace_back();
            w.reserve(160);
            w += "outside the training range: ";
            w += net.feature_names[i];
            w += " = ";
            append_general(w, features[i]);
            w += " (trained on ";
            append_general(w, lo);
            w += " .. ";
            append_general(w, hi);
            w += "; the model reads ";
            append_general(w, net.clamp_to_training_range(i, features[i]));
            w += ')';
        }
        return out;
    }
    /// The network as given (weights in the file's layout); throws `invalid_argument` when none is loaded.
    [[nodiscard]] const mlp::network& network() const {
        if (net_ == nullptr) synperf::detail::report_error("mlp_cost: no network loaded");
        return *net_;
    }
    /// The network compiled for evaluation; throws `invalid_argument` when none is loaded.
    [[nodiscard]] const mlp::compiled_network& compiled() const {
        if (compiled_ == nullptr) synperf::detail::report_error("mlp_cost: no network loaded");
        return *compiled_;
    }
    /// The auxiliary kernels the network was trained with (every kind when its weights do not record them): a
    /// predictor prices the others apart.
    [[nodiscard]] const work::kernel_kind_set& trained_kernels() const noexcept { return trained_; }
    /// Whether a network is held.
    [[nodiscard]] bool loaded() const noexcept { return net_ != nullptr; }

private:
    /// Appends `v` with four significant digits, as printf's %.4g writes it.
    static void append_general(std::string& out, double v) {
        char buf[32];
        const auto r = std::to_chars(buf, buf + sizeof buf, v, std::chars_format::general, 4);
        out.append(buf, r.ptr);
    }

    std::shared_ptr<const mlp::network> net_;
    std::shared_ptr<const mlp::compiled_network> compiled_;
    /// Per feature, the values below and above which it warns: the training range widened by 5 % of its width.
    std::shared_ptr<const std::vector<std::pair<double, double>>> warn_outside_;
    work::kernel_kind_set trained_;
};

static_assert(CostModel<mlp_cost>);

}  // namespace synperf::cost
