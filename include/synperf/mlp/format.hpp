// SPDX-License-Identifier: Apache-2.0
#pragma once
/// \file The text weights format of an efficiency MLP (docs/weights-format.md): parse, load, write, save.
#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstddef>
#include <cstdio>
#include <cstring>
#include <span>
#include <string>
#include <string_view>
#include <system_error>
#include <type_traits>
#include <utility>
#include <vector>

#include "synperf/cost/concept.hpp"
#include "synperf/detail/regular_file.hpp"
#include "synperf/error.hpp"
#include "synperf/mlp/network.hpp"
#include "synperf/mlp/validate.hpp"

namespace synperf::mlp {

/// First word of every weights file.
inline constexpr std::string_view format_magic = "synperf-mlp";
/// The newest format version this build reads and writes: 2 adds ensembles (`members`). A single network is
/// written as version 1, which every build reads.
inline constexpr std::size_t format_version = 2;

namespace detail {

/// One whitespace-separated word of a line and its 1-based column.
struct token {
    std::string_view text;
    std::size_t column = 0;
};

/// A line that is neither blank nor a comment, split into tokens.
struct text_line {
    std::size_t number = 0;
    std::string_view text;  ///< without the line break and a trailing '\r'
    std::vector<token> tokens;
};

/// Quotes a token for a message: at most 40 characters, control and non-ASCII bytes as \xNN.
[[nodiscard]] inline std::string quoted(std::string_view s) {
    constexpr std::size_t shown = 40;
    std::string q = "'";
    for (std::size_t i = 0; i < s.size() && i < shown; ++i) {
        const auto c = static_cast<unsigned char>(s[i]);
        if (c >= 0x20 && c < 0x7f) {
            q += static_cast<char>(c);
        } else {
            constexpr char hex[] = "0123456789abcdef";
            q += "\\x";
            q += hex[c >> 4];
            q += hex[c & 0xf];
        }
    }
    if (s.size() > shown) q += "...";
    return q + "'";
}

enum class keyword {
    magic, family, meta, kernels, features, feature, range, categoricals, categorical, efficiency, members, layers, layer,
    bias, end, none
};

inline constexpr std::string_view keyword_names[] = {
    "synperf-mlp", "family", "meta",  "kernels", "features", "feature", "range", "categoricals", "categorical",
    "efficiency",  "members", "layers", "layer", "bias", "end"};
static_assert(std::size(keyword_names) == static_cast<std::size_t>(keyword::none));

[[nodiscard]] constexpr keyword keyword_of(std::string_view word) noexcept {
    for (std::size_t k = 0; k < std::size(keyword_names); ++k)
        if (keyword_names[k] == word) return static_cast<keyword>(k);
    return keyword::none;
}

/// Keywords that appear once per file: a second one is reported as a duplicate.
[[nodiscard]] constexpr bool is_singleton(keyword k) noexcept {
    return k == keyword::magic || k == keyword::family || k == keyword::meta || k == keyword::kernels ||
           k == keyword::features || k == keyword::categoricals || k == keyword::efficiency || k == keyword::members ||
           k == keyword::layers || k == keyword::end;
}

/// Recursive-descent reader of the weights format; everything is parsed into locals and the network is
/// assembled only after the `end` line has been checked.
class mlp_parser {
public:
    mlp_parser(std::string_view text, std::string_view source) : text_(text), source_(source) {}

    network run() {
        read_magic();
        network net;
        next_or_eof("'family'");
        expect_keyword(keyword::family);
        net.family = std::string(word_arg("family", "a family name"));

        next_or_eof("'features'");
        if (keyword_of(first()) == keyword::meta) {
            seen_[index(keyword::meta)] = line_.number;
            net.meta = meta_text();
            next_or_eof("'features'");
        }
        if (keyword_of(first()) == keyword::kernels) {
            seen_[index(keyword::kernels)] = line_.number;
            net.trained_kernels = kernel_kinds();
            next_or_eof("'features'");
        }
        read_features(net);
        read_categoricals(net);
        read_efficiency_range(net);
        read_members(net);
        // after the last layer: the current line must be `end`, then only blank lines and comments
        expect_keyword(keyword::end);
        no_args("end");
        const std::size_t end_line = line_.number;
        if (next())
            fail(1, cat("unexpected content after 'end' (line ", end_line, "): ", quoted(line_.text)));
        return net;
    }

private:
    // ---- line reading

