// SPDX-License-Identifier: Apache-2.0
#include "synperf/mlp/format.hpp"

#include <doctest/doctest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <limits>
#include <random>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "synperf/models/tiny.hpp"  // generated from data/mlp/tiny.mlp
#include "text_lines.hpp"
#include "synperf/mlp/evaluate.hpp"

namespace {

using synperf::load_error;
using synperf::mlp::activation;
using synperf::mlp::network;

const std::string tiny_path = SYNPERF_TEST_DATA_DIR "/mlp/tiny.mlp";

// The canonical text of test/data/mlp/tiny.mlp (what to_text writes): line numbers below refer to it.
constexpr std::string_view tiny_text =
    "synperf-mlp 1\n"                                                            // 1
    "family tiny\n"                                                              // 2
    "meta hand-written test model; input = log1p(x), log1p(y), one-hot(mode)\n"  // 3
    "features 2\n"                                                               // 4
    "feature x\n"                                                                // 5
    "feature y\n"                                                                // 6
    "categoricals 1\n"                                                           // 7
    "categorical mode 2 a b\n"                                                   // 8
    "layers 2\n"                                                                 // 9
    "layer 4 2 relu\n"                                                           // 10
    "1 0.5 2 -1\n"                                                               // 11
    "-1 1 0 3\n"                                                                 // 12
    "bias 0.25 -0.5\n"                                                           // 13
    "layer 2 1 sigmoid\n"                                                        // 14
    "0.5 -0.25\n"                                                                // 15
    "bias 0.125\n"                                                               // 16
    "end\n";                                                                     // 17

using synperf::test::replace_line_in;

// tiny_text with line `n` (1-based) replaced by `with`.
std::string replace_line(std::size_t n, std::string_view with) { return replace_line_in(tiny_text, n, with); }

// tiny_text with a training range after each feature line: lines 6 and 8; categoricals moves to line 9.
const std::string ranged_text = replace_line(6, "range 0 1000\nfeature y\nrange 0.5 12345.678\n");

// ranged_text with line `n` replaced by `with`.
std::string replace_ranged_line(std::size_t n, std::string_view with) { return replace_line_in(ranged_text, n, with); }

// tiny_text without its meta line (line 3).
std::string without_meta() { return replace_line(3, ""); }

// A malformed weights file and the start of the message that must reject it (as "bad.mlp").
struct malformed_file {
    std::string what;
    std::string text;
    const char* message;
};

void check_rejected(std::span<const malformed_file> cases) {
    for (const auto& c : cases) {
        CAPTURE(c.what);
        CHECK_THROWS_WITH_AS((void)synperf::mlp::parse_mlp(c.text, "bad.mlp"), doctest::Contains(c.message), load_error);
    }
}

std::uint32_t bits(float f) { return std::bit_cast<std::uint32_t>(f); }
std::uint64_t bits(double d) { return std::bit_cast<std::uint64_t>(d); }

// Field-by-field equality, floats compared bit for bit (so -0 differs from 0).
void check_same(const network& a, const network& b) {
    CHECK(a.family == b.family);
    CHECK(a.meta == b.meta);
    CHECK(a.trained_kernels == b.trained_kernels);
    CHECK(a.feature_names == b.feature_names);
    REQUIRE(a.feature_min.size() == b.feature_min.size());
    REQUIRE(a.feature_max.size() == b.feature_max.size());
    for (std::size_t i = 0; i < a.feature_min.size(); ++i) {
        CHECK(bits(a.feature_min[i]) == bits(b.feature_min[i]));
        CHECK(bits(a.feature_max[i]) == bits(b.feature_max[i]));
    }
    CHECK(bits(a.efficiency_min) == bits(b.efficiency_min));
    CHECK(bits(a.efficiency_max) == bits(b.efficiency_max));
    REQUIRE(a.categoricals.size() == b.categoricals.size());
    for (std::size_t c = 0; c < a.categoricals.size(); ++c) {
        CHECK(a.categoricals[c].name == b.categoricals[c].name);
        CHECK(a.categoricals[c].levels == b.categoricals[c].levels);
    }
    REQUIRE(a.layers.size() == b.layers.size());
    for (std::size_t i = 0; i < a.layers.size(); ++i) {
        const auto& x = a.layers[i];
        const auto& y = b.layers[i];
        CHECK(x.in == y.in);
        CHECK(x.out == y.out);
        CHECK(x.act == y.act);
        REQUIRE(x.weights.size() == y.weights.size());
        REQUIRE(x.bias.size() == y.bias.size());
        std::size_t differing = 0;
        for (std::size_t k = 0; k < x.weights.size(); ++k) differing += bits(x.weights[k]) != bits(y.weights[k]);
        for (std::size_t k = 0; k < x.bias.size(); ++k) differing += bits(x.bias[k]) != bits(y.bias[k]);
        CHECK(differing == 0);
    }
}

std::string numbered(std::string_view prefix, std::size_t i) { return std::string(prefix).append(std::to_string(i)); }

// A 20-256-128-64-1 network with random weights; `special` puts the floats hardest to print and read back
// (signed zero, subnormals, extremes, values needing 9 digits) at the start of every layer.
network random_network(bool special) {
    network net;
    net.family = "gemm";
    net.meta = "seed 3; 40 epochs; data h100-2026-08.csv";
    for (std::size_t i = 0; i < 17; ++i) net.feature_names.push_back(numbered("feature_", i));
    net.categoricals.push_back({"framework", {"trtllm", "sglang", "vllm"}});
    const std::vector<float> specials{-0.0f,
                                      0.0f,
                                      1.0f / 3.0f,
                                      std::numeric_limits<float>::max(),
                                      std::numeric_limits<float>::lowest(),
                                      std::numeric_limits<float>::min(),
                                      std::numeric_limits<float>::denorm_min(),
                                      -std::numeric_limits<float>::denorm_min(),
                                      std::nextafter(1.0f, 2.0f),
                                      0.1f,
                                      1e-30f,
                                      16777216.0f};
    std::mt19937 gen(3);
    std::normal_distribution<float> dist(0.0f, 0.2f);
    const std::size_t widths[] = {20, 256, 128, 64, 1};
    for (std::size_t i = 0; i < 4; ++i) {
        synperf::mlp::dense_layer l{widths[i], widths[i + 1], i == 3 ? activation::sigmoid : activation::relu, {}, {}};
        for (std::size_t k = 0; k < l.in * l.out; ++k) l.weights.push_back(special && k < specials.size() ? specials[k] : dist(gen));
        for (std::size_t k = 0; k < l.out; ++k) l.bias.push_back(dist(gen));
        net.layers.push_back(std::move(l));
    }
    return net;
}

// A per-run file name in the temporary directory.
std::filesystem::path scratch_file(std::string_view name) {
    static const auto tag = std::to_string(std::random_device{}());
    return std::filesystem::temp_directory_path() / std::string("synperf_mlp_test_").append(tag).append("_").append(name);
}

}  // namespace

