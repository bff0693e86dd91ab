// SPDX-License-Identifier: Apache-2.0
#pragma once
/// \file An MLP efficiency model: dense layers with BatchNorm folded in, plus its input description.
#include <cmath>
#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace synperf::mlp {

/// Activation after a dense layer.
enum class activation { identity, relu, sigmoid };

/// y = act(W x + b); W is `out x in`, row-major.
struct dense_layer {
    std::size_t in = 0;
    std::size_t out = 0;
    activation act = activation::relu;
    std::vector<float> weights;  ///< out * in values, row-major
    std::vector<float> bias;     ///< out values
};

/// A categorical input, one-hot encoded after the numeric features, in the order of `levels`.
struct categorical_input {
    std::string name;                 ///< e.g. "framework"
    std::vector<std::string> levels;  ///< e.g. {"trtllm", "sglang", "vllm"}
};

/// The efficiency of an ensemble from its members' outputs: their geometric mean, so that the predicted
/// latency is the geometric mean of the members' latencies. One member's output is returned as it is.
[[nodiscard]] inline double combine_members(std::span<const double> outputs) noexcept {
    if (outputs.size() == 1) return outputs[0];
    double log_sum = 0.0;
    for (double o : outputs) log_sum += std::log(o);
    return std::exp(log_sum / static_cast<double>(outputs.size()));
}

/// A trained efficiency model for one kernel family.
///
/// Input vector: `log1p(feature_i)` for each numeric feature (the order of `feature_names`), then one
/// one-hot block per categorical input. Any standardisation is folded into the first layer at export,
/// BatchNorm into the layer before it. The last layer has width 1 and a sigmoid: the efficiency.
///
/// An ensemble holds several such layer stacks over the same inputs, trained on the same rows from different
/// seeds: `layers` is the first, `further_members` the others, and the efficiency is `combine_members` of
/// their outputs. Which seed extrapolates best to a GPU no training row comes from is not something the
/// validation rows can tell; averaging the members removes most of that dependence (docs/weights-format.md).
struct network {
    std::string family;                          ///< kernel family name, e.g. "gemm"
    std::vector<std::string> feature_names;      ///< numeric inputs, in order
    std::vector<categorical_input> categoricals; ///< categorical inputs, in order
    std::vector<dense_layer> layers;             ///< first to last (the first member of an ensemble)
    std::vector<std::vector<dense_layer>> further_members;  ///< an ensemble's other members, each first to last
    std::vector<double> feature_min;             ///< training range per numeric feature (empty: unknown)
    std::vector<double> feature_max;             ///< training range per numeric feature (empty: unknown)
    double efficiency_min = 0.0;                 ///< lowest efficiency of the training rows (0: unknown)
    double efficiency_max = 1.0;                 ///< highest efficiency of the training rows (1: unknown)
    std::string meta;                            ///< free-form provenance (data, seed, epochs)
    /// The kinds of auxiliary kernel (`work::kernel_launch::kind`) the training ops ran, or none recorded (then
    /// the model prices every kernel). A predictor prices a kernel of any other kind apart, at its own floor.
    std::optional<std::vector<std::string>> trained_kernels;

    /// `x` clamped into feature `i`'s training range (unchanged when the range is unknown). Both evaluators apply
    /// it: an MLP extrapolates unpredictably, so beyond its data the efficiency stays what it is at the edge and
    /// the bound alone scales the latency.
    [[nodiscard]] double clamp_to_training_range(std::size_t i, double x) const noexcept {
        if (i >= feature_min.size() || i >= feature_max.size()) return x;
        return x < feature_min[i] ? feature_min[i] : (x > feature_max[i] ? feature_max[i] : x);
    }

    /// Whether the network records the efficiency range of its training rows.
    [[nodiscard]] bool has_efficiency_range() const noexcept { return efficiency_min > 0.0 || efficiency_max < 1.0; }

    /// `e` clamped into the training rows' efficiency range. Both evaluators apply it to the network's output:
    /// a sigmoid can saturate far below any efficiency the model was taught (the latency would grow by orders of
    /// magnitude), and the measured rows say how slow, relative to its bound, a kernel of the family ever ran.
    [[nodiscard]] double clamp_efficiency(double e) const noexcept {
        return e < efficiency_min ? efficiency_min : (e > efficiency_max ? efficiency_max : e);
    }

    /// The GPUs whose measurements trained the network, as the trainer records them in `meta` (`gpus=a,b,c`);
    /// none when `meta` does not say (a hand-written or third-party file). A GPU outside the list is predicted
    /// from its spec alone, with the accuracy `synperf eval` reports for held-out GPUs.
    [[nodiscard]] std::optional<std::vector<std::string>> trained_gpus() const {
        constexpr std::string_view key = "gpus=";
        const std::string_view m = meta;
        std::size_t at = 0;
        while ((at = m.find(key, at)) != std::string_view::npos && at != 0 && m[at - 1] != ' ') at += key.size();
        if (at == std::string_view::npos) return std::nullopt;
        std::string_view list = m.substr(at + key.size());
        list = list.substr(0, list.find(' '));
        std::vector<std::string> out;
        while (!list.empty()) {
            const std::size_t comma = list.find(',');
            if (comma != 0) out.emplace_back(list.substr(0, comma));
            list = comma == std::string_view::npos ? std::string_view{} : list.substr(comma + 1);
        }
        return out;
    }

    /// Layer stacks evaluated per prediction: 1, or an ensemble's size.
    [[nodiscard]] std::size_t member_count() const noexcept { return 1 + further_members.size(); }
    /// Member `i` (0: `layers`) of `member_count()`.
    [[nodiscard]] const std::vector<dense_layer>& member(std::size_t i) const noexcept {
        return i == 0 ? layers : further_members[i - 1];
    }

    /// Width of the input vector.
    [[nodiscard]] std::size_t input_width() const noexcept {
        std::size_t w = feature_names.size();
        for (const auto& c : categoricals) w += c.levels.size();
        return w;
    }
};

}  // namespace synperf::mlp
