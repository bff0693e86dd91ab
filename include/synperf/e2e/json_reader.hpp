// SPDX-License-Identifier: Apache-2.0
#pragma once
/// \file A small standard-library-only JSON reader, enough for a Hugging Face config.json.
///
/// The core may depend on nothing but the standard library and Boost.Hana, so the model-config parser
/// cannot use nlohmann-json; config files are a few kilobytes of objects, numbers, strings, booleans and
/// null, which this reader covers, by the grammar of RFC 8259: `\uXXXX` escapes (surrogate pairs included) are
/// decoded to UTF-8, and anything the grammar does not allow (a raw control character in a string, an unknown
/// escape, a leading zero) is an error at its line.
#include <cctype>
#include <charconv>
#include <cstddef>
#include <string>
#include <string_view>
#include <unordered_set>
#include <utility>
#include <vector>

#include "synperf/error.hpp"

namespace synperf::e2e::json {

struct member;

/// One JSON value; objects keep their members in file order.
struct value {
    enum class kind { null, boolean, number, string, array, object };
    kind type = kind::null;
    bool boolean = false;
    double number = 0;
    std::string text;             ///< string value
    std::vector<value> items;     ///< array elements
    std::vector<member> members;  ///< object members
    std::size_t line = 0;         ///< where the value starts (for messages)

    /// The member named `key`, or null when absent (or when this is not an object).
    [[nodiscard]] const value* find(std::string_view key) const noexcept;
    [[nodiscard]] bool is_null() const noexcept { return type == kind::null; }
};

/// One object member. Declared after `value` so that it holds a complete type: a `std::pair<std::string,
/// value>` inside `value` itself is rejected by clang with libstdc++.
struct member {
    std::string key;
    value val;
};

inline const value* value::find(std::string_view key) const noexcept {
    for (const member& m : members)
        if (m.key == key) return &m.val;
    return nullptr;
}

namespace detail {

class reader {
public:
    reader(std::string_view s, std::string_view source) : s_(s), source_(source) {}

    value parse_document() {
        value v = parse_value(0);
        skip_space();
        if (pos_ != s_.size()) fail("end of input after the top-level value", std::string(1, s_[pos_]));
        return v;
    }

private:
    [[noreturn]] void fail(const std::string& expected, const std::string& found) const {
        throw load_error(std::string(source_), line_, 0, "expected " + expected + ", got " + found);
    }
    std::string here() const {
        if (pos_ >= s_.size()) return "end of input";
        std::string quoted(3, '\'');  // built in place: g++ 12 reports a false -Wrestrict on "'" + s + "'" at -O2
        quoted[1] = s_[pos_];
        return quoted;
    }

    void skip_space() {
        while (pos_ < s_.size() && (s_[pos_] == ' ' || s_[pos_] == '\t' || s_[pos_] == '\n' || s_[pos_] == '\r')) {
            if (s_[pos_] == '\n') ++line_;
            ++pos_;
        }
    }

    value parse_value(int depth) {
        if (depth > 64) fail("at most 64 nested levels", "deeper nesting");
        skip_space();
        value v;
        v.line = line_;
        if (pos_ >= s_.size()) fail("a value", "end of input");
        const char c = s_[pos_];
        if (c == '{') {
            v.type = value::kind::object;
            ++pos_;
            skip_space();
            if (pos_ < s_.size() && s_[pos_] == '}') { ++pos_; return v; }
            std::unordered_set<std::string> names;
            for (;;) {
                skip_space();
                if (pos_ >= s_.size() || s_[pos_] != '"') fail("a member name in quotes", here());
                std::string key = parse_string();
                // A repeated member: find() would answer with the first and ignore the other.
                if (!names.insert(key).second) fail("member names once per object", "\"" + key + "\" twice");
                skip_space();
                if (pos_ >= s_.size() || s_[pos_] != ':') fail("':' after member \"" + key + "\"", here());
                ++pos_;
                v.members.push_back(member{std::move(key), parse_value(depth + 1)});
                skip_space();
                if (pos_ < s_.size() && s_[pos_] == ',') { ++pos_; continue; }
                if (pos_ < s_.size() && s_[pos_] == '}') { ++pos_; return v; }
                fail("',' or '}' in an object", here());
            }
        }
        if (c == '[') {
            v.type = value::kind::array;
            ++pos_;
            skip_space();
            if (pos_ < s_.size() && s_[pos_] == ']') { ++pos_; return v; }
            for (;;) {
                v.items.push_back(parse_value(depth + 1));
                skip_space();
                if (pos_ < s_.size() && s_[pos_] == ',') { ++pos_; continue; }
                if (pos_ < s_.size() && s_[pos_] == ']') { ++pos_; return v; }
                fail("',' or ']' in an array", here());
            }
        }
        if (c == '"') {
            v.type = value::kind::string;
            v.text = parse_string();
            return v;
        }
        if (literal("true")) { v.type = value::kind::boolean; v.boolean = true; return v; }
        if (literal("false")) { v.type = value::kind::boolean; return v; }
        if (literal("null")) return v;
        if (c == '-' || std::isdigit(static_cast<unsigned char>(c))) {
            const std::size_t end = number_end();
            double d = 0;
            const auto r = std::from_chars(s_.data() + pos_, s_.data() + end, d);
            if (r.ec != std::errc() || r.ptr != s_.data() + end)
                fail("a number", "'" + std::string(s_.substr(pos_, end - pos_)) + "'");
            v.type = value::kind::number;
            v.number = d;
            pos_ = end;
            return v;
        }
        fail("a value", here());
    }