TEST_CASE("mlp format: the test model loads with every field") {
    const network net = synperf::mlp::load_mlp(tiny_path);
    CHECK(net.family == "tiny");
    CHECK(net.meta == "hand-written test model; input = log1p(x), log1p(y), one-hot(mode)");
    CHECK(net.feature_names == std::vector<std::string>{"x", "y"});
    REQUIRE(net.categoricals.size() == 1);
    CHECK(net.categoricals[0].name == "mode");
    CHECK(net.categoricals[0].levels == std::vector<std::string>{"a", "b"});
    CHECK(net.input_width() == 4);
    REQUIRE(net.layers.size() == 2);
    CHECK(net.layers[0].in == 4);
    CHECK(net.layers[0].out == 2);
    CHECK(net.layers[0].act == activation::relu);
    CHECK(net.layers[0].weights == std::vector<float>{1, 0.5f, 2, -1, -1, 1, 0, 3});
    CHECK(net.layers[0].bias == std::vector<float>{0.25f, -0.5f});
    CHECK(net.layers[1].act == activation::sigmoid);
    CHECK(net.layers[1].weights == std::vector<float>{0.5f, -0.25f});
    CHECK(net.layers[1].bias == std::vector<float>{0.125f});

    // log1p inputs (1, 2), mode b: hidden relu(1 + 1 - 1 + 0.25, -1 + 2 + 3 - 0.5) = (1.25, 3.5), z = -0.125.
    const std::vector<double> numeric{std::expm1(1.0), std::expm1(2.0)};
    const std::vector<std::size_t> level{synperf::mlp::categorical_index(net, 0, "b")};
    CHECK(synperf::mlp::evaluate(net, numeric, level) == doctest::Approx(1.0 / (1.0 + std::exp(0.125))).epsilon(1e-6));

    // The file's comment lines do not change what it says.
    check_same(net, synperf::mlp::parse_mlp(tiny_text, "tiny.mlp"));
}

TEST_CASE("mlp format: the training GPUs a meta line records") {
    network net = synperf::mlp::load_mlp(tiny_path);
    CHECK_FALSE(net.trained_gpus().has_value());  // a hand-written file says nothing of its data
    net.meta = "shipped gpus=a100_sxm,h100_sxm rows=10 seed=42";
    CHECK(net.trained_gpus() == std::vector<std::string>{"a100_sxm", "h100_sxm"});
    net.meta = "gpus=l40s";
    CHECK(net.trained_gpus() == std::vector<std::string>{"l40s"});
    net.meta = "protocol gpus= rows=0";  // recorded, and empty: no GPU was measured
    CHECK(net.trained_gpus() == std::vector<std::string>{});
    net.meta = "notgpus=a100_sxm data=x";  // only a whole word counts
    CHECK_FALSE(net.trained_gpus().has_value());
}

TEST_CASE("mlp format: to_text writes the canonical text, and reads back unchanged") {
    const network net = synperf::mlp::parse_mlp(tiny_text, "tiny.mlp");
    CHECK(synperf::mlp::to_text(net) == tiny_text);
    network bare = net;
    bare.meta.clear();
    bare.categoricals.clear();
    bare.layers[0].in = 2;
    bare.layers[0].weights = {1, 2, 3, 4};
    const std::string text = synperf::mlp::to_text(bare);
    CHECK(text.find("meta") == std::string::npos);
    CHECK(text.find("categoricals 0\nlayers 2\n") != std::string::npos);
    check_same(bare, synperf::mlp::parse_mlp(text, "bare.mlp"));
}

