// SPDX-License-Identifier: Apache-2.0
#pragma once
/// \file Several trained networks over the same inputs joined into one ensemble (`network::further_members`).
#include <algorithm>
#include <cstddef>
#include <set>
#include <span>
#include <string>
#include <vector>

#include "synperf/error.hpp"
#include "synperf/mlp/network.hpp"
#include "synperf/mlp/validate.hpp"

namespace synperf::mlp {

/// The ensemble of `members` (single networks trained on the same rows from different seeds): the first one's
/// family, inputs and `meta`, every one's layers as a member in the given order, and the feature ranges, efficiency
/// range and trained kernel kinds spanning all of theirs (each member saw its own subsample of the rows).
///
/// Throws `invalid_argument` when fewer than 2 or more than `max_members` networks are given, when one is itself an
/// ensemble or invalid, or when they differ in family, feature names, categorical inputs or in whether they record
/// ranges and trained kernels: those would read the same input vector differently.
[[nodiscard]] inline network make_ensemble(std::span<const network> members) {
    if (members.size() < 2 || members.size() > max_members)
        synperf::detail::report_error(detail::cat("make_ensemble: needs 2 to ", max_members, " networks, got ", members.size()));
    const network& first = members.front();
    for (std::size_t m = 0; m < members.size(); ++m) {
        const network& n = members[m];
        validate(n);
        const auto differs = [&](const char* what) {
            synperf::detail::report_error(detail::cat("make_ensemble: network ", m + 1, " ('", n.family, "') differs from network 1 ('",
                                                      first.family, "') in its ", what));
        };
        if (n.member_count() != 1)
            synperf::detail::report_error(detail::cat("make_ensemble: network ", m + 1, " ('", n.family, "') is an ensemble already (",
                                                      n.member_count(), " members): join single networks"));
        if (n.family != first.family) differs("family");
        if (n.feature_names != first.feature_names) differs("features");
        if (n.categoricals.size() != first.categoricals.size()) differs("categorical inputs");
        for (std::size_t c = 0; c < n.categoricals.size(); ++c)
            if (n.categoricals[c].name != first.categoricals[c].name || n.categoricals[c].levels != first.categoricals[c].levels)
                differs("categorical inputs");
        if (n.feature_min.empty() != first.feature_min.empty()) differs("feature ranges (recorded in one only)");
        if (n.has_efficiency_range() != first.has_efficiency_range()) differs("efficiency range (recorded in one only)");
        if (n.trained_kernels.has_value() != first.trained_kernels.has_value()) differs("trained kernels (recorded in one only)");
    }
    network out = first;
    std::set<std::string> kinds;
    if (first.trained_kernels) kinds.insert(first.trained_kernels->begin(), first.trained_kernels->end());
    for (std::size_t m = 1; m < members.size(); ++m) {
        const network& n = members[m];
        for (std::size_t i = 0; i < out.feature_min.size(); ++i) {
            out.feature_min[i] = std::min(out.feature_min[i], n.feature_min[i]);
            out.feature_max[i] = std::max(out.feature_max[i], n.feature_max[i]);
        }
        out.efficiency_min = std::min(out.efficiency_min, n.efficiency_min);
        out.efficiency_max = std::max(out.efficiency_max, n.efficiency_max);
        if (n.trained_kernels) kinds.insert(n.trained_kernels->begin(), n.trained_kernels->end());
        out.further_members.push_back(n.layers);
    }
    if (out.trained_kernels) out.trained_kernels = std::vector<std::string>(kinds.begin(), kinds.end());
    return out;
}

}  // namespace synperf::mlp