    /// Reads the next line that is not blank and not a comment; false at the end of input.
    bool next() {
        while (pos_ < text_.size()) {
            const std::size_t nl = text_.find('\n', pos_);
            std::string_view raw = text_.substr(pos_, nl == std::string_view::npos ? std::string_view::npos : nl - pos_);
            pos_ = nl == std::string_view::npos ? text_.size() : nl + 1;
            ++physical_line_;
            if (!raw.empty() && raw.back() == '\r') raw.remove_suffix(1);
            line_.number = physical_line_;
            line_.text = raw;
            line_.tokens.clear();
            for (std::size_t i = 0; i < raw.size();) {
                if (raw[i] == ' ' || raw[i] == '\t') {
                    ++i;
                    continue;
                }
                std::size_t j = i;
                while (j < raw.size() && raw[j] != ' ' && raw[j] != '\t') ++j;
                line_.tokens.push_back({raw.substr(i, j - i), i + 1});
                i = j;
            }
            if (line_.tokens.empty() || line_.tokens.front().text.front() == '#') continue;
            return true;
        }
        return false;
    }

    void next_or_eof(std::string_view expected) {
        next_or_eof([expected] { return std::string(expected); });
    }

    /// `expected()` builds the description only when the input ends: the weight rows call this once per row.
    template <class Expected>
        requires std::is_invocable_r_v<std::string, const Expected&>
    void next_or_eof(const Expected& expected) {
        if (!next()) {
            // The line where the missing content would start.
            std::size_t line = 1;
            for (char c : text_) line += c == '\n';
            throw load_error(std::string(source_), line, 0,
                             cat("unexpected end of input: expected ", expected(),
                                 " (the file is truncated; it must finish with 'end')"));
        }
    }

    template <class... Parts>
    [[noreturn]] void fail(std::size_t column, const Parts&... what) const {
        throw load_error(std::string(source_), line_.number, column, cat(what...));
    }

    [[nodiscard]] std::string_view first() const { return line_.tokens.front().text; }
    [[nodiscard]] static std::size_t index(keyword k) { return static_cast<std::size_t>(k); }

    /// The current line must start with `k`; otherwise says whether `k` is missing, the line a duplicate, or
    /// its first word unknown.
    void expect_keyword(keyword k) {
        const std::string_view name = keyword_names[index(k)];
        const std::string_view word = first();
        const keyword found = keyword_of(word);
        if (found == k) {
            if (is_singleton(k)) seen_[index(k)] = line_.number;
            return;
        }
        reject_misplaced(found);
        if (found != keyword::none) fail(1, "expected '", name, "', got '", word, "' ('", name, "' is missing or out of order)");
        if (looks_numeric(word)) fail(1, "expected '", name, "', got a row of numbers");
        fail(1, "unknown keyword ", quoted(word), "; expected '", name, "'");
    }

    /// Reports a keyword that can never be right where it is: a repeated one-per-file keyword, a late 'meta',
    /// or a 'range' that does not follow a 'feature' line.
    void reject_misplaced(keyword found) {
        if (found == keyword::none) return;
        if (found == keyword::range) fail(1, "'range' must come right after a 'feature' line");
        if (is_singleton(found) && seen_[index(found)] != 0)
            fail(1, "duplicate '", first(), "' (first on line ", seen_[index(found)], ")");
        if (found == keyword::meta && seen_[index(keyword::family)] != 0)
            fail(1, "'meta' must come right after the 'family' line");
        if (found == keyword::kernels) fail(1, "'kernels' must come right after the 'family' line, or after 'meta'");
        if (found == keyword::efficiency) fail(1, "'efficiency' must come right before 'layers' (or 'members')");
    }

    [[nodiscard]] static bool looks_numeric(std::string_view w) noexcept {
        const char c = w.front();
        return (c >= '0' && c <= '9') || c == '-' || c == '+' || c == '.';
    }

