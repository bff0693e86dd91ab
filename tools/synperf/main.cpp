// SPDX-License-Identifier: Apache-2.0
// synperf: predict GPU kernel latency; list GPUs; train and evaluate the efficiency models; end-to-end runs.
#include <synperf/family/builtin.hpp>
#include <synperf/train/builtin_sources.hpp>

#include "synperf/app.hpp"

int main(int argc, char** argv) { return synperf::cli::run_cli<synperf::builtin_families>(argc, argv); }
