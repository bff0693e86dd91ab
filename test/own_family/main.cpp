// SPDX-License-Identifier: Apache-2.0
// The synperf command line over the built-in families and a family of one's own, added in one line.
#include <synperf/family/builtin.hpp>
#include <synperf/train/builtin_sources.hpp>

#include "layernorm/layernorm_family.hpp"
#include "synperf/app.hpp"
#include "synperf/predict_command.hpp"

int main(int argc, char** argv) { return synperf::cli::run_cli<synperf::builtin_families::append<my::layernorm>>(argc, argv); }
