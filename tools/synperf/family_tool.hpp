// SPDX-License-Identifier: Apache-2.0
#pragma once
// A family as the train and eval commands see it: measured rows joined with their decomposition.
//
// Each family registers one `family_tool` (family_registry.cpp): how to read its measured rows and turn
// them into samples (features, theoretical time, framework level, split). Training, evaluation and the
// baselines are written once, over samples.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <synperf/data/protocol.hpp>
#include <synperf/gpu/registry.hpp>
#include <synperf/predictor/prediction.hpp>
#include <synperf/work/kernel_kinds.hpp>

namespace synperf::cli {

/// One measured row, analyzed.
struct sample {
    std::string gpu;              ///< canonical GPU id
    std::string framework;        ///< the collector (a table row per (GPU, framework))
    std::string kernel;           ///< what ran, as the data names it (e.g. kernel_source), for reports
    std::vector<double> features; ///< the family's numeric features, >= 0
    std::size_t level = 0;        ///< framework level of the categorical input
    double theoretical_us = 0;    ///< lower bound of the op
    double kernel_floor_us = 0;   ///< least time of its kernels as decomposed (`prediction::kernel_floor_us`)
    double priced_apart_us = 0;   ///< time of its kernels priced apart from the model (`prediction::priced_apart_us`)
    std::vector<std::string> kernel_kinds;  ///< kinds of the auxiliary kernels the model prices (`kernel_report::kind`)
    std::vector<std::string> priced_apart_kinds;  ///< kinds of those it prices apart
    double latency_us = 0;        ///< measured
    double roofline_us = 0;       ///< datasheet roofline baseline
    data::split label = data::split::seen;
    data::seen_part part = data::seen_part::train;
    std::array<std::int64_t, 8> key{};  ///< row identity for deterministic subsampling
    std::size_t key_size = 0;