    /// The current line must be the keyword plus exactly `n` arguments.
    void require_args(std::string_view kw, std::size_t n, std::string_view what) {
        const std::size_t got = line_.tokens.size() - 1;
        if (got < n) fail(0, "'", kw, "' needs ", what, ", got ", got == 0 ? std::string("nothing") : cat(got, " values"));
        if (got > n) fail(line_.tokens[n + 1].column, "unexpected ", quoted(line_.tokens[n + 1].text), " after ", what);
    }

    void no_args(std::string_view kw) {
        if (line_.tokens.size() > 1)
            fail(line_.tokens[1].column, "unexpected ", quoted(line_.tokens[1].text), " after '", kw, "'");
    }

    [[nodiscard]] std::string_view word_arg(std::string_view kw, std::string_view what) {
        require_args(kw, 1, what);
        return checked_word(line_.tokens[1], what);
    }

    [[nodiscard]] std::string_view checked_word(const token& t, std::string_view what) {
        if (!is_word(t.text)) fail(t.column, what, " must be printable ASCII, got ", quoted(t.text));
        return t.text;
    }

    /// Everything after `meta`, trimmed: free text, may be empty.
    [[nodiscard]] std::string meta_text() const {
        std::string_view rest = line_.text.substr(line_.tokens.front().column - 1 + 4);
        while (!rest.empty() && (rest.front() == ' ' || rest.front() == '\t')) rest.remove_prefix(1);
        while (!rest.empty() && (rest.back() == ' ' || rest.back() == '\t')) rest.remove_suffix(1);
        return std::string(rest);
    }

    /// The words after `kernels`: the kinds of auxiliary kernel the training ops ran (none is fine), each once.
    [[nodiscard]] std::vector<std::string> kernel_kinds() {
        std::vector<std::string> kinds;
        for (std::size_t i = 1; i < line_.tokens.size(); ++i) {
            const token& t = line_.tokens[i];
            const std::string_view kind = checked_word(t, "a kernel kind");
            for (const auto& prev : kinds)
                if (prev == kind) fail(t.column, "duplicate kernel kind '", kind, "'");
            kinds.emplace_back(kind);
        }
        return kinds;
    }

    [[nodiscard]] std::size_t parse_count(const token& t, std::string_view what, std::size_t limit) {
        std::size_t v = 0;
        const char* b = t.text.data();
        const char* e = b + t.text.size();
        const auto r = std::from_chars(b, e, v);
        if (r.ec == std::errc::result_out_of_range || (r.ec == std::errc{} && r.ptr == e && v > limit))
            fail(t.column, what, " must be at most ", limit, ", got ", quoted(t.text));
        if (r.ec != std::errc{} || r.ptr != e) fail(t.column, what, ": expected a whole number, got ", quoted(t.text));
        return v;
    }

    /// A weight or bias: `context()` names it, and is called only for a message, since a file holds tens of
    /// thousands of values and building each one's name took most of the parse.
    template <class Context>
    [[nodiscard]] float parse_value(const token& t, const Context& context) {
        float v = 0;
        const char* b = t.text.data();
        const char* e = b + t.text.size();
        const auto r = std::from_chars(b, e, v, std::chars_format::general);
        if (r.ec == std::errc::result_out_of_range && r.ptr == e)
            fail(t.column, context(), ": ", quoted(t.text), " is outside the float range");
        if (r.ec != std::errc{} || r.ptr != e) fail(t.column, context(), ": expected a number, got ", quoted(t.text));
        if (!std::isfinite(v)) fail(t.column, context(), ": expected a finite number, got ", quoted(t.text));
        return v;
    }

    [[nodiscard]] double parse_double(const token& t, std::string_view context) {
        double v = 0;
        const char* b = t.text.data();
        const char* e = b + t.text.size();
        const auto r = std::from_chars(b, e, v, std::chars_format::general);
        if (r.ec == std::errc::result_out_of_range && r.ptr == e)
            fail(t.column, context, ": ", quoted(t.text), " is outside the double range");
        if (r.ec != std::errc{} || r.ptr != e) fail(t.column, context, ": expected a number, got ", quoted(t.text));
        if (!std::isfinite(v)) fail(t.column, context, ": expected a finite number, got ", quoted(t.text));
        return v;
    }