TEST_CASE("mlp format: export -> load is bit-identical and predicts identically") {
    for (bool special : {true, false}) {
        CAPTURE(special);
        const network net = random_network(special);
        const std::string text = synperf::mlp::to_text(net);
        const network back = synperf::mlp::parse_mlp(text, "gemm.mlp");
        check_same(net, back);
        CHECK(synperf::mlp::to_text(back) == text);
        if (!special) {
            std::mt19937 gen(5);
            std::uniform_real_distribution<double> dist(0.0, 1e6);
            for (std::size_t trial = 0; trial < 10; ++trial) {
                std::vector<double> numeric(17);
                for (auto& v : numeric) v = dist(gen);
                const std::vector<std::size_t> level{trial % 3};
                const double p = synperf::mlp::evaluate(net, numeric, level);
                CHECK(p > 0.0);
                CHECK(p < 1.0);
                CHECK(p == synperf::mlp::evaluate(back, numeric, level));
            }
        }
    }
}

TEST_CASE("mlp format: save_mlp -> load_mlp round trip, and I/O errors name the path") {
    const network net = random_network(true);
    const auto path = scratch_file("gemm.mlp");
    synperf::mlp::save_mlp(net, path.string());
    const network back = synperf::mlp::load_mlp(path.string());
    std::filesystem::remove(path);
    check_same(net, back);

    const std::string missing = (scratch_file("no_such_dir") / "gemm.mlp").string();
    CHECK_THROWS_WITH_AS((void)synperf::mlp::load_mlp(missing),
                         doctest::Contains(std::string("synperf: ").append(missing).append(": cannot open for reading: No such file or directory").c_str()),
                         load_error);
    CHECK_THROWS_WITH_AS(synperf::mlp::save_mlp(net, missing),
                         doctest::Contains(std::string(missing).append(": cannot open for writing: ").c_str()), load_error);
    // A directory opens but cannot be read as a file.
    CHECK_THROWS_AS((void)synperf::mlp::load_mlp(std::filesystem::temp_directory_path().string()), load_error);

    // A parse error in a loaded file names the path and the line.
    const auto bad = scratch_file("bad.mlp");
    {
        std::FILE* f = std::fopen(bad.string().c_str(), "wb");
        REQUIRE(f != nullptr);
        const std::string text = replace_line(2, "family\n");
        std::fwrite(text.data(), 1, text.size(), f);
        std::fclose(f);
    }
    CHECK_THROWS_WITH_AS((void)synperf::mlp::load_mlp(bad.string()),
                         doctest::Contains(std::string(bad.string()).append(":2: 'family' needs a family name, got nothing").c_str()),
                         load_error);
    std::filesystem::remove(bad);
}

TEST_CASE("mlp format: to_text refuses a network it could not read back") {
    network net = synperf::mlp::parse_mlp(tiny_text, "tiny.mlp");
    net.layers[0].bias[1] = std::numeric_limits<float>::quiet_NaN();
    CHECK_THROWS_WITH_AS((void)synperf::mlp::to_text(net), doctest::Contains("layer 1 bias value 2: not finite"),
                         synperf::invalid_argument);
    net = synperf::mlp::parse_mlp(tiny_text, "tiny.mlp");
    net.categoricals[0].levels[1] = "a";
    CHECK_THROWS_WITH_AS((void)synperf::mlp::to_text(net), doctest::Contains("categorical 'mode': duplicate level 'a'"),
                         synperf::invalid_argument);
}

TEST_CASE("mlp format: comments, blank lines, CRLF and tabs are accepted") {
    std::string text;
    for (char c : replace_line(10, "# first layer\n\n  layer\t4 2   relu  \n")) {
        if (c == '\n') text += '\r';
        text += c;
    }
    text += "\n# trailing comment\n   \n";
    check_same(synperf::mlp::parse_mlp(tiny_text, "a.mlp"), synperf::mlp::parse_mlp(text, "b.mlp"));
    // No final line break is fine too.
    check_same(synperf::mlp::parse_mlp(tiny_text, "a.mlp"),
               synperf::mlp::parse_mlp(tiny_text.substr(0, tiny_text.size() - 1), "c.mlp"));
}

