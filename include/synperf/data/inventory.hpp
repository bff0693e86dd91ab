// SPDX-License-Identifier: Apache-2.0
#pragma once
/// \file The data directory's inventories: which framework version measured each table.
#include <filesystem>
#include <map>
#include <string>

#include "synperf/data/csv.hpp"

namespace synperf::data {

/// `file` (relative to the data directory, '/'-separated) → `framework_version`, from `inventory.csv` and
/// `aiconfigurator_sglang/inventory.csv` where they exist. A data directory without inventories gives an
/// empty map: callers then assume the newest collector.
[[nodiscard]] inline std::map<std::string, std::string> framework_versions(const std::filesystem::path& data_dir) {
    std::map<std::string, std::string> versions;
    for (const char* name : {"inventory.csv", "aiconfigurator_sglang/inventory.csv"}) {
        const std::filesystem::path path = data_dir / name;
        std::error_code ec;
        if (!std::filesystem::is_regular_file(path, ec)) continue;
        const csv_table t = csv_table::load(path.string());
        const std::size_t c_file = t.column("file"), c_version = t.column("framework_version");
        for (std::size_t r = 0; r < t.rows(); ++r) versions.emplace(std::string(t.field(r, c_file)), std::string(t.field(r, c_version)));
    }
    return versions;
}

}  // namespace synperf::data
