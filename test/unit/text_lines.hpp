// SPDX-License-Identifier: Apache-2.0
#pragma once
// Editing a text file line by line, for the tests of the line-oriented file formats.
#include <algorithm>
#include <cstddef>
#include <string>
#include <string_view>

namespace synperf::test {

// `text` with line `n` (1-based) replaced by `with` (which may hold several lines or none).
inline std::string replace_line_in(std::string_view text, std::size_t n, std::string_view with) {
    std::string out;
    std::size_t line = 1;
    std::size_t start = 0;
    while (start < text.size()) {
        // A last line without its newline ends at the text's end (find gives npos, and npos + 1 would wrap to 0).
        const std::size_t end = std::min(text.find('\n', start), text.size() - 1);
        if (line == n) {
            out += with;
        } else {
            out += text.substr(start, end - start + 1);
        }
        start = end + 1;
        ++line;
    }
    return out;
}

}  // namespace synperf::test