    // ---- sections

    void read_magic() {
        const bool any = next();
        if (!any || line_.number != 1) {
            line_.number = any ? 1 : 0;
            fail(0, "not a synperf MLP weights file: expected '", format_magic, "' and a format version on line 1, got ",
                 line_.number == 0 ? "an empty file" : "a blank line or comment");
        }
        if (first() != format_magic)
            fail(1, "not a synperf MLP weights file: expected '", format_magic, "' and a format version on line 1, got ",
                 quoted(line_.text));
        seen_[index(keyword::magic)] = 1;
        if (line_.tokens.size() < 2) fail(0, "'", format_magic, "' needs a format version, got nothing");
        const token& t = line_.tokens[1];
        std::size_t version = 0;
        const auto r = std::from_chars(t.text.data(), t.text.data() + t.text.size(), version);
        if (r.ec != std::errc{} || r.ptr != t.text.data() + t.text.size())
            fail(t.column, "format version: expected a whole number, got ", quoted(t.text));
        if (version < 1 || version > format_version)
            fail(t.column, "unsupported format version ", version, "; this build reads versions 1 to ", format_version);
        version_ = version;
        if (line_.tokens.size() > 2)
            fail(line_.tokens[2].column, "unexpected ", quoted(line_.tokens[2].text), " after the format version");
    }

    /// Marks an input name as used; input names label the columns of the input vector, so they must be unique.
    void claim_input_name(const token& t) {
        for (const auto& [name, line] : input_names_)
            if (name == t.text) fail(t.column, "duplicate input name '", t.text, "' (first on line ", line, ")");
        input_names_.emplace_back(t.text, line_.number);
    }

    /// Reads `features N`, then N `feature` lines, each optionally followed by its `range` line; either every
    /// feature has a range or none has. Leaves the line after the last of them current.
    void read_features(network& net) {
        expect_keyword(keyword::features);
        require_args("features", 1, "a count");
        const std::size_t declared = parse_count(line_.tokens[1], "features", max_width);
        const std::size_t declared_on = line_.number;
        std::vector<std::string> names;
        std::vector<double> mins;
        std::vector<double> maxs;
        bool ranged = false;  // whether feature 1 has a range: every other feature must agree
        std::size_t first_on = 0;
        auto due = [&](std::size_t i) { return i <= declared ? cat("'feature' line ", i, " of ", declared) : cat("'categoricals'"); };
        next_or_eof(due(1));
        for (std::size_t i = 1; i <= declared; ++i) {
            if (keyword_of(first()) != keyword::feature) {
                reject_misplaced(keyword_of(first()));
                if (keyword_of(first()) != keyword::none)
                    fail(1, "'features ", declared, "' on line ", declared_on, " declares ", declared, ", but only ", i - 1,
                         " 'feature' lines follow");
                expect_keyword(keyword::feature);
            }
            const std::string name(word_arg("feature", "a feature name"));
            claim_input_name(line_.tokens[1]);
            const std::size_t feature_on = line_.number;
            names.push_back(name);
            next_or_eof(due(i + 1));
            const bool has_range = keyword_of(first()) == keyword::range;
            if (i == 1) {
                ranged = has_range;
                first_on = feature_on;
            } else if (has_range && !ranged) {
                fail(1, "'range' for feature '", name, "', but feature '", names.front(), "' (line ", first_on,
                     ") has none: give every feature a range, or none");
            } else if (!has_range && ranged) {
                fail(0, "feature '", name, "' (line ", feature_on, ") has no 'range' line, but feature '", names.front(),
                     "' (line ", first_on, ") has one: give every feature a range, or none");
            }
            if (!has_range) continue;
            require_args("range", 2, "a minimum and a maximum");
            const double lo = parse_double(line_.tokens[1], cat("feature '", name, "' range minimum"));
            const double hi = parse_double(line_.tokens[2], cat("feature '", name, "' range maximum"));
            if (lo < 0.0) fail(line_.tokens[1].column, "feature '", name, "' range minimum ", lo, " is negative (features are >= 0)");
            if (lo > hi)
                fail(line_.tokens[2].column, "feature '", name, "' range: minimum ", lo, " is greater than maximum ", hi);
            mins.push_back(lo);
            maxs.push_back(hi);
            const std::size_t range_on = line_.number;
            next_or_eof(due(i + 1));
            if (keyword_of(first()) == keyword::range)
                fail(1, "duplicate 'range' for feature '", name, "' (first on line ", range_on, ")");
        }
        if (keyword_of(first()) == keyword::feature)
            fail(1, "'features ", declared, "' on line ", declared_on, " declares ", declared,
                 ", but more 'feature' lines follow");
        net.feature_names = std::move(names);
        net.feature_min = std::move(mins);
        net.feature_max = std::move(maxs);
    }

