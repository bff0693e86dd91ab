// SPDX-License-Identifier: Apache-2.0
#pragma once
// The commands written once over every family of a list: `synperf predict <command>`, `synperf train <family>` and
// `synperf eval <family>`.
//
// `predict` builds one subcommand per family with a predict command (`family::predict_command<F>`, found from the
// family type); train and eval take the families' training sources (`train::source_of<F>()`). The synperf binary
// gives them `synperf::builtin_families`, a test may give another `family::list`.
#include <vector>

#include <CLI/CLI.hpp>

#include <synperf/train/source.hpp>

namespace synperf::cli {

/// `synperf predict <command>` for each family of `Families` with a predict command, in order (cmd_predict.cpp, which
/// instantiates it for `synperf::builtin_families`).
template <class Families>
void add_predict_command(CLI::App& app);

/// `synperf train <family>` for each of `families`, in order (cmd_train.cpp).
void add_train_command(CLI::App& app, std::vector<train::family_source> families);
/// `synperf eval <family>` for each of `families`, in order, and `synperf eval summary` over all of them (cmd_eval.cpp).
void add_eval_command(CLI::App& app, std::vector<train::family_source> families);

/// `synperf train` over the families of `Families`.
template <class Families>
void add_train_command(CLI::App& app) {
    add_train_command(app, train::sources_of<Families>());
}

/// `synperf eval` over the families of `Families`.
template <class Families>
void add_eval_command(CLI::App& app) {
    add_eval_command(app, train::sources_of<Families>());
}

}  // namespace synperf::cli
