// SPDX-License-Identifier: Apache-2.0
// `synperf predict` over the built-in families.
#include <CLI/CLI.hpp>

#include <synperf/family/builtin.hpp>

#include "synperf/predict_command.hpp"

namespace synperf::cli {

template void add_predict_command<builtin_families>(CLI::App& app);

}  // namespace synperf::cli
