// SPDX-License-Identifier: Apache-2.0
#pragma once
/// \file The check every loader makes before it reads a file: a path that exists must be a regular file.
#include <filesystem>
#include <string>
#include <string_view>
#include <system_error>

#include "synperf/error.hpp"

namespace synperf::detail {

/// Throws `load_error` when `path` exists but is not a regular file: a directory, or a device, pipe or socket,
/// which a loader would read forever (`/dev/zero`) or block on. `what` names the expected content ("weights
/// file"). A missing path passes, so that opening it reports the system's reason.
inline void require_regular_file(const std::string& path, std::string_view what) {
    std::error_code ec;
    const std::filesystem::file_status st = std::filesystem::status(path, ec);
    if (ec || !std::filesystem::exists(st) || std::filesystem::is_regular_file(st)) return;
    const char* kind = std::filesystem::is_directory(st) ? "a directory" : "a device, pipe or socket";
    throw load_error(path, 0, 0, std::string("expected a regular file (") + std::string(what) + "), got " + kind);
}

/// Whether anything is at `path`, a broken link included. Loaders that look for a table by name ask this rather than
/// `exists`, so a table that is there but cannot be read is reported when it is opened instead of skipped as absent.
[[nodiscard]] inline bool entry_present(const std::filesystem::path& path) {
    std::error_code ec;
    return std::filesystem::exists(std::filesystem::symlink_status(path, ec));
}

}  // namespace synperf::detail