    void read_categoricals(network& net) {
        expect_keyword(keyword::categoricals);
        require_args("categoricals", 1, "a count");
        const std::size_t declared = parse_count(line_.tokens[1], "categoricals", max_width);
        const std::size_t declared_on = line_.number;
        std::vector<categorical_input> inputs;
        for (std::size_t i = 1; i <= declared; ++i) {
            next_or_eof(cat("'categorical' line ", i, " of ", declared));
            if (keyword_of(first()) != keyword::categorical) {
                reject_misplaced(keyword_of(first()));
                if (keyword_of(first()) != keyword::none)
                    fail(1, "'categoricals ", declared, "' on line ", declared_on, " declares ", declared, ", but only ",
                         i - 1, " 'categorical' lines follow");
                expect_keyword(keyword::categorical);
            }
            if (line_.tokens.size() < 3) fail(0, "'categorical' needs a name, a level count and the levels");
            categorical_input input;
            input.name = std::string(checked_word(line_.tokens[1], "a categorical name"));
            claim_input_name(line_.tokens[1]);
            const std::size_t levels = parse_count(line_.tokens[2], cat("categorical '", input.name, "' level count"), max_width);
            if (levels == 0) fail(line_.tokens[2].column, "categorical '", input.name, "' must have at least 1 level");
            const std::size_t listed = line_.tokens.size() - 3;
            if (listed != levels)
                fail(0, "categorical '", input.name, "': declares ", levels, " levels, lists ", listed);
            for (std::size_t l = 0; l < levels; ++l) {
                const token& t = line_.tokens[3 + l];
                const std::string_view level = checked_word(t, "a level name");
                for (const auto& prev : input.levels)
                    if (prev == level) fail(t.column, "categorical '", input.name, "': duplicate level '", level, "'");
                input.levels.emplace_back(level);
            }
            inputs.push_back(std::move(input));
        }
        next_or_eof("'layers'");
        if (keyword_of(first()) == keyword::categorical)
            fail(1, "'categoricals ", declared, "' on line ", declared_on, " declares ", declared,
                 ", but more 'categorical' lines follow");
        net.categoricals = std::move(inputs);
    }

    /// Reads the optional `efficiency <min> <max>` line (the training rows' efficiency range) before `layers`.
    void read_efficiency_range(network& net) {
        if (keyword_of(first()) != keyword::efficiency) return;
        seen_[index(keyword::efficiency)] = line_.number;
        require_args("efficiency", 2, "a minimum and a maximum");
        const double lo = parse_double(line_.tokens[1], "efficiency range minimum");
        const double hi = parse_double(line_.tokens[2], "efficiency range maximum");
        if (!(lo >= cost::min_credible_efficiency && lo <= 1.0)) fail(line_.tokens[1].column, "efficiency range minimum ", lo, " is outside [1e-9, 1]");
        if (!(hi > 0.0 && hi <= 1.0)) fail(line_.tokens[2].column, "efficiency range maximum ", hi, " is outside (0, 1]");
        if (lo > hi) fail(line_.tokens[2].column, "efficiency range: minimum ", lo, " is greater than maximum ", hi);
        net.efficiency_min = lo;
        net.efficiency_max = hi;
        next_or_eof("'layers'");
    }

    [[nodiscard]] static activation parse_activation_name(std::string_view s, bool& ok) noexcept {
        ok = true;
        for (auto a : {activation::identity, activation::relu, activation::sigmoid})
            if (activation_name(a) == s) return a;
        ok = false;
        return activation::identity;
    }

