// SPDX-License-Identifier: Apache-2.0
// synperf: predict GPU kernel latency; list GPUs; train and evaluate the efficiency models.
#include <cstdio>
#include <exception>

#include <CLI/CLI.hpp>
#include <fmt/core.h>

#include "synperf/common.hpp"

int main(int argc, char** argv) {
    CLI::App app{"synperf: predict GPU kernel latency on GPUs you may not own"};
    app.require_subcommand(1);
    synperf::cli::add_gpus_command(app);
    synperf::cli::add_predict_command(app);
    synperf::cli::add_train_command(app);
    synperf::cli::add_eval_command(app);
    synperf::cli::add_e2e_command(app);
    synperf::cli::require_decimal_integers(app);
    synperf::cli::reject_empty_values(app);
    try {
        app.parse(argc, argv);
    } catch (const CLI::ParseError& e) {
        return app.exit(e);
    } catch (const synperf::error& e) {
        fmt::print(stderr, "{}\n", e.what());
        return 2;
    } catch (const std::exception& e) {
        fmt::print(stderr, "synperf: {}\n", e.what());
        return 2;
    }
    return 0;
}
