// SPDX-License-Identifier: Apache-2.0
#pragma once
/// \file Training a family's efficiency MLP on its samples: the rows a fold fits, the network and what it records.
#include <algorithm>
#include <cstddef>
#include <iostream>
#include <ostream>
#include <set>
#include <string>
#include <vector>

#include "synperf/mlp/network.hpp"
#include "synperf/train/encoding.hpp"
#include "synperf/train/mlp_trainer.hpp"
#include "synperf/train/sample.hpp"
#include "synperf/train/source.hpp"

namespace synperf::train {

/// The rows a weights file is trained on: training rows and validation rows (the validation shapes among them).
struct training_rows {
    std::vector<const sample*> train;
    std::vector<const sample*> validation;
};

/// The samples `fits(sample)` accepts, split by their seen part (`data::part_of`): validation shapes apart.
template <class Fits>
[[nodiscard]] training_rows training_rows_of(const std::vector<sample>& samples, Fits&& fits) {
    training_rows out;
    for (const auto& s : samples) {
        if (!fits(s)) continue;
        (s.part == data::seen_part::validation ? out.validation : out.train).push_back(&s);
    }
    return out;
}

/// The kinds of auxiliary kernel the rows ran: a predictor of the weights trained on them prices any other kind
/// apart (`mlp::network::trained_kernels`).
[[nodiscard]] inline std::vector<std::string> trained_kernel_kinds(const std::vector<const sample*>& rows) {
    std::set<std::string> kinds;
    for (const sample* s : rows) kinds.insert(s->kernel_kinds.begin(), s->kernel_kinds.end());
    return {kinds.begin(), kinds.end()};
}

/// The trainer's options for the family: the defaults, with the family's saturation gradient floor.
[[nodiscard]] inline train_options options_for(const family_source& fam) {
    train_options o;
    o.saturation_gradient_floor = fam.saturation_gradient_floor;
    return o;
}

/// Names the inputs of a network trained on `rows` for the family (family, features, framework levels), and
/// records what those rows span: each feature's range and the auxiliary kernels they ran. Predictors check the
/// names (`mlp::check_compatible`) and warn outside the ranges.
inline void describe_inputs(mlp::network& net, const family_source& fam, const std::vector<const sample*>& rows) {
    const std::size_t features = fam.feature_names.size();
    net.family = fam.name;
    net.trained_kernels = trained_kernel_kinds(rows);
    net.feature_names = fam.feature_names;
    net.categoricals = {mlp::categorical_input{"framework", fam.framework_levels}};
    net.feature_min.assign(features, 1e300);
    net.feature_max.assign(features, -1e300);
    for (const auto* s : rows)
        for (std::size_t i = 0; i < features; ++i) {
            net.feature_min[i] = std::min(net.feature_min[i], s->features[i]);
            net.feature_max[i] = std::max(net.feature_max[i], s->features[i]);
        }
}

/// Trains the family's efficiency MLP on `train_rows` (early stopping on `validation_rows`) and names its
/// inputs (`describe_inputs`); `meta` is the trainer's (rows, seed, epochs). Progress lines go to `progress`.
[[nodiscard]] inline mlp::network train_efficiency_model(const family_source& fam, const std::vector<const sample*>& train_rows,
                                                         const std::vector<const sample*>& validation_rows,
                                                         const train_options& options, train_report* report = nullptr,
                                                         std::ostream* progress = &std::cerr) {
    const std::size_t levels = fam.framework_levels.size(), width = fam.feature_names.size() + levels;
    mlp::network net = train_mlp(make_dataset(train_rows, width, levels), make_dataset(validation_rows, width, levels),
                                 options, report, progress);
    describe_inputs(net, fam, train_rows);
    return net;
}

}  // namespace synperf::train