    /// Reads one network's layers, or `members N` and N of them (an ensemble, format version 2 on).
    void read_members(network& net) {
        std::size_t members = 1;
        if (keyword_of(first()) == keyword::members) {
            seen_[index(keyword::members)] = line_.number;
            require_args("members", 1, "a count");
            const token& count_token = line_.tokens[1];
            if (version_ < 2)
                fail(1, "'members' needs format version 2 or later; line 1 declares version ", version_);
            members = parse_count(count_token, "members", max_members);
            if (members < 2) fail(count_token.column, "members: an ensemble needs at least 2 members, got ", members);
            next_or_eof("'layers'");
        }
        const std::size_t declared_on = seen_[index(keyword::members)];
        for (std::size_t m = 1; m <= members; ++m) {
            if (m > 1 && keyword_of(first()) == keyword::end)
                fail(1, "'members ", members, "' on line ", declared_on, " declares ", members, ", but only ", m - 1,
                     " 'layers' blocks follow");
            seen_[index(keyword::layers)] = 0;  // one 'layers' per member
            std::vector<dense_layer> layers = read_layers(net.input_width(), m < members ? "'layers'" : "'end'");
            (m == 1 ? net.layers : net.further_members.emplace_back()) = std::move(layers);
        }
        if (members > 1 && keyword_of(first()) == keyword::layers)
            fail(1, "'members ", members, "' on line ", declared_on, " declares ", members, ", but more 'layers' blocks follow");
    }

    /// Reads `layers N` and its N layer blocks; leaves the line after them current (`next` names it in the
    /// message when the input ends there).
    [[nodiscard]] std::vector<dense_layer> read_layers(std::size_t input_width, std::string_view next) {
        expect_keyword(keyword::layers);
        require_args("layers", 1, "a count");
        const token count_token = line_.tokens[1];
        const std::size_t declared = parse_count(count_token, "layers", std::size_t{1} << 20);
        if (declared == 0) fail(count_token.column, "layers: a network needs at least 1 layer, got 0");
        const std::size_t declared_on = line_.number;
        std::vector<dense_layer> layers;
        std::size_t width = input_width;
        for (std::size_t li = 1; li <= declared; ++li) {
            next_or_eof(cat("'layer' ", li, " of ", declared));
            if (keyword_of(first()) != keyword::layer) {
                reject_misplaced(keyword_of(first()));
                if (keyword_of(first()) != keyword::none && keyword_of(first()) != keyword::bias)
                    fail(1, "'layers ", declared, "' on line ", declared_on, " declares ", declared, ", but only ", li - 1,
                         " 'layer' blocks follow");
                expect_keyword(keyword::layer);
            }
            require_args("layer", 3, "input width, output width and activation");
            dense_layer layer;
            layer.in = parse_count(line_.tokens[1], cat("layer ", li, " input width"), max_width);
            layer.out = parse_count(line_.tokens[2], cat("layer ", li, " output width"), max_width);
            bool ok = false;
            layer.act = parse_activation_name(line_.tokens[3].text, ok);
            if (!ok)
                fail(line_.tokens[3].column, "layer ", li, ": unknown activation ", quoted(line_.tokens[3].text),
                     "; known: identity, relu, sigmoid");
            if (auto p = layer_shape_problem(li, declared, layer.in, layer.out, layer.act, width); !p.empty()) fail(0, p);
            width = layer.out;

            layer.weights.reserve(layer.in * layer.out);
            for (std::size_t row = 1; row <= layer.out; ++row) {
                next_or_eof([&] { return cat("layer ", li, " row ", row, " of ", layer.out); });
                if (keyword_of(first()) != keyword::none)
                    fail(1, "layer ", li, ": expected ", layer.out, " weight rows, got ", row - 1, " before '", first(), "'");
                if (line_.tokens.size() != layer.in)
                    fail(0, "layer ", li, " row ", row, ": expected ", layer.in, " values, got ", line_.tokens.size());
                for (std::size_t c = 0; c < layer.in; ++c)
                    layer.weights.push_back(parse_value(line_.tokens[c], [&] { return cat("layer ", li, " row ", row, " value ", c + 1); }));
            }
            next_or_eof(cat("'bias' of layer ", li));
            if (keyword_of(first()) == keyword::none && looks_numeric(first()))
                fail(1, "layer ", li, ": expected ", layer.out, " weight rows, got more");
            expect_keyword(keyword::bias);
            if (line_.tokens.size() - 1 != layer.out)
                fail(0, "layer ", li, " bias: expected ", layer.out, " values, got ", line_.tokens.size() - 1);
            layer.bias.reserve(layer.out);
            for (std::size_t c = 1; c <= layer.out; ++c)
                layer.bias.push_back(parse_value(line_.tokens[c], [&] { return cat("layer ", li, " bias value ", c); }));
            layers.push_back(std::move(layer));
        }
        next_or_eof(next);
        if (keyword_of(first()) == keyword::layer)
            fail(1, "'layers ", declared, "' on line ", declared_on, " declares ", declared,
                 ", but more 'layer' blocks follow");
        return layers;
    }

