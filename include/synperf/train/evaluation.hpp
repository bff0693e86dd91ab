// SPDX-License-Identifier: Apache-2.0
#pragma once
/// \file Leave-GPU-out scoring of a family's weights: every row a protocol fold evaluates, predicted by the
/// weights and by both baselines, grouped by (GPU, framework).
#include <array>
#include <cstddef>
#include <cstdint>
#include <map>
#include <set>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "synperf/data/protocol.hpp"
#include "synperf/error.hpp"
#include "synperf/mlp/compiled.hpp"
#include "synperf/mlp/format.hpp"
#include "synperf/mlp/network.hpp"
#include "synperf/train/baselines.hpp"
#include "synperf/train/protocol_folds.hpp"
#include "synperf/train/sample.hpp"
#include "synperf/train/source.hpp"

namespace synperf::train {

/// The evaluated rows of one (GPU, framework), in sample order.
struct evaluated_rows {
    data::split label = data::split::seen;  ///< the GPU's split (`loo` in a leave-one-GPU-out fold)
    std::vector<double> measured, predicted, roofline, linear, theoretical;  ///< latencies and bounds, µs
    std::vector<std::uint64_t> row_hash;  ///< each row's shape hash: the order in which a calibration draws rows
    std::set<std::string> kernels;        ///< what ran (`sample::kernel`)
    std::set<std::string> priced_apart_kinds;  ///< kinds of kernel the weights' training ops never ran
    std::size_t above_one = 0;     ///< rows whose bound is above the measured time (efficiency > 1)
    std::size_t flagged = 0;       ///< held-out rows the source flags (`family_source::flag`)
    std::size_t priced_apart = 0;  ///< rows with a kernel priced apart
};

/// A family's evaluated rows by (GPU, framework).
using evaluation = std::map<std::pair<std::string, std::string>, evaluated_rows>;

/// Evaluates one protocol fold into `groups`: the weights `net` (`weights_name` names them in errors), a linear
/// baseline fitted on the fold's training rows, and the roofline, on every row the fold evaluates.
/// `on_row(sample, split, predicted_us)` sees each evaluated row.
template <class OnRow>
void evaluate_fold(const family_source& fam, const protocol_fold& fold, const mlp::network& net, std::string_view weights_name,
                   const std::vector<sample>& samples, evaluation& groups, OnRow&& on_row) {
    std::vector<std::string_view> names(fam.feature_names.begin(), fam.feature_names.end());
    std::vector<std::string_view> levels_wanted(fam.framework_levels.begin(), fam.framework_levels.end());
    mlp::check_compatible(net, fam.name, std::span<const std::string_view>(names), weights_name,
                          std::span<const std::string_view>(levels_wanted));
    const mlp::compiled_network model(net);

    std::vector<const sample*> fit_rows;
    for (const auto& s : samples)
        if (fold.fits_on(s) && s.part == data::seen_part::train) fit_rows.push_back(&s);
    if (fit_rows.empty()) throw invalid_argument("synperf: eval " + fam.name + ": no training rows for the linear baseline");
    const linear_latency_baseline linear(fit_rows, fam.feature_names.size(), fam.framework_levels.size());

    for (const auto& s : samples) {
        if (!fold.evaluates(s)) continue;
        auto& gr = groups[{s.gpu, s.framework}];
        gr.label = fold.held_out_gpu.empty() ? s.label : data::split::loo;
        gr.kernels.insert(s.kernel);
        const std::array<std::size_t, 1> level{s.level};
        const double eff = model.evaluate(std::span<const double>(s.features), std::span<const std::size_t>(level));
        gr.measured.push_back(s.latency_us);
        gr.predicted.push_back(s.predicted_us(eff));
        gr.roofline.push_back(s.roofline_us);
        gr.theoretical.push_back(s.theoretical_us);
        gr.row_hash.push_back(data::shape_hash(std::span<const std::int64_t>(s.key.data(), s.key_size)));
        gr.linear.push_back(linear.predicted_us(s));
        if (s.efficiency() > 1.0) ++gr.above_one;
        if (!s.priced_apart_kinds.empty()) {
            ++gr.priced_apart;
            gr.priced_apart_kinds.insert(s.priced_apart_kinds.begin(), s.priced_apart_kinds.end());
        }
        if (fam.flag && gr.label != data::split::seen && fam.flag(s)) ++gr.flagged;
        on_row(s, gr.label, gr.predicted.back());
    }
}

/// `evaluate_fold` without a per-row callback.
inline void evaluate_fold(const family_source& fam, const protocol_fold& fold, const mlp::network& net, std::string_view weights_name,
                          const std::vector<sample>& samples, evaluation& groups) {
    evaluate_fold(fam, fold, net, weights_name, samples, groups, [](const sample&, data::split, double) {});
}

}  // namespace synperf::train