    /// The end of the number at pos_ by JSON's grammar: -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?; anything
    /// else (a leading zero, a bare '.', a trailing sign) fails with the characters that were read.
    std::size_t number_end() const {
        const auto digit = [&](std::size_t i) { return i < s_.size() && std::isdigit(static_cast<unsigned char>(s_[i])); };
        const auto digits = [&](std::size_t i) {
            while (digit(i)) ++i;
            return i;
        };
        std::size_t i = pos_;
        if (s_[i] == '-') ++i;
        bool ok = digit(i);
        if (ok && s_[i] == '0') ++i;
        else if (ok) i = digits(i);
        if (ok && i < s_.size() && s_[i] == '.') {
            ok = digit(i + 1);
            i = digits(i + 1);
        }
        if (ok && i < s_.size() && (s_[i] == 'e' || s_[i] == 'E')) {
            ++i;
            if (i < s_.size() && (s_[i] == '+' || s_[i] == '-')) ++i;
            ok = digit(i);
            i = digits(i);
        }
        if (!ok || digit(i) || (i < s_.size() && (s_[i] == '.' || s_[i] == 'e' || s_[i] == 'E' || s_[i] == '+' || s_[i] == '-'))) {
            std::size_t end = i;
            while (end < s_.size() && (std::isalnum(static_cast<unsigned char>(s_[end])) || s_[end] == '.' || s_[end] == '+' || s_[end] == '-'))
                ++end;
            fail("a JSON number", "'" + std::string(s_.substr(pos_, end - pos_)) + "'");
        }
        return i;
    }

    /// Four hex digits after a `\u` at pos_.
    unsigned hex4() {
        if (pos_ + 6 > s_.size()) fail("four hex digits after '\\u'", "end of input");
        unsigned v = 0;
        const auto r = std::from_chars(s_.data() + pos_ + 2, s_.data() + pos_ + 6, v, 16);
        if (r.ec != std::errc() || r.ptr != s_.data() + pos_ + 6)
            fail("four hex digits after '\\u'", "'" + std::string(s_.substr(pos_, 6)) + "'");
        pos_ += 6;
        return v;
    }

    /// Appends code point `cp` to `out` as UTF-8.
    static void append_utf8(std::string& out, unsigned cp) {
        if (cp < 0x80) {
            out += char(cp);
        } else if (cp < 0x800) {
            out += char(0xC0 | (cp >> 6));
            out += char(0x80 | (cp & 0x3F));
        } else if (cp < 0x10000) {
            out += char(0xE0 | (cp >> 12));
            out += char(0x80 | ((cp >> 6) & 0x3F));
            out += char(0x80 | (cp & 0x3F));
        } else {
            out += char(0xF0 | (cp >> 18));
            out += char(0x80 | ((cp >> 12) & 0x3F));
            out += char(0x80 | ((cp >> 6) & 0x3F));
            out += char(0x80 | (cp & 0x3F));
        }
    }

    /// A `\uXXXX` escape at pos_, or a surrogate pair of two, as one code point.
    unsigned unicode_escape() {
        const unsigned first = hex4();
        if (first >= 0xDC00 && first <= 0xDFFF) fail("a high surrogate before a low one", "a lone low surrogate");
        if (first < 0xD800 || first > 0xDBFF) return first;
        if (s_.substr(pos_, 2) != "\\u") fail("a low surrogate after a high one", "a lone high surrogate");
        const unsigned second = hex4();
        if (second < 0xDC00 || second > 0xDFFF) fail("a low surrogate after a high one", "another escape");
        return 0x10000 + ((first - 0xD800) << 10) + (second - 0xDC00);
    }

    bool literal(std::string_view word) {
        if (s_.substr(pos_, word.size()) != word) return false;
        pos_ += word.size();
        return true;
    }

    std::string parse_string() {
        ++pos_;  // opening quote
        std::string out;
        while (pos_ < s_.size() && s_[pos_] != '"') {
            if (s_[pos_] == '\n') fail("a closing '\"' before the end of the line", "a line break");
            if (static_cast<unsigned char>(s_[pos_]) < 0x20) fail("a character or an escape in a string", "a raw control character");
            if (s_[pos_] == '\\' && pos_ + 1 < s_.size()) {
                const char e = s_[pos_ + 1];
                if (e == 'u') {
                    append_utf8(out, unicode_escape());
                    continue;
                }
                switch (e) {
                    case 'n': out += '\n'; break;
                    case 't': out += '\t'; break;
                    case 'r': out += '\r'; break;
                    case 'b': out += '\b'; break;
                    case 'f': out += '\f'; break;
                    case '"': case '\\': case '/': out += e; break;
                    default: fail("an escape of \" \\ / b f n r t or u", "'\\" + std::string(1, e) + "'");
                }
                pos_ += 2;
                continue;
            }
            out += s_[pos_++];
        }
        if (pos_ >= s_.size()) fail("a closing '\"'", "end of input");
        ++pos_;
        return out;
    }

    std::string_view s_;
    std::string_view source_;
    std::size_t pos_ = 0;
    std::size_t line_ = 1;
};

}  // namespace detail

/// Parses a JSON document; throws `load_error` "synperf: <source>:<line>: expected ..., got ..." on bad input.
[[nodiscard]] inline value parse(std::string_view text, std::string_view source) {
    if (text.starts_with("\xEF\xBB\xBF")) text.remove_prefix(3);  // a UTF-8 byte-order mark, as some editors write (RFC 8259 §8.1)
    return detail::reader(text, source).parse_document();
}

}  // namespace synperf::e2e::json