TEST_CASE("mlp format: every malformed-file class is rejected with its line and cause") {
    const malformed_file cases[] = {
        // magic and version
        {"empty file", "",
         "bad.mlp: not a synperf MLP weights file: expected 'synperf-mlp' and a format version on line 1, got an empty file"},
        {"blank first line", std::string("\n").append(tiny_text), "bad.mlp:1: not a synperf MLP weights file"},
        {"wrong magic", replace_line(1, "synperf-mlx 1\n"),
         "bad.mlp:1:1: not a synperf MLP weights file: expected 'synperf-mlp' and a format version on line 1, got "
         "'synperf-mlx 1'"},
        {"newer version", replace_line(1, "synperf-mlp 3\n"),
         "bad.mlp:1:13: unsupported format version 3; this build reads versions 1 to 2"},
        {"version 0", replace_line(1, "synperf-mlp 0\n"), "bad.mlp:1:13: unsupported format version 0; this build reads versions 1 to 2"},
        {"version not a number", replace_line(1, "synperf-mlp one\n"),
         "bad.mlp:1:13: format version: expected a whole number, got 'one'"},
        {"version missing", replace_line(1, "synperf-mlp\n"), "bad.mlp:1: 'synperf-mlp' needs a format version, got nothing"},
        {"junk after version", replace_line(1, "synperf-mlp 1 x\n"), "bad.mlp:1:15: unexpected 'x' after the format version"},
        // keywords
        {"missing keyword", replace_line(2, ""), "bad.mlp:2:1: expected 'family', got 'meta' ('family' is missing or out of order)"},
        {"duplicate keyword", replace_line(3, "family tiny\n"), "bad.mlp:3:1: duplicate 'family' (first on line 2)"},
        {"unknown keyword", replace_line(2, "famly tiny\n"), "bad.mlp:2:1: unknown keyword 'famly'; expected 'family'"},
        {"misplaced meta", without_meta().insert(without_meta().find("layers"), "meta late\n"),
         "bad.mlp:8:1: 'meta' must come right after the 'family' line"},
        {"family without a name", replace_line(2, "family\n"), "bad.mlp:2: 'family' needs a family name, got nothing"},
        {"family with two names", replace_line(2, "family tiny gemm\n"), "bad.mlp:2:13: unexpected 'gemm' after a family name"},
        // counts against lines
        {"fewer features than declared", replace_line(4, "features 3\n"),
         "bad.mlp:7:1: 'features 3' on line 4 declares 3, but only 2 'feature' lines follow"},
        {"more features than declared", replace_line(4, "features 1\n"),
         "bad.mlp:6:1: 'features 1' on line 4 declares 1, but more 'feature' lines follow"},
        {"count not a number", replace_line(4, "features two\n"), "bad.mlp:4:10: features: expected a whole number, got 'two'"},
        {"negative count", replace_line(4, "features -2\n"), "bad.mlp:4:10: features: expected a whole number, got '-2'"},
        {"count over the limit", replace_line(4, "features 100000000000000000000\n"),
         "bad.mlp:4:10: features must be at most 512, got '100000000000000000000'"},
        {"duplicate feature", replace_line(6, "feature x\n"), "bad.mlp:6:9: duplicate input name 'x' (first on line 5)"},
        {"feature name with a control byte", replace_line(6, "feature y\x01\n"),
         "bad.mlp:6:9: a feature name must be printable ASCII, got 'y\\x01'"},
        {"fewer categoricals than declared", replace_line(7, "categoricals 2\n"),
         "bad.mlp:9:1: 'categoricals 2' on line 7 declares 2, but only 1 'categorical' lines follow"},
        {"more categoricals than declared", replace_line(7, "categoricals 0\n"),
         "bad.mlp:8:1: 'categoricals 0' on line 7 declares 0, but more 'categorical' lines follow"},
        {"level count differs from the list", replace_line(8, "categorical mode 3 a b\n"),
         "bad.mlp:8: categorical 'mode': declares 3 levels, lists 2"},
        {"no levels", replace_line(8, "categorical mode 0\n"), "bad.mlp:8:18: categorical 'mode' must have at least 1 level"},
        {"duplicate level", replace_line(8, "categorical mode 2 a a\n"), "bad.mlp:8:22: categorical 'mode': duplicate level 'a'"},
        {"categorical named like a feature", replace_line(8, "categorical x 2 a b\n"),
         "bad.mlp:8:13: duplicate input name 'x' (first on line 5)"},
        {"no layers", replace_line(9, "layers 0\n"), "bad.mlp:9:8: layers: a network needs at least 1 layer, got 0"},
        {"fewer layers than declared", replace_line(9, "layers 3\n"),
         "bad.mlp:17:1: 'layers 3' on line 9 declares 3, but only 2 'layer' blocks follow"},
        // layer shapes
        {"first layer does not match the input", replace_line(10, "layer 5 2 relu\n"),
         "bad.mlp:10: layer 1: input width 5 does not match the input vector width 4 (numeric features + one-hot levels)"},
        {"layers do not chain", replace_line(14, "layer 3 1 sigmoid\n"),
         "bad.mlp:14: layer 2: input width 3 does not chain from layer 1's output width 2"},
        {"last layer wider than 1", replace_line(9, "layers 1\n"),
         "bad.mlp:10: layer 1: the last layer must have output width 1 (the efficiency), got 2"},
        {"last layer not sigmoid", replace_line(14, "layer 2 1 identity\n"),
         "bad.mlp:14: layer 2: the last layer must use sigmoid (efficiency in (0, 1)), got identity"},
        {"unknown activation", replace_line(10, "layer 4 2 tanh\n"),
         "bad.mlp:10:11: layer 1: unknown activation 'tanh'; known: identity, relu, sigmoid"},
        {"width over the limit", replace_line(10, "layer 4 513 relu\n"),
         "bad.mlp:10:9: layer 1 output width must be at most 512, got '513'"},
        {"zero width", replace_line(10, "layer 4 0 relu\n"), "bad.mlp:10: layer 1: output width must be in 1..512, got 0"},
        {"layer line short", replace_line(10, "layer 4 2\n"),
         "bad.mlp:10: 'layer' needs input width, output width and activation, got 2 values"},
        // values
        {"row too short", replace_line(11, "1 0.5 2\n"), "bad.mlp:11: layer 1 row 1: expected 4 values, got 3"},
        {"row too long", replace_line(12, "-1 1 0 3 7\n"), "bad.mlp:12: layer 1 row 2: expected 4 values, got 5"},
        {"non-numeric value", replace_line(11, "1 0.5 abc -1\n"),
         "bad.mlp:11:7: layer 1 row 1 value 3: expected a number, got 'abc'"},
        {"decimal comma", replace_line(11, "1 0,5 2 -1\n"), "bad.mlp:11:3: layer 1 row 1 value 2: expected a number, got '0,5'"},
        {"NaN", replace_line(15, "nan -0.25\n"), "bad.mlp:15:1: layer 2 row 1 value 1: expected a finite number, got 'nan'"},
        {"Inf", replace_line(13, "bias 0.25 -inf\n"), "bad.mlp:13:11: layer 1 bias value 2: expected a finite number, got '-inf'"},
        {"outside float range", replace_line(12, "-1 1 1e39 3\n"),
         "bad.mlp:12:6: layer 1 row 2 value 3: '1e39' is outside the float range"},
        {"missing row", replace_line(12, ""), "bad.mlp:12:1: layer 1: expected 2 weight rows, got 1 before 'bias'"},
        {"extra row", replace_line(12, "-1 1 0 3\n-1 1 0 3\n"), "bad.mlp:13:1: layer 1: expected 2 weight rows, got more"},
        {"bias count", replace_line(13, "bias 0.25\n"), "bad.mlp:13: layer 1 bias: expected 2 values, got 1"},
        {"missing bias", replace_line(13, ""),
         "bad.mlp:13:1: expected 'bias', got 'layer' ('bias' is missing or out of order)"},
        // truncation and trailing content
        {"truncated in a row", std::string(tiny_text.substr(0, tiny_text.find("-1 1 0 3"))),
         "bad.mlp:12: unexpected end of input: expected layer 1 row 2 of 2 (the file is truncated; it must finish with 'end')"},
        {"missing end", replace_line(17, ""), "bad.mlp:17: unexpected end of input: expected 'end'"},
        {"extra layer block", replace_line(17, "layer 1 1 sigmoid\n0\nbias 0\nend\n"),
         "bad.mlp:17:1: 'layers 2' on line 9 declares 2, but more 'layer' blocks follow"},
        {"junk after end on its line", replace_line(17, "end now\n"), "bad.mlp:17:5: unexpected 'now' after 'end'"},
        {"trailing garbage", std::string(tiny_text).append("\n0.5 0.5\n"),
         "bad.mlp:19:1: unexpected content after 'end' (line 17): '0.5 0.5'"},
        {"second file appended", std::string(tiny_text).append(tiny_text),
         "bad.mlp:18:1: unexpected content after 'end' (line 17): 'synperf-mlp 1'"},
    };
    check_rejected(cases);

    // load_error carries the position separately too.
    try {
        (void)synperf::mlp::parse_mlp(replace_line(11, "1 0.5 abc -1\n"), "gemm.mlp");
        FAIL("no exception");
    } catch (const load_error& e) {
        CHECK(e.path() == "gemm.mlp");
        CHECK(e.line() == 11);
        CHECK(e.column() == 7);
    }
}

