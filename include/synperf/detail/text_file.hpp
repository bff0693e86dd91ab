// SPDX-License-Identifier: Apache-2.0
#pragma once
/// \file `require_text`: refuses a binary, compressed or UTF-16 file, or one whose lines end in a carriage return alone,
/// where a text file (a CSV table, a GPU spec) is expected: said at its line and column, before a parser would report
/// a puzzling field count or print the bytes back.
#include <cstddef>
#include <string>
#include <string_view>

#include "synperf/error.hpp"

namespace synperf::detail {

/// Throws `load_error` at `source`:line:column when `text` is not a text file of LF or CRLF lines; `what` names what
/// was expected ("a text CSV table").
inline void require_text(std::string_view text, const std::string& source, std::string_view what) {
    if (text.starts_with("\xFF\xFE") || text.starts_with("\xFE\xFF"))
        throw load_error(source, 1, 1, "expected " + std::string(what) + " in UTF-8, got UTF-16 (its byte-order mark); save it as UTF-8");
    std::size_t line_no = 1, column = 1;
    for (std::size_t i = 0; i < text.size(); ++i) {
        const auto byte = static_cast<unsigned char>(text[i]);
        if (byte == '\n') {
            ++line_no;
            column = 1;
            continue;
        }
        if (byte == '\r' && i + 1 < text.size() && text[i + 1] != '\n')
            throw load_error(source, line_no, column,
                             "a line ends in a carriage return alone (an old Mac text file?); save it with LF or CRLF line ends");
        if ((byte < 0x20 && byte != '\t' && byte != '\r') || byte == 0x7f) {
            static constexpr char hex[] = "0123456789abcdef";
            throw load_error(source, line_no, column,
                             "expected " + std::string(what) + ", got the control byte 0x" + hex[byte >> 4] + hex[byte & 15] +
                                 " (a binary, compressed or UTF-16 file?)");
        }
        ++column;
    }
}

}  // namespace synperf::detail
