// SPDX-License-Identifier: Apache-2.0
#pragma once
/// \file `train::source<F>`: where a family's measured rows come from and how each becomes a `train::sample`.
///
/// A family is trainable when `train::source<F>` is specialised; the built-in families specialise it next to their
/// data readers (synperf/data/<family>_rows.hpp), so that a command iterating a `family::list` finds every
/// family's source from its type. `source_of<F>()` turns the specialisation into run-time values
/// (`family_source`), which training and evaluation are written once over.
///
/// A specialisation states:
///
///     static constexpr std::string_view summary;      // one line for --help
///     static constexpr std::string_view data_credit;  // source and licence, written into the weights' meta line
///     static data::protocol protocol();               // train GPUs and held-out labels
///     static std::vector<train::sample> load(const std::filesystem::path& data, const data::protocol& proto,
///                                            const work::kernel_kind_set& priced, std::vector<std::string>& notes);
///
/// and may add `static bool flag(const train::sample&)` with `flag_meaning`, `default_max_rows`,
/// `saturation_gradient_floor` and `leave_one_out` (the members of `family_source` of the same names).
#include <concepts>
#include <cstddef>
#include <filesystem>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "synperf/data/protocol.hpp"
#include "synperf/family/concept.hpp"
#include "synperf/family/list.hpp"
#include "synperf/train/sample.hpp"
#include "synperf/work/kernel_kinds.hpp"

namespace synperf::train {

/// The training source of family F; specialise it (see the file comment). Undefined: F is not trainable.
template <class F>
struct source;

/// Reads and analyzes every measured row under `data`, pricing apart the kernels `priced` does not cover (the
/// weights' trained kernels); `notes` receives one line per exclusion rule.
using sample_loader = std::function<std::vector<sample>(const std::filesystem::path& data, const data::protocol& proto,
                                                        const work::kernel_kind_set& priced, std::vector<std::string>& notes)>;

/// What a family contributes to training and evaluation, as run-time values.
struct family_source {
    std::string name;         ///< the family's name (`F::name`): subcommand and weights file name, e.g. "gemm"
    std::string summary;      ///< one line for --help
    std::string data_credit;  ///< source and licence, written into the weights' meta line
    std::vector<std::string> feature_names;
    std::vector<std::string> framework_levels;
    std::function<data::protocol()> protocol;
    sample_loader load;
    /// Held-out rows to flag in an evaluation (e.g. a kernel never seen in training); may be empty.
    std::function<bool(const sample&)> flag;
    std::string flag_meaning;  ///< what a flagged row means
    std::size_t default_max_rows = 160000;  ///< training subsample that keeps a full training within minutes
    /// `train::train_options::saturation_gradient_floor`: 0 (the exact gradient) unless a family's training rows
    /// sit on the sigmoid's plateau, i.e. where the floor lowers the validation loss.
    double saturation_gradient_floor = 0.0;
    /// Leave-one-GPU-out (`loo`, docs/method.md#leave-one-gpu-out): one weights file per GPU of `protocol().train`,
    /// each trained on the other GPUs and evaluated on that one (`protocol_folds`).
    bool leave_one_out = false;
};

/// A kernel family with a training source.
template <class F>
concept TrainableFamily = family::KernelFamily<F> && requires(const std::filesystem::path& data, const data::protocol& proto,
                                                              const work::kernel_kind_set& priced, std::vector<std::string>& notes) {
    { source<F>::summary } -> std::convertible_to<std::string_view>;
    { source<F>::data_credit } -> std::convertible_to<std::string_view>;
    { source<F>::protocol() } -> std::same_as<data::protocol>;
    { source<F>::load(data, proto, priced, notes) } -> std::same_as<std::vector<sample>>;
};

/// The training source of F as run-time values: what `source<F>` states, with the name, feature names and
/// framework levels F states itself.
template <TrainableFamily F>
[[nodiscard]] family_source source_of() {
    using S = source<F>;
    family_source s;
    s.name = std::string(F::name);
    s.summary = std::string(S::summary);
    s.data_credit = std::string(S::data_credit);
    s.feature_names.assign(F::feature_names.begin(), F::feature_names.end());
    s.framework_levels.assign(F::framework_levels.begin(), F::framework_levels.end());
    s.protocol = [] { return S::protocol(); };
    s.load = [](const std::filesystem::path& data, const data::protocol& proto, const work::kernel_kind_set& priced,
                std::vector<std::string>& notes) { return S::load(data, proto, priced, notes); };
    if constexpr (requires(const sample& row) { S::flag(row); }) {
        s.flag = [](const sample& row) { return S::flag(row); };
        s.flag_meaning = std::string(S::flag_meaning);
    }
    if constexpr (requires { S::default_max_rows; }) s.default_max_rows = S::default_max_rows;
    if constexpr (requires { S::saturation_gradient_floor; }) s.saturation_gradient_floor = S::saturation_gradient_floor;
    if constexpr (requires { S::leave_one_out; }) s.leave_one_out = S::leave_one_out;
    return s;
}

/// Whether every family of `List` (a `family::list`) has a training source.
template <class List>
inline constexpr bool every_family_trainable = false;
template <class... F>
inline constexpr bool every_family_trainable<family::list<F...>> = (TrainableFamily<F> && ...);

/// The training sources of every family of `List` (a `family::list`), in list order.
template <class List>
    requires every_family_trainable<List>
[[nodiscard]] std::vector<family_source> sources_of() {
    std::vector<family_source> out;
    List::for_each([&out](auto type) { out.push_back(source_of<typename decltype(type)::type>()); });
    return out;
}

}  // namespace synperf::train