    std::string_view text_;
    std::string_view source_;
    std::size_t pos_ = 0;
    std::size_t physical_line_ = 0;
    text_line line_;
    std::size_t seen_[std::size(keyword_names)] = {};  // line of each singleton keyword, 0 = not yet
    std::size_t version_ = 0;                           // the format version line 1 declares
    std::vector<std::pair<std::string_view, std::size_t>> input_names_;
};

inline void append_value(std::string& s, float v) {
    char buf[32];
    s.append(buf, std::to_chars(buf, buf + sizeof buf, v).ptr);
}

/// Writes one member: `layers N` and its layer blocks.
inline void append_layers(std::string& s, const std::vector<dense_layer>& layers) {
    s += cat("layers ", layers.size(), "\n");
    for (const auto& l : layers) {
        s += cat("layer ", l.in, " ", l.out, " ", activation_name(l.act), "\n");
        for (std::size_t r = 0; r < l.out; ++r) {
            for (std::size_t c = 0; c < l.in; ++c) {
                if (c != 0) s += ' ';
                append_value(s, l.weights[r * l.in + c]);
            }
            s += '\n';
        }
        s += "bias";
        for (float b : l.bias) {
            s += ' ';
            append_value(s, b);
        }
        s += '\n';
    }
}

[[noreturn]] inline void report_io(const std::string& path, std::string_view what, int err) {
    throw load_error(path, 0, 0, cat(what, ": ", std::strerror(err)));
}

}  // namespace detail

/// Parses a weights file held in memory; `source_name` labels error messages ("gemm.mlp").
///
/// Throws `load_error` (source, line, column, cause) for anything that is not a well-formed file of version 1 or 2:
/// see docs/weights-format.md for the grammar and every message. The network is built only once the whole
/// text has been checked.
[[nodiscard]] inline network parse_mlp(std::string_view text, std::string_view source_name) {
    if (text.starts_with("\xEF\xBB\xBF")) text.remove_prefix(3);  // a UTF-8 byte-order mark, as some editors write
    return detail::mlp_parser(text, source_name).run();
}

/// Reads and parses the weights file at `path`; I/O errors name the path and the system's reason.
[[nodiscard]] inline network load_mlp(const std::string& path) {
    synperf::detail::require_regular_file(path, "weights file");
    std::FILE* f = std::fopen(path.c_str(), "rb");
    if (f == nullptr) detail::report_io(path, "cannot open for reading", errno);
    std::string text;
    char buf[1 << 16];
    std::size_t got = 0;
    while ((got = std::fread(buf, 1, sizeof buf, f)) > 0) text.append(buf, got);
    const bool failed = std::ferror(f) != 0;
    const int err = errno;
    std::fclose(f);
    if (failed) detail::report_io(path, "cannot read", err);
    return parse_mlp(text, path);
}

/// Writes `net` in the weights format; numbers use the shortest text that reads back to the same bits.
///
/// Throws `invalid_argument` (via `validate`) when `net` could not be read back.
[[nodiscard]] inline std::string to_text(const network& net) {
    validate(net);
    std::string s;
    std::size_t values = 0;
    for (std::size_t m = 0; m < net.member_count(); ++m)
        for (const auto& l : net.member(m)) values += l.weights.size() + l.bias.size();
    s.reserve(256 + 16 * values);
    // A single network stays version 1, which readers without ensemble support read as well.
    s += detail::cat(format_magic, " ", net.member_count() == 1 ? 1 : format_version, "\nfamily ", net.family, "\n");
    if (!net.meta.empty()) s += detail::cat("meta ", net.meta, "\n");
    if (net.trained_kernels) {
        s += "kernels";
        for (const auto& k : *net.trained_kernels) s += detail::cat(" ", k);
        s += "\n";
    }
    s += detail::cat("features ", net.feature_names.size(), "\n");
    for (std::size_t i = 0; i < net.feature_names.size(); ++i) {
        s += detail::cat("feature ", net.feature_names[i], "\n");
        if (!net.feature_min.empty()) s += detail::cat("range ", net.feature_min[i], " ", net.feature_max[i], "\n");
    }
    s += detail::cat("categoricals ", net.categoricals.size(), "\n");
    for (const auto& c : net.categoricals) {
        s += detail::cat("categorical ", c.name, " ", c.levels.size());
        for (const auto& l : c.levels) s += detail::cat(" ", l);
        s += "\n";
    }
    if (net.has_efficiency_range()) s += detail::cat("efficiency ", net.efficiency_min, " ", net.efficiency_max, "\n");
    if (net.member_count() > 1) s += detail::cat("members ", net.member_count(), "\n");
    for (std::size_t m = 0; m < net.member_count(); ++m) detail::append_layers(s, net.member(m));
    s += "end\n";
    return s;
}


/// Writes `net` to `path` in the weights format (see `to_text`); I/O errors name the path and the system's reason.
inline void save_mlp(const network& net, const std::string& path) {
    const std::string text = to_text(net);
    std::FILE* f = std::fopen(path.c_str(), "wb");
    if (f == nullptr) detail::report_io(path, "cannot open for writing", errno);
    const bool wrote = std::fwrite(text.data(), 1, text.size(), f) == text.size();
    const int err = errno;
    if (std::fclose(f) != 0 || !wrote) detail::report_io(path, "cannot write", wrote ? errno : err);
}

/// Refuses weights trained for another family, on another feature list than the caller computes, or (when
/// `framework_levels` is given) with other framework levels: the evaluator reads a level by its index, so a file
/// whose levels are renamed or reordered would silently answer for another framework.
///
/// Throws `load_error` for `source` naming the family found and expected, or the first feature or level that differs.
inline void check_compatible(const network& net, std::string_view family, std::span<const std::string_view> feature_names,
                             std::string_view source, std::span<const std::string_view> framework_levels = {}) {
    using detail::cat;
    if (net.family != family)
        throw load_error(std::string(source), 0, 0, cat("weights are for family '", net.family, "', expected '", family, "'"));
    const std::size_t n = std::max(net.feature_names.size(), feature_names.size());
    for (std::size_t i = 0; i < n; ++i) {
        const std::string_view have = i < net.feature_names.size() ? std::string_view(net.feature_names[i]) : "(none)";
        const std::string_view want = i < feature_names.size() ? feature_names[i] : "(none)";
        if (have != want)
            throw load_error(std::string(source), 0, 0,
                             cat("weights use ", net.feature_names.size(), " features, family '", family, "' computes ",
                                 feature_names.size(), "; feature ", i + 1, " is '", have, "' in the weights, '", want,
                                 "' expected (retrain or re-export the model)"));
    }
    if (framework_levels.empty()) return;
    // Built with append: g++ 12 reports a false -Wrestrict on `s += "" + std::string(…)` at -O2.
    std::string want, have;
    for (const auto l : framework_levels) (want.empty() ? want : want.append(" ")).append(l);
    if (!net.categoricals.empty())
        for (const auto& l : net.categoricals.front().levels) (have.empty() ? have : have.append(" ")).append(l);
    if (have != want)
        throw load_error(std::string(source), 0, 0,
                         cat("weights have framework levels '", have, "', family '", family, "' expects '", want, "'"));
}

}  // namespace synperf::mlp
