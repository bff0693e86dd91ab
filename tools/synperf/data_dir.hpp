// SPDX-License-Identifier: Apache-2.0
#pragma once
// Where the CLI finds the measured data: --data flag, else $SYNPERF_DATA, else ../shared/data beside the project.
// The library takes a data directory from its caller; this default belongs to the command-line tool.
#include <cstdlib>
#include <filesystem>
#include <optional>
#include <string>

namespace synperf::cli {

/// The data directory to use, or nullopt when none exists. `flag` wins, then the environment variable
/// SYNPERF_DATA, then `<project_root>/../shared/data`.
[[nodiscard]] inline std::optional<std::filesystem::path> find_data_dir(const std::string& flag,
                                                                        const std::filesystem::path& project_root) {
    namespace fs = std::filesystem;
    if (!flag.empty()) return fs::path(flag);
    if (const char* env = std::getenv("SYNPERF_DATA"); env != nullptr && *env != '\0') return fs::path(env);
    fs::path beside = project_root / ".." / "shared" / "data";
    std::error_code ec;
    if (fs::is_directory(beside, ec)) return fs::weakly_canonical(beside, ec);
    return std::nullopt;
}

}  // namespace synperf::cli