TEST_CASE("mlp format: feature ranges are optional, read and written back bit-identically") {
    // Without range lines (every file before ranges existed): no ranges.
    const network plain = synperf::mlp::parse_mlp(tiny_text, "tiny.mlp");
    CHECK(plain.feature_min.empty());
    CHECK(plain.feature_max.empty());
    CHECK(synperf::mlp::to_text(plain).find("range") == std::string::npos);

    const network net = synperf::mlp::parse_mlp(ranged_text, "ranged.mlp");
    CHECK(net.feature_min == std::vector<double>{0.0, 0.5});
    CHECK(net.feature_max == std::vector<double>{1000.0, 12345.678});
    CHECK(synperf::mlp::to_text(net) == ranged_text);
    // Ranges do not change the prediction.
    const std::vector<double> numeric{3.0, 4.0};
    const std::vector<std::size_t> level{1};
    CHECK(synperf::mlp::evaluate(net, numeric, level) == synperf::mlp::evaluate(plain, numeric, level));

    // Doubles that are hard to print and read back: signed zero, subnormals, extremes, 17 significant digits
    // (features are >= 0, so no negative bounds).
    network wide = random_network(false);
    const std::vector<double> specials{-0.0,
                                       0.0,
                                       std::numeric_limits<double>::denorm_min(),
                                       std::numeric_limits<double>::min(),
                                       0.1,
                                       1.0 / 3.0,
                                       std::nextafter(1.0, 2.0),
                                       1e300,
                                       std::numeric_limits<double>::max() / 3.0,
                                       123456789.123456789,
                                       2.0,
                                       3.0,
                                       4.0,
                                       5.0,
                                       6.0,
                                       7.0,
                                       8.0};
    REQUIRE(specials.size() == wide.feature_names.size());
    for (std::size_t i = 0; i < specials.size(); ++i) {
        const double other = i % 2 == 0 ? std::numeric_limits<double>::max() : specials[i];  // min == max is fine
        wide.feature_min.push_back(std::min(specials[i], other));
        wide.feature_max.push_back(std::max(specials[i], other));
    }
    wide.feature_min[0] = -0.0;
    wide.feature_max[0] = 0.0;
    const std::string text = synperf::mlp::to_text(wide);
    const network back = synperf::mlp::parse_mlp(text, "wide.mlp");
    check_same(wide, back);
    CHECK(synperf::mlp::to_text(back) == text);
    CHECK(text.find("feature feature_0\nrange -0 0\nfeature feature_1\n") != std::string::npos);

    // A UTF-8 byte-order mark before the magic, as some editors write, is skipped.
    check_same(net, synperf::mlp::parse_mlp("\xEF\xBB\xBF" + ranged_text, "bom.mlp"));

    // Comments and blank lines may sit between a feature and its range.
    check_same(net, synperf::mlp::parse_mlp(replace_ranged_line(6, "# trained on\n\n  range\t0   1000 \n"), "c.mlp"));
}

