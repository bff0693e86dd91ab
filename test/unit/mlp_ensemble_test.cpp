// SPDX-License-Identifier: Apache-2.0
// Ensembles: several layer stacks over one input description, combined by the geometric mean of their outputs.
#include <doctest/doctest.h>

#include <cmath>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "synperf/mlp/compiled.hpp"
#include "synperf/mlp/ensemble.hpp"
#include "synperf/mlp/evaluate.hpp"
#include "synperf/mlp/format.hpp"
#include "text_lines.hpp"

namespace {

using synperf::load_error;
using synperf::mlp::network;

// tiny.mlp's inputs (x, y, one-hot mode) with two members. Member 1 is tiny.mlp's network: for x = e - 1,
// y = e^2 - 1, mode = b its output is sigmoid(-0.125). Member 2 is a 4-1 network whose output is sigmoid(0.5).
constexpr std::string_view pair_text =
    "synperf-mlp 2\n"            // 1
    "family tiny\n"              // 2
    "features 2\n"               // 3
    "feature x\n"                // 4
    "feature y\n"                // 5
    "categoricals 1\n"           // 6
    "categorical mode 2 a b\n"   // 7
    "members 2\n"                // 8
    "layers 2\n"                 // 9
    "layer 4 2 relu\n"           // 10
    "1 0.5 2 -1\n"               // 11
    "-1 1 0 3\n"                 // 12
    "bias 0.25 -0.5\n"           // 13
    "layer 2 1 sigmoid\n"        // 14
    "0.5 -0.25\n"                // 15
    "bias 0.125\n"               // 16
    "layers 1\n"                 // 17
    "layer 4 1 sigmoid\n"        // 18
    "0.25 0.125 1 -1\n"          // 19
    "bias 0.5\n"                 // 20
    "end\n";                     // 21

// 0.25 * 1 + 0.125 * 2 - 1 * 1 + 0.5 = 0 for member 2 with the inputs (1, 2, 0, 1): sigmoid(0) = 0.5.
double sigmoid(double z) { return 1.0 / (1.0 + std::exp(-z)); }

using synperf::test::replace_line_in;

}  // namespace

TEST_CASE("mlp ensemble: the efficiency is the geometric mean of the members' outputs") {
    const network net = synperf::mlp::parse_mlp(pair_text, "pair.mlp");
    REQUIRE(net.member_count() == 2);
    CHECK(net.member(0).size() == 2);
    CHECK(net.member(1).size() == 1);
    const double x = std::exp(1.0) - 1.0, y = std::exp(2.0) - 1.0;
    const double features[] = {x, y};
    const std::size_t mode_b[] = {1};
    const double expected = std::sqrt(sigmoid(-0.125) * sigmoid(0.0));
    CHECK(synperf::mlp::evaluate(net, features, mode_b) == doctest::Approx(expected).epsilon(1e-6));
    const synperf::mlp::compiled_network compiled(net);
    CHECK(compiled.evaluate(features, mode_b) == doctest::Approx(expected).epsilon(1e-6));
    // Each member alone is the network it would be in a file of its own.
    network first = net;
    first.further_members.clear();
    CHECK(synperf::mlp::evaluate(first, features, mode_b) == doctest::Approx(sigmoid(-0.125)).epsilon(1e-6));
}

TEST_CASE("mlp ensemble: combine_members leaves one output as it is and averages logarithms") {
    const double one[] = {0.3};
    CHECK(synperf::mlp::combine_members(one) == 0.3);
    const double three[] = {0.2, 0.4, 0.8};
    CHECK(synperf::mlp::combine_members(three) == doctest::Approx(0.4));
}

TEST_CASE("mlp ensemble: written as version 2 and read back bit-identically, one member stays version 1") {
    const network net = synperf::mlp::parse_mlp(pair_text, "pair.mlp");
    CHECK(synperf::mlp::to_text(net) == pair_text);
    network single = net;
    single.further_members.clear();
    const std::string text = synperf::mlp::to_text(single);
    CHECK(text.starts_with("synperf-mlp 1\n"));
    CHECK(text.find("members") == std::string::npos);
}

