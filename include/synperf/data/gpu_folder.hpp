// SPDX-License-Identifier: Apache-2.0
#pragma once
/// \file The GPU a measured-data folder is named after (`aiconfigurator/<gpu>/`, `vidur/compute/<gpu>/`, …).
#include <filesystem>
#include <string>

#include "synperf/error.hpp"
#include "synperf/gpu/registry.hpp"

namespace synperf::data {

/// The catalogue id of the GPU folder `folder` is named after. An unknown name is an error naming the folder, so
/// a stray or misspelt folder in a data directory is found at once.
[[nodiscard]] inline std::string gpu_of_folder(const std::filesystem::path& folder) {
    try {
        return gpu::find_gpu(folder.filename().string()).name;
    } catch (const error& e) {
        throw load_error(folder.string(), 0, 0, synperf::detail::message_of(e));
    }
}

}  // namespace synperf::data
