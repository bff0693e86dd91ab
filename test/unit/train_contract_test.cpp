// SPDX-License-Identifier: Apache-2.0
// The training contract: every built-in family's training source found from its type, a family of one's own joining
// the list, the protocol's folds, the deterministic subsample and the model's inputs; with the trainer, a training
// and a leave-GPU-out evaluation on made-up samples.
#include <doctest/doctest.h>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "synperf/family/builtin.hpp"
#include "synperf/family/gemm.hpp"
#include "synperf/train/builtin_sources.hpp"
#include "synperf/train/protocol_folds.hpp"
#include "synperf/train/sample.hpp"
#include "synperf/train/source.hpp"
#include "synperf/train/subsample.hpp"

namespace {

/// A family of one's own: GEMM's decomposer under another name, trained on made-up rows.
struct renamed_gemm : synperf::family::gemm {
    static constexpr std::string_view name = "renamed_gemm";
};

/// Made-up samples with GEMM's feature count: efficiency falls with the first feature; GPUs a, b and c.
std::vector<synperf::train::sample> made_up_samples() {
    std::vector<synperf::train::sample> out;
    for (const char* gpu : {"a", "b", "c"})
        for (std::int64_t i = 0; i < 60; ++i) {
            synperf::train::sample s;
            s.gpu = gpu;
            s.framework = s.kernel = "vllm";
            s.features.assign(renamed_gemm::feature_names.size(), 1.0);
            s.features[0] = double(i);
            s.features[1] = double(i % 7);
            s.theoretical_us = s.kernel_floor_us = 10.0 + double(i);
            s.latency_us = s.theoretical_us / (0.9 - 0.01 * double(i));
            s.roofline_us = s.theoretical_us;
            s.part = synperf::data::part_of(synperf::data::shape_hash({i}));
            s.key = {i, std::int64_t(gpu[0])};
            s.key_size = 2;
            out.push_back(s);
        }
    return out;
}

}  // namespace

template <>
struct synperf::train::source<renamed_gemm> {
    static constexpr std::string_view summary = "GEMM under another name";
    static constexpr std::string_view data_credit = "data=made up";
    static data::protocol protocol() { return {{"a", "b", "c"}, {}}; }
    static constexpr bool leave_one_out = true;
    static std::vector<sample> load(const std::filesystem::path&, const data::protocol&, const work::kernel_kind_set&,
                                    std::vector<std::string>& notes) {
        notes.push_back("made up");
        return made_up_samples();
    }
};

TEST_CASE("train::sources_of: one training source per built-in family, found from its type, in list order") {
    using synperf::builtin_families;
    const std::vector<synperf::train::family_source> sources = synperf::train::sources_of<builtin_families>();
    REQUIRE(sources.size() == builtin_families::size);
    for (std::size_t i = 0; i < sources.size(); ++i) {
        const synperf::train::family_source& s = sources[i];
        CHECK(s.name == builtin_families::names[i]);
        CHECK(!s.summary.empty());
        CHECK(s.data_credit.starts_with("data="));
        CHECK(!s.feature_names.empty());
        CHECK(!s.framework_levels.empty());
        CHECK(!s.protocol().train.empty());
        CHECK(s.load);
        // What a source may add, where the built-in families add it.
        CHECK(s.leave_one_out == (s.name == "rmsnorm" || s.name == "silu_mul"));
        CHECK(s.default_max_rows == (s.name == "moe" ? 24000u : 160000u));
        CHECK(s.saturation_gradient_floor == (s.name == "gemm_fp8" ? 0.02 : 0.0));
        CHECK(bool(s.flag) == s.name.starts_with("attention_"));
        CHECK(s.flag_meaning.empty() == !s.flag);
    }
    const synperf::train::family_source gemm = synperf::train::source_of<synperf::family::gemm>();
    CHECK(gemm.feature_names == sources.front().feature_names);
}