TEST_CASE("mlp ensemble: malformed ensembles are rejected with their line and cause") {
    struct bad {
        std::string what, text, message;
    };
    const bad cases[] = {
        {"members in a version-1 file", replace_line_in(pair_text, 1, "synperf-mlp 1\n"),
         "pair.mlp:8:1: 'members' needs format version 2 or later; line 1 declares version 1"},
        {"one member", replace_line_in(pair_text, 8, "members 1\n"),
         "pair.mlp:8:9: members: an ensemble needs at least 2 members, got 1"},
        {"too many members", replace_line_in(pair_text, 8, "members 17\n"), "pair.mlp:8:9: members must be at most 16, got '17'"},
        {"members without a count", replace_line_in(pair_text, 8, "members\n"), "pair.mlp:8: 'members' needs a count, got nothing"},
        {"fewer members than declared", replace_line_in(pair_text, 8, "members 3\n"),
         "pair.mlp:21:1: 'members 3' on line 8 declares 3, but only 2 'layers' blocks follow"},
        {"more members than declared", replace_line_in(pair_text, 21, "layers 1\nlayer 4 1 sigmoid\n0 0 0 0\nbias 0\nend\n"),
         "pair.mlp:21:1: 'members 2' on line 8 declares 2, but more 'layers' blocks follow"},
        {"a member that does not take the inputs", replace_line_in(pair_text, 18, "layer 3 1 sigmoid\n"),
         "pair.mlp:18: layer 1: input width 3 does not match the input vector width 4"},
        {"a member without a sigmoid output", replace_line_in(pair_text, 18, "layer 4 1 relu\n"),
         "pair.mlp:18: layer 1: the last layer must use sigmoid"},
        {"a second 'layers' without 'members'", replace_line_in(replace_line_in(pair_text, 1, "synperf-mlp 1\n"), 8, ""),
         "duplicate 'layers' (first on line 8)"},
        {"'members' after the first layers", replace_line_in(replace_line_in(pair_text, 16, "bias 0.125\nmembers 2\n"), 8, ""),
         "expected 'end', got 'members'"},
    };
    for (const auto& c : cases) {
        CAPTURE(c.what);
        CHECK_THROWS_WITH_AS((void)synperf::mlp::parse_mlp(c.text, "pair.mlp"), doctest::Contains(c.message.c_str()), load_error);
    }
}

TEST_CASE("mlp ensemble: validate names the member at fault") {
    network net = synperf::mlp::parse_mlp(pair_text, "pair.mlp");
    net.further_members[0][0].bias[0] = std::nanf("");
    CHECK_THROWS_WITH_AS(synperf::mlp::validate(net), doctest::Contains("member 2: layer 1 bias value 1: not finite"),
                         synperf::invalid_argument);
    net = synperf::mlp::parse_mlp(pair_text, "pair.mlp");
    net.further_members.assign(16, net.further_members[0]);
    CHECK_THROWS_WITH_AS(synperf::mlp::validate(net), doctest::Contains("an ensemble holds at most 16 members, got 17"),
                         synperf::invalid_argument);
    CHECK_FALSE(synperf::mlp::detail::evaluable(net));
}

TEST_CASE("mlp ensemble: make_ensemble joins single networks and spans their ranges") {
    const network pair = synperf::mlp::parse_mlp(pair_text, "pair.mlp");
    network a = pair, b = pair;
    a.further_members.clear();
    b.layers = pair.further_members[0];
    b.further_members.clear();
    a.feature_min = {0.0, 1.0};
    a.feature_max = {2.0, 7.0};
    b.feature_min = {0.5, 0.5};
    b.feature_max = {4.0, 6.5};
    a.efficiency_min = 0.1;
    a.efficiency_max = 0.8;
    b.efficiency_min = 0.05;
    b.efficiency_max = 0.7;
    a.trained_kernels = std::vector<std::string>{"fp8_cast"};
    b.trained_kernels = std::vector<std::string>{"kv_cache_store"};
    const network members[] = {a, b};
    const network joined = synperf::mlp::make_ensemble(members);
    CHECK(joined.member_count() == 2);
    CHECK(joined.feature_min == std::vector<double>{0.0, 0.5});
    CHECK(joined.feature_max == std::vector<double>{4.0, 7.0});
    CHECK(joined.efficiency_min == 0.05);
    CHECK(joined.efficiency_max == 0.8);
    CHECK(*joined.trained_kernels == std::vector<std::string>{"fp8_cast", "kv_cache_store"});
    CHECK(joined.meta == a.meta);
    const double features[] = {std::exp(1.0) - 1.0, std::exp(2.0) - 1.0};
    const std::size_t mode_b[] = {1};
    // Inside every range, the joined ensemble predicts what the file holding both members does.
    CHECK(synperf::mlp::evaluate(joined, features, mode_b) == synperf::mlp::evaluate(pair, features, mode_b));

    network other = b;
    other.family = "gemm";
    const network mixed[] = {a, other};
    CHECK_THROWS_WITH_AS((void)synperf::mlp::make_ensemble(mixed), doctest::Contains("network 2 ('gemm') differs from network 1 ('tiny') in its family"),
                         synperf::invalid_argument);
    other = b;
    other.categoricals[0].levels = {"b", "a"};
    const network reordered[] = {a, other};
    CHECK_THROWS_WITH_AS((void)synperf::mlp::make_ensemble(reordered), doctest::Contains("in its categorical inputs"),
                         synperf::invalid_argument);
    const network nested[] = {a, pair};
    CHECK_THROWS_WITH_AS((void)synperf::mlp::make_ensemble(nested), doctest::Contains("network 2 ('tiny') is an ensemble already (2 members): join single networks"),
                         synperf::invalid_argument);
    CHECK_THROWS_WITH_AS((void)synperf::mlp::make_ensemble(std::span<const network>(members, 1)),
                         doctest::Contains("needs 2 to 16 networks, got 1"), synperf::invalid_argument);
}