TEST_CASE("mlp format: malformed feature ranges are rejected with their line and cause") {
    const malformed_file cases[] = {
        {"range without values", replace_ranged_line(6, "range\n"), "bad.mlp:6: 'range' needs a minimum and a maximum, got nothing"},
        {"range with one value", replace_ranged_line(6, "range 0\n"), "bad.mlp:6: 'range' needs a minimum and a maximum, got 1 values"},
        {"range with three values", replace_ranged_line(6, "range 0 1 2\n"),
         "bad.mlp:6:11: unexpected '2' after a minimum and a maximum"},
        {"minimum not a number", replace_ranged_line(6, "range abc 1000\n"),
         "bad.mlp:6:7: feature 'x' range minimum: expected a number, got 'abc'"},
        {"maximum with a decimal comma", replace_ranged_line(8, "range 0.5 1,5\n"),
         "bad.mlp:8:11: feature 'y' range maximum: expected a number, got '1,5'"},
        {"infinite maximum", replace_ranged_line(6, "range 0 inf\n"),
         "bad.mlp:6:9: feature 'x' range maximum: expected a finite number, got 'inf'"},
        {"NaN minimum", replace_ranged_line(8, "range nan 1\n"),
         "bad.mlp:8:7: feature 'y' range minimum: expected a finite number, got 'nan'"},
        {"outside the double range", replace_ranged_line(6, "range 0 1e400\n"),
         "bad.mlp:6:9: feature 'x' range maximum: '1e400' is outside the double range"},
        {"minimum above maximum", replace_ranged_line(8, "range 5 2\n"),
         "bad.mlp:8:9: feature 'y' range: minimum 5 is greater than maximum 2"},
        {"negative minimum", replace_ranged_line(8, "range -3 -2\n"),
         "bad.mlp:8:7: feature 'y' range minimum -3 is negative (features are >= 0)"},
        {"only the first feature has a range", replace_ranged_line(8, ""),
         "bad.mlp:8: feature 'y' (line 7) has no 'range' line, but feature 'x' (line 5) has one: give every feature a range, or none"},
        {"only the second feature has a range", replace_ranged_line(6, ""),
         "bad.mlp:7:1: 'range' for feature 'y', but feature 'x' (line 5) has none: give every feature a range, or none"},
        {"two ranges for one feature", replace_ranged_line(6, "range 0 1000\nrange 0 1000\n"),
         "bad.mlp:7:1: duplicate 'range' for feature 'x' (first on line 6)"},
        {"range before the first feature", replace_ranged_line(5, "range 0 1\nfeature x\n"),
         "bad.mlp:5:1: 'range' must come right after a 'feature' line"},
        {"range after the categoricals", replace_line(8, "categorical mode 2 a b\nrange 0 1\n"),
         "bad.mlp:9:1: 'range' must come right after a 'feature' line"},
        {"range in the weights", replace_line(11, "range 0 1\n"),
         "bad.mlp:11:1: layer 1: expected 2 weight rows, got 0 before 'range'"},
        {"truncated after a range", ranged_text.substr(0, ranged_text.find("feature y")),
         "bad.mlp:7: unexpected end of input: expected 'feature' line 2 of 2"},
        {"truncated after the last range", ranged_text.substr(0, ranged_text.find("categoricals")),
         "bad.mlp:9: unexpected end of input: expected 'categoricals'"},
        {"more features than declared, with ranges", replace_ranged_line(4, "features 1\n"),
         "bad.mlp:7:1: 'features 1' on line 4 declares 1, but more 'feature' lines follow"},
    };
    check_rejected(cases);
}

