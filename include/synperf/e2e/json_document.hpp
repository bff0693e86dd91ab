// SPDX-License-Identifier: Apache-2.0
#pragma once
/// \file A JSON document read with nlohmann-json, plus the line of every object member, so that an error about a
/// field (a config.json's `num_attention_heads`, say) can point into the file.
///
/// Stricter than `nlohmann::json::parse` where a config would otherwise be read as another model: a member named
/// twice in one object is an error (nlohmann keeps the last, silently), and so is nesting deeper than 64 levels.
/// Every error is a `load_error` at the file's line (and column, for syntax).
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <iterator>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "synperf/error.hpp"

namespace synperf::e2e::json {

/// A parsed document: its value, and where each object member's name stands.
struct document {
    std::string source;  ///< names the document in messages (a file path)
    nlohmann::json root;
    /// The line of each object member's name, by the member's JSON pointer ("/quantization_config/quant_method").
    std::map<std::string, std::size_t, std::less<>> lines;

    /// The line of the member at `pointer`, or 0 (no line in messages) when there is none.
    [[nodiscard]] std::size_t line_of(std::string_view pointer) const {
        const auto it = lines.find(pointer);
        return it == lines.end() ? 0 : it->second;
    }
    /// The line of the top-level member `key`, or 0.
    [[nodiscard]] std::size_t line_of_member(const std::string& key) const {
        return line_of((nlohmann::json::json_pointer() / key).to_string());
    }
};

namespace detail {

/// A byte iterator over the text that records how far it has been read: nlohmann's parser reads its input one byte
/// at a time and does not say where it is, so the builder below takes the position of a token from here.
class tracking_iterator {
public:
    using iterator_category = std::input_iterator_tag;
    using value_type = char;
    using difference_type = std::ptrdiff_t;
    using pointer = const char*;
    using reference = const char&;

    tracking_iterator() = default;
    tracking_iterator(const char* p, std::size_t* read) : p_(p), read_(read) {}
    reference operator*() const { return *p_; }
    tracking_iterator& operator++() {
        ++p_;
        ++*read_;
        return *this;
    }
    tracking_iterator operator++(int) {
        tracking_iterator before = *this;
        ++*this;
        return before;
    }
    friend bool operator==(const tracking_iterator& a, const tracking_iterator& b) { return a.p_ == b.p_; }

private:
    const char* p_ = nullptr;
    std::size_t* read_ = nullptr;
};

/// The line and column (in bytes) of the last of `read` bytes of `text`, or of its end: where nlohmann's parser
/// stopped.
inline std::pair<std::size_t, std::size_t> line_column(std::string_view text, std::size_t read) {
    const std::size_t at = std::min(read == 0 ? 0 : read - 1, text.size());
    std::size_t line = 1, line_start = 0;
    for (std::size_t i = 0; i < at; ++i)
        if (text[i] == '\n') {
            ++line;
            line_start = i + 1;
        }
    return {line, at - line_start + 1};
}

/// nlohmann's message without its tag and position ("[json.exception.parse_error.101] parse error at line 1,
/// column 7: "), which the load_error gives as file:line:column; bytes outside ASCII (of a malformed file) are
/// written as \xNN, and a long message (a long last-read token) is cut.
inline std::string reason(const nlohmann::json::exception& e) {
    std::string_view what = e.what();
    if (what.starts_with("[json.exception.")) {
        if (const std::size_t tag_end = what.find("] "); tag_end != std::string_view::npos) what.remove_prefix(tag_end + 2);
    }
    if (what.starts_with("parse error")) {
        if (const std::size_t colon = what.find(": "); colon != std::string_view::npos) what.remove_prefix(colon + 2);
    }
    constexpr std::size_t longest = 200;
    std::string out;
    for (const char c : what.substr(0, longest)) {
        const auto byte = static_cast<unsigned char>(c);
        if (byte < 0x80) {
            out += c;
            continue;
        }
        static constexpr char hex[] = "0123456789abcdef";
        out.append("\\x").append(1, hex[byte >> 4]).append(1, hex[byte & 0xF]);
    }
    if (what.size() > longest) out += "...";
    return out;
}

/// Builds the document from nlohmann's SAX events (as nlohmann's own DOM builder does), recording each member's
/// line and refusing repeated names and deep nesting.
class builder {
public:
    static constexpr std::size_t max_depth = 64;

    builder(document& doc, std::string_view text, const std::size_t& read) : doc_(doc), text_(text), read_(read) {}