    /// Bound over measured time of what the model describes: the op less its kernels priced apart (a row whose
    /// measured time is below those kernels' alone reads as far above 1, a bound broken).
    [[nodiscard]] double efficiency() const { return theoretical_us / std::max(latency_us - priced_apart_us, 1e-9); }
    /// The latency a model of efficiency `eff` predicts for the row (`predictor_detail::predict`).
    [[nodiscard]] double predicted_us(double eff) const {
        return floored_latency_us(theoretical_us, eff, kernel_floor_us) + priced_apart_us;
    }
    /// Takes the model inputs, bound, kernel floor and kernel kinds of the row's analysis.
    void take_analysis(prediction&& p) {
        features = std::move(p.features);
        theoretical_us = p.theoretical_us;
        kernel_floor_us = p.kernel_floor_us;
        priced_apart_us = p.priced_apart_us;
        kernel_kinds.clear();
        priced_apart_kinds.clear();
        for (const kernel_report& k : p.kernels) {
            std::vector<std::string>& kinds = k.priced_apart ? priced_apart_kinds : kernel_kinds;
            if (!k.kind.empty() && std::find(kinds.begin(), kinds.end(), k.kind) == kinds.end()) kinds.push_back(k.kind);
        }
    }
};

/// What a family contributes to `synperf train` and `synperf eval`.
struct family_tool {
    std::string name;        ///< subcommand and weights file name, e.g. "gemm"
    std::string summary;     ///< one line for --help
    std::string data_credit; ///< source and licence, written into the weights' meta line
    std::vector<std::string> feature_names;
    std::vector<std::string> framework_levels;
    std::function<data::protocol()> protocol;
    /// Reads and analyzes every row under the data directory, pricing apart the kernels `priced` does not cover (the
    /// weights' trained kernels); `notes` receives one line per exclusion rule.
    std::function<std::vector<sample>(const std::filesystem::path& data_dir, const data::protocol& proto,
                                      const work::kernel_kind_set& priced, std::vector<std::string>& notes)>
        load;
    /// Held-out rows to flag in eval (e.g. a kernel never seen in training); may be empty.
    std::function<bool(const sample&)> flag;
    std::string flag_meaning;  ///< what a flagged row means, printed under the table
    std::size_t default_max_rows = 160000;  ///< training subsample that keeps a full training within minutes
    /// `train::train_options::saturation_gradient_floor`: 0 (the exact gradient) unless a family's training rows
    /// sit on the sigmoid's plateau, i.e. where the floor lowers the validation loss.
    double saturation_gradient_floor = 0.0;
    /// Leave-one-GPU-out (`loo`, docs/method.md#leave-one-gpu-out): protocol weights are one file per GPU of
    /// `protocol().train`, models/protocol/<name>.loo-<gpu>.mlp, each trained on the other GPUs and evaluated on
    /// that one.
    bool leave_one_out = false;
};

/// The numbers of every GPU the measured `rows` name (each row's `gpu`), looked up once per GPU before the rows
/// are analyzed in parallel.
template <class Rows>
[[nodiscard]] std::map<std::string, gpu::gpu_numbers> gpu_numbers_of(const Rows& rows) {
    std::map<std::string, gpu::gpu_numbers> numbers;
    for (const auto& r : rows)
        if (!numbers.contains(r.gpu)) numbers.emplace(r.gpu, gpu::find_gpu(r.gpu).numbers);
    return numbers;
}

/// Removes the samples a loader left without a GPU name (rows its decomposer could not plan) and notes how many,
/// followed by `why` ("whose config needs ...").
inline void drop_unplanned(std::vector<sample>& out, std::vector<std::string>& notes, std::string_view why) {
    const std::size_t before = out.size();
    std::erase_if(out, [](const sample& s) { return s.gpu.empty(); });
    if (out.size() != before) notes.push_back("excluded " + std::to_string(before - out.size()) + " rows " + std::string(why));
}

/// A family's tool with what the policy `F` states itself (name, feature names, framework levels) filled in.
template <class F>
[[nodiscard]] family_tool family_tool_of(std::string summary, std::string data_credit) {
    family_tool t;
    t.name = std::string(F::name);
    t.summary = std::move(summary);
    t.data_credit = std::move(data_credit);
    t.feature_names.assign(F::feature_names.begin(), F::feature_names.end());
    t.framework_levels.assign(F::framework_levels.begin(), F::framework_levels.end());
    return t;
}

/// One train/evaluate pairing of the protocol: which rows a weights file is fitted on and evaluated on.
struct protocol_fold {
    std::string weights_suffix;  ///< "" or ".loo-<gpu>"
    std::string held_out_gpu;    ///< leave-one-out: the GPU left out; empty otherwise
    [[nodiscard]] bool fits_on(const sample& s) const {
        if (!held_out_gpu.empty()) return s.gpu != held_out_gpu;
        return s.label == data::split::seen && s.part != data::seen_part::test;
    }
    [[nodiscard]] bool evaluates(const sample& s) const {
        if (!held_out_gpu.empty()) return s.gpu == held_out_gpu;
        return !(s.label == data::split::seen && s.part != data::seen_part::test);
    }
};

/// The protocol folds of a family: one, or one per GPU when it is evaluated leave-one-GPU-out.
inline std::vector<protocol_fold> protocol_folds(const family_tool& fam) {
    if (!fam.leave_one_out) return {protocol_fold{}};
    std::vector<protocol_fold> out;
    for (const auto& g : fam.protocol().train) out.push_back({".loo-" + g, g});
    return out;
}

/// Weights path of a fold: `base` (models/protocol/<name>.mlp or --out) with the fold's suffix before ".mlp".
inline std::string fold_path(const std::string& base, const protocol_fold& fold) {
    if (fold.weights_suffix.empty()) return base;
    const std::string stem = base.size() > 4 && base.ends_with(".mlp") ? base.substr(0, base.size() - 4) : base;
    return stem + fold.weights_suffix + ".mlp";
}

/// Every registered family, in registration order.
const std::vector<family_tool>& family_tools();

/// The registered family called `name`, or an error listing the known ones.
const family_tool& find_family_tool(std::string_view name);

/// log1p of the features then the one-hot framework block: the MLP's (and the linear baseline's) input.
inline void model_input(const sample& s, std::size_t levels, double* out) {
    std::size_t i = 0;
    for (double f : s.features) out[i++] = std::log1p(f);
    for (std::size_t l = 0; l < levels; ++l) out[i++] = (l == s.level) ? 1.0 : 0.0;
}

/// Analyzes `count` rows with `analyze_one(i)` on two threads; results keep the row order.
void parallel_for(std::size_t count, const std::function<void(std::size_t)>& analyze_one);

}  // namespace synperf::cli