TEST_CASE("mlp format: the efficiency range is optional, read and written back bit-identically") {
    const network plain = synperf::mlp::parse_mlp(tiny_text, "tiny.mlp");
    CHECK_FALSE(plain.has_efficiency_range());
    CHECK(synperf::mlp::to_text(plain).find("efficiency") == std::string::npos);
    // Line 9 of tiny_text is 'layers 2': the range goes right before it.
    const std::string text = replace_line(9, "efficiency 0.0001035 0.984375\nlayers 2\n");
    const network net = synperf::mlp::parse_mlp(text, "ranged.mlp");
    CHECK(net.has_efficiency_range());
    CHECK(net.efficiency_min == 0.0001035);
    CHECK(net.efficiency_max == 0.984375);
    CHECK(synperf::mlp::to_text(net) == text);
    check_same(net, synperf::mlp::parse_mlp(synperf::mlp::to_text(net), "back.mlp"));
    // A one-sided range is a range too.
    CHECK(synperf::mlp::parse_mlp(replace_line(9, "efficiency 1e-9 0.5\nlayers 2\n"), "m.mlp").has_efficiency_range());

    const malformed_file cases[] = {
        {"no values", replace_line(9, "efficiency\nlayers 2\n"), "bad.mlp:9: 'efficiency' needs a minimum and a maximum, got nothing"},
        {"not a number", replace_line(9, "efficiency low 1\nlayers 2\n"),
         "bad.mlp:9:12: efficiency range minimum: expected a number, got 'low'"},
        {"negative minimum", replace_line(9, "efficiency -0.5 1\nlayers 2\n"),
         "bad.mlp:9:12: efficiency range minimum -0.5 is outside [1e-9, 1]"},
        {"zero minimum", replace_line(9, "efficiency 0 0.5\nlayers 2\n"),
         "bad.mlp:9:12: efficiency range minimum 0 is outside [1e-9, 1]"},
        {"subnormal minimum", replace_line(9, "efficiency 5e-324 0.5\nlayers 2\n"),
         "bad.mlp:9:12: efficiency range minimum 5e-324 is outside [1e-9, 1]"},
        {"maximum above 1", replace_line(9, "efficiency 0.1 1.5\nlayers 2\n"),
         "bad.mlp:9:16: efficiency range maximum 1.5 is outside (0, 1]"},
        {"zero maximum", replace_line(9, "efficiency 0.1 0\nlayers 2\n"), "bad.mlp:9:16: efficiency range maximum 0 is outside (0, 1]"},
        {"minimum above maximum", replace_line(9, "efficiency 0.5 0.25\nlayers 2\n"),
         "bad.mlp:9:16: efficiency range: minimum 0.5 is greater than maximum 0.25"},
        {"NaN", replace_line(9, "efficiency nan 1\nlayers 2\n"),
         "bad.mlp:9:12: efficiency range minimum: expected a finite number, got 'nan'"},
        {"twice", replace_line(9, "efficiency 0.1 1\nefficiency 0.1 1\nlayers 2\n"),
         "bad.mlp:10:1: duplicate 'efficiency' (first on line 9)"},
        {"before the categoricals", replace_line(7, "efficiency 0.1 1\ncategoricals 1\n"),
         "bad.mlp:7:1: 'efficiency' must come right before 'layers'"},
        {"after the layers", replace_line(17, "efficiency 0.1 1\nend\n"),
         "bad.mlp:17:1: 'efficiency' must come right before 'layers'"},
        {"truncated after it", std::string(tiny_text.substr(0, tiny_text.find("layers"))) + "efficiency 0.1 1\n",
         "bad.mlp:10: unexpected end of input: expected 'layers'"},
    };
    check_rejected(cases);
}

TEST_CASE("mlp format: the trained kernel kinds are optional, read and written back") {
    const network plain = synperf::mlp::parse_mlp(tiny_text, "tiny.mlp");
    CHECK_FALSE(plain.trained_kernels.has_value());
    CHECK(synperf::mlp::to_text(plain).find("kernels") == std::string::npos);
    // Line 4 of tiny_text is 'features 2': the kinds go right after 'meta' (line 3).
    const std::string text = replace_line(4, "kernels store_cache torch_fp8_cast\nfeatures 2\n");
    const network net = synperf::mlp::parse_mlp(text, "kinds.mlp");
    REQUIRE(net.trained_kernels.has_value());
    CHECK(*net.trained_kernels == std::vector<std::string>{"store_cache", "torch_fp8_cast"});
    CHECK(synperf::mlp::to_text(net) == text);
    check_same(net, synperf::mlp::parse_mlp(synperf::mlp::to_text(net), "back.mlp"));
    // Recorded and empty (the training ops ran no auxiliary kernel) differs from not recorded.
    const network none = synperf::mlp::parse_mlp(replace_line(4, "kernels\nfeatures 2\n"), "none.mlp");
    REQUIRE(none.trained_kernels.has_value());
    CHECK(none.trained_kernels->empty());
    CHECK(synperf::mlp::to_text(none).find("\nkernels\nfeatures") != std::string::npos);
    // Without a meta line the kinds follow 'family'.
    CHECK(synperf::mlp::parse_mlp(replace_line(3, "kernels a\n"), "m.mlp").trained_kernels == std::vector<std::string>{"a"});

    const malformed_file cases[] = {
        {"a kind twice", replace_line(4, "kernels a b a\nfeatures 2\n"), "bad.mlp:4:13: duplicate kernel kind 'a'"},
        {"a control byte", replace_line(4, "kernels a\x02\nfeatures 2\n"),
         "bad.mlp:4:9: a kernel kind must be printable ASCII, got 'a\\x02'"},
        {"twice", replace_line(4, "kernels a\nkernels b\nfeatures 2\n"), "bad.mlp:5:1: duplicate 'kernels' (first on line 4)"},
        {"before meta", replace_line(3, "kernels a\nmeta late\n"), "bad.mlp:4:1: 'meta' must come right after the 'family' line"},
        {"after the features", replace_line(7, "kernels a\ncategoricals 1\n"),
         "bad.mlp:7:1: 'kernels' must come right after the 'family' line, or after 'meta'"},
    };
    check_rejected(cases);
}

TEST_CASE("mlp validate: trained kernel kinds are unique words") {
    network net = synperf::mlp::parse_mlp(tiny_text, "tiny.mlp");
    net.trained_kernels = std::vector<std::string>{"store_cache", "store_cache"};
    CHECK_THROWS_WITH_AS(synperf::mlp::validate(net), doctest::Contains("duplicate trained kernel kind 'store_cache'"),
                         synperf::invalid_argument);
    net.trained_kernels = std::vector<std::string>{"two words"};
    CHECK_THROWS_WITH_AS(synperf::mlp::validate(net), doctest::Contains("must be a non-empty word without spaces"),
                         synperf::invalid_argument);
    net.trained_kernels = std::vector<std::string>{};
    CHECK_NOTHROW(synperf::mlp::validate(net));
}