    bool null() { return add(nullptr); }
    bool boolean(bool b) { return add(b); }
    bool number_integer(std::int64_t v) { return add(v); }
    bool number_unsigned(std::uint64_t v) { return add(v); }
    bool number_float(double v, const std::string& digits) {
        // nlohmann reads a number below the smallest double as 0 (and one above the largest as an error): refuse it
        // too, rather than read a field as 0. The parser has read one byte past the number.
        if (v == 0 && digits.find_first_of("123456789") < digits.find_first_of("eE")) {
            const auto [line, column] = line_column(text_, read_ - 1);
            throw load_error(doc_.source, line, column, "number underflow parsing '" + digits + "'");
        }
        return add(v);
    }
    bool string(std::string& s) { return add(std::move(s)); }
    bool binary(nlohmann::json::binary_t&) { fail("text, not binary data"); }  // JSON text has none

    bool start_object(std::size_t) { return open(nlohmann::json::object()); }
    bool start_array(std::size_t) { return open(nlohmann::json::array()); }
    bool end_object() { return close(); }
    bool end_array() { return close(); }

    bool key(std::string& name) {
        frame& f = open_.back();
        // nlohmann would keep the last of two, and a reader of the file might believe the first.
        if (f.value->contains(name)) fail("member names once per object, got \"" + name + "\" twice");
        key_ = std::move(name);
        doc_.lines[(f.path / key_).to_string()] = line();
        return true;
    }

    bool parse_error(std::size_t read, const std::string&, const nlohmann::json::exception& e) {
        const auto [line, column] = line_column(text_, read);
        throw load_error(doc_.source, line, column, reason(e));
    }

private:
    struct frame {
        nlohmann::json* value;
        nlohmann::json::json_pointer path;
    };

    /// The line of the last byte read (a key's closing quote, an opening bracket, the byte after a number).
    std::size_t line() {
        for (const std::size_t last = std::min(read_, text_.size()); counted_ + 1 < last; ++counted_)
            if (text_[counted_] == '\n') ++line_;
        return line_;
    }
    [[noreturn]] void fail(const std::string& expected_got) { throw load_error(doc_.source, line(), 0, "expected " + expected_got); }

    /// Places `v` in the open array or object (or as the root); returns where it went.
    nlohmann::json* place(nlohmann::json v) {
        if (open_.empty()) {
            doc_.root = std::move(v);
            return &doc_.root;
        }
        nlohmann::json& parent = *open_.back().value;
        if (parent.is_array()) {
            parent.push_back(std::move(v));
            return &parent.back();
        }
        nlohmann::json& slot = parent[key_];
        slot = std::move(v);
        return &slot;
    }
    bool add(nlohmann::json v) {
        place(std::move(v));
        return true;
    }
    bool open(nlohmann::json empty) {
        if (open_.size() == max_depth) fail("at most " + std::to_string(max_depth) + " nested levels, got deeper nesting");
        nlohmann::json::json_pointer path;
        if (!open_.empty()) {
            const frame& parent = open_.back();
            path = parent.value->is_array() ? parent.path / parent.value->size() : parent.path / key_;
        }
        // `placed` stays valid while it is open: its parent array grows only after it closes.
        nlohmann::json* placed = place(std::move(empty));
        open_.push_back(frame{placed, std::move(path)});
        return true;
    }
    bool close() {
        open_.pop_back();
        return true;
    }

    document& doc_;
    std::string_view text_;
    const std::size_t& read_;
    std::size_t counted_ = 0;  ///< bytes before this are counted in line_
    std::size_t line_ = 1;
    std::vector<frame> open_;
    std::string key_;
};

}  // namespace detail

/// Parses JSON text (RFC 8259, with an optional UTF-8 byte-order mark); `source` names it in messages. Throws
/// `load_error` "<source>:<line>:<column>: <what is wrong>" for a syntax error, "<source>:<line>: expected ..."
/// for a repeated member name or nesting deeper than 64 levels.
[[nodiscard]] inline document parse(std::string_view text, std::string_view source) {
    document doc;
    doc.source = std::string(source);
    std::size_t read = 0;
    detail::builder build(doc, text, read);
    const char* const begin = text.data();
    nlohmann::json::sax_parse(detail::tracking_iterator(begin, &read), detail::tracking_iterator(begin + text.size(), &read), &build);
    return doc;
}

}  // namespace synperf::e2e::json