TEST_CASE("train::source: a family of one's own joins the built-in list") {
    using families = synperf::builtin_families::append<renamed_gemm>;
    static_assert(synperf::train::TrainableFamily<renamed_gemm>);
    static_assert(!synperf::train::TrainableFamily<int>);
    const auto sources = synperf::train::sources_of<families>();
    REQUIRE(sources.size() == families::size);
    const synperf::train::family_source& mine = sources.back();
    CHECK(mine.name == "renamed_gemm");
    CHECK(mine.leave_one_out);
    std::vector<std::string> notes;
    CHECK(mine.load("unused", mine.protocol(), synperf::work::every_kernel_kind(), notes).size() == 180);
    CHECK(notes == std::vector<std::string>{"made up"});

    // Leave-one-GPU-out: one fold per training GPU, its weights beside the base path.
    const std::vector<synperf::train::protocol_fold> folds = synperf::train::protocol_folds(mine);
    REQUIRE(folds.size() == 3);
    CHECK(folds[1].held_out_gpu == "b");
    CHECK(synperf::train::fold_path("models/protocol/renamed_gemm.mlp", folds[1]) == "models/protocol/renamed_gemm.loo-b.mlp");
    synperf::train::sample on_b;
    on_b.gpu = "b";
    CHECK(!folds[1].fits_on(on_b));
    CHECK(folds[1].evaluates(on_b));
    CHECK(folds[0].fits_on(on_b));
    // One fold otherwise: it fits the seen GPUs' train and validation shapes and evaluates the rest.
    const auto one = synperf::train::protocol_folds(sources.front());
    REQUIRE(one.size() == 1);
    CHECK(synperf::train::fold_path("x.mlp", one[0]) == "x.mlp");
    on_b.part = synperf::data::seen_part::test;
    CHECK(!one[0].fits_on(on_b));
    CHECK(one[0].evaluates(on_b));
}

TEST_CASE("train::subsample: the same rows for the same seed, whatever their order") {
    const std::vector<synperf::train::sample> samples = made_up_samples();
    std::vector<const synperf::train::sample*> rows, reversed;
    for (const auto& s : samples) rows.push_back(&s);
    reversed.assign(rows.rbegin(), rows.rend());
    const auto a = synperf::train::subsample(rows, 50, 7);
    auto b = synperf::train::subsample(reversed, 50, 7);
    CHECK(a.size() == 50);
    CHECK(a == b);
    CHECK(synperf::train::subsample(rows, 50, 8) != a);
    CHECK(synperf::train::subsample(rows, 0, 7).size() == rows.size());
}

#if SYNPERF_HAVE_XTENSOR
#include "synperf/train/efficiency_model.hpp"
#include "synperf/train/encoding.hpp"
#include "synperf/train/evaluation.hpp"
#include "synperf/train/metrics.hpp"

TEST_CASE("train::model_input: log1p of the features, then the one-hot framework") {
    synperf::train::sample s;
    s.features = {0.0, std::exp(1.0) - 1.0};
    s.level = 1;
    std::vector<double> in(5);
    synperf::train::model_input(s, 3, in.data());
    CHECK(in[0] == 0.0);
    CHECK(in[1] == doctest::Approx(1.0));
    CHECK(in[2] == 0.0);
    CHECK(in[3] == 1.0);
    CHECK(in[4] == 0.0);
    s.theoretical_us = 2.0;
    s.latency_us = 1.0;  // measured below the bound: the target is clamped to 1
    CHECK(synperf::train::training_target(s) == 1.0f);
}

TEST_CASE("train: a family's model trained and evaluated leave-one-GPU-out through the contract") {
    const synperf::train::family_source mine = synperf::train::source_of<renamed_gemm>();
    std::vector<std::string> notes;
    const std::vector<synperf::train::sample> samples = mine.load("", mine.protocol(), synperf::work::every_kernel_kind(), notes);
    synperf::train::train_options options = synperf::train::options_for(mine);
    options.hidden = {16};
    options.max_epochs = 60;
    options.verbose = false;
    synperf::train::evaluation scores;
    for (const synperf::train::protocol_fold& fold : synperf::train::protocol_folds(mine)) {
        const auto rows = synperf::train::training_rows_of(samples, [&fold](const synperf::train::sample& s) { return fold.fits_on(s); });
        REQUIRE(!rows.train.empty());
        REQUIRE(!rows.validation.empty());
        const synperf::mlp::network net = synperf::train::train_efficiency_model(mine, rows.train, rows.validation, options);
        CHECK(net.family == "renamed_gemm");
        CHECK(net.feature_names == mine.feature_names);
        CHECK(net.feature_min[0] == 0.0);
        CHECK(net.feature_max[0] == 59.0);
        synperf::train::evaluate_fold(mine, fold, net, "fold " + fold.held_out_gpu, samples, scores);
    }
    REQUIRE(scores.size() == 3);
    for (const auto& [gpu_framework, r] : scores) {
        CHECK(r.label == synperf::data::split::loo);
        CHECK(r.measured.size() == 60);
        CHECK(r.predicted.size() == 60);
        CHECK(r.linear.size() == 60);
        // Every GPU runs at the same efficiencies: the model beats the bound taken as the latency.
        CHECK(synperf::train::summarize(r.predicted, r.measured).mape < synperf::train::summarize(r.roofline, r.measured).mape);
    }
}
#endif