TEST_CASE("mlp validate: feature ranges are both absent or one finite min <= max pair per feature") {
    const network good = synperf::mlp::parse_mlp(ranged_text, "ranged.mlp");
    CHECK_NOTHROW(synperf::mlp::validate(good));
    struct bad_case {
        std::string what;
        std::vector<double> min, max;
        const char* message;
    };
    const double inf = std::numeric_limits<double>::infinity();
    const bad_case cases[] = {
        {"minima only", {0.0, 0.0}, {}, "synperf: mlp 'tiny': feature ranges: feature_min has 2 values and feature_max 0; both must be empty or hold one per numeric feature (2)"},
        {"one pair short", {0.0}, {1.0}, "feature ranges: feature_min has 1 values and feature_max 1; both must be empty or hold one per numeric feature (2)"},
        {"infinite maximum", {0.0, 0.0}, {1.0, inf}, "synperf: mlp 'tiny': feature 'y': range bounds must be finite, got 0 .. inf"},
        {"NaN minimum", {std::numeric_limits<double>::quiet_NaN(), 0.0}, {1.0, 1.0}, "feature 'x': range bounds must be finite, got nan .. 1"},
        {"minimum above maximum", {0.0, 3.0}, {1.0, 2.5}, "synperf: mlp 'tiny': feature 'y': range minimum 3 is greater than maximum 2.5"},
        {"negative minimum", {0.0, -1.0}, {1.0, 2.5}, "synperf: mlp 'tiny': feature 'y': range minimum -1 is negative (features are >= 0)"},
    };
    for (const auto& c : cases) {
        CAPTURE(c.what);
        network net = good;
        net.feature_min = c.min;
        net.feature_max = c.max;
        CHECK_THROWS_WITH_AS(synperf::mlp::validate(net), doctest::Contains(c.message), synperf::invalid_argument);
        CHECK_THROWS_AS((void)synperf::mlp::to_text(net), synperf::invalid_argument);
    }
}

TEST_CASE("mlp format: the embedded test model equals the parsed file and is parsed once") {
    const network& embedded = synperf::models::tiny();
    check_same(embedded, synperf::mlp::load_mlp(tiny_path));
    CHECK(&synperf::models::tiny() == &embedded);
}

TEST_CASE("mlp check_compatible: refuses another family or another feature list") {
    const network net = synperf::mlp::parse_mlp(tiny_text, "tiny.mlp");
    const std::vector<std::string_view> same{"x", "y"};
    CHECK_NOTHROW(synperf::mlp::check_compatible(net, "tiny", same, "tiny.mlp"));

    CHECK_THROWS_WITH_AS(synperf::mlp::check_compatible(net, "gemm", same, "tiny.mlp"),
                         doctest::Contains("synperf: tiny.mlp: weights are for family 'tiny', expected 'gemm'"), load_error);
    const std::vector<std::string_view> renamed{"x", "z"};
    CHECK_THROWS_WITH_AS(synperf::mlp::check_compatible(net, "tiny", renamed, "tiny.mlp"),
                         doctest::Contains("weights use 2 features, family 'tiny' computes 2; feature 2 is 'y' in the weights, 'z' expected"),
                         load_error);
    const std::vector<std::string_view> more{"x", "y", "w"};
    CHECK_THROWS_WITH_AS(synperf::mlp::check_compatible(net, "tiny", more, "tiny.mlp"),
                         doctest::Contains("feature 3 is '(none)' in the weights, 'w' expected"), load_error);
    const std::vector<std::string_view> fewer{"x"};
    CHECK_THROWS_WITH_AS(synperf::mlp::check_compatible(net, "tiny", fewer, "tiny.mlp"),
                         doctest::Contains("feature 2 is 'y' in the weights, '(none)' expected"), load_error);
    const std::vector<std::string_view> reordered{"y", "x"};
    CHECK_THROWS_AS(synperf::mlp::check_compatible(net, "tiny", reordered, "tiny.mlp"), load_error);
}

TEST_CASE("mlp check_compatible: framework levels must match by name and order") {
    const network net = synperf::mlp::parse_mlp(tiny_text, "tiny.mlp");
    const std::vector<std::string_view> features{"x", "y"};
    const std::vector<std::string_view> levels{"a", "b"};
    CHECK_NOTHROW(synperf::mlp::check_compatible(net, "tiny", features, "tiny.mlp", levels));
    const std::vector<std::string_view> swapped{"b", "a"};
    CHECK_THROWS_WITH_AS(synperf::mlp::check_compatible(net, "tiny", features, "tiny.mlp", swapped),
                         doctest::Contains("tiny.mlp: weights have framework levels 'a b', family 'tiny' expects 'b a'"), load_error);
    const std::vector<std::string_view> renamed{"a", "c"};
    CHECK_THROWS_AS(synperf::mlp::check_compatible(net, "tiny", features, "tiny.mlp", renamed), load_error);
    const std::vector<std::string_view> more{"a", "b", "c"};
    CHECK_THROWS_AS(synperf::mlp::check_compatible(net, "tiny", features, "tiny.mlp", more), load_error);
}
