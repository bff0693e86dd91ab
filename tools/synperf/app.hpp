// SPDX-License-Identifier: Apache-2.0
#pragma once
// The synperf command line over a family list: predict GPU kernel latency; list GPUs; train and evaluate the
// efficiency models; end-to-end runs. main.cpp runs it over the built-in families.
#include <cstdio>
#include <exception>
#include <limits>
#include <string>
#include <string_view>
#include <vector>

#include <CLI/CLI.hpp>
#include <fmt/core.h>

#include "synperf/common.hpp"
#include "synperf/family_commands.hpp"

namespace synperf::cli::app_detail {

/// The deepest subcommand the command line selected (the app itself when none).
inline CLI::App* deepest_selected(CLI::App* app) {
    const std::vector<CLI::App*> chosen = app->get_subcommands();
    return chosen.empty() ? app : deepest_selected(chosen.front());
}

/// When a command that needs a subcommand got an unknown word instead, names the word and the known subcommands
/// (CLI11 alone says only that a subcommand is required). Returns false when that is not the case.
inline bool report_unknown_subcommand(CLI::App& app) {
    CLI::App* at = deepest_selected(&app);
    const std::vector<std::string> rest = at->remaining();
    const std::vector<CLI::App*> subs = at->get_subcommands({});
    if (rest.empty() || subs.empty()) return false;
    std::string known;
    for (const CLI::App* sub : subs) known += (known.empty() ? "" : ", ") + sub->get_name();
    if (rest.front().starts_with('-'))
        fmt::print(stderr, "synperf: unknown option '{}'; expected a command: {}\n", rest.front(), known);
    else
        fmt::print(stderr, "synperf: unknown command '{}'; known: {}\n", rest.front(), known);
    return true;
}

/// CLI11 reports a value it cannot store as "Could not convert: --heads = 3000000000". Every integer option's text
/// has passed the decimal check (`require_decimal_integers`) by then, so the value is beyond the option's 32-bit
/// type: says so with the range. Returns false for any other conversion error.
inline bool report_narrow_integer(const CLI::ConversionError& e) {
    constexpr std::string_view prefix = "Could not convert: ";
    const std::string_view what = e.what();
    const std::size_t equals = what.find(" = ");
    if (!what.starts_with(prefix) || equals == std::string_view::npos) return false;
    const std::string_view option = what.substr(prefix.size(), equals - prefix.size());
    const std::string_view value = what.substr(equals + 3);
    if (value.starts_with('-'))
        fmt::print(stderr, "synperf: {}: expected a 32-bit integer (at least {}), got {}\n", option, std::numeric_limits<int>::min(), value);
    else
        fmt::print(stderr, "synperf: {}: expected a 32-bit integer (at most {}), got {}\n", option, std::numeric_limits<int>::max(), value);
    return true;
}

/// A command line CLI11 could not read: bad input like any other, so `synperf:` and the message, exit status 2.
inline void report_parse_error(const CLI::ParseError& e) { fmt::print(stderr, "synperf: {}\n", e.what()); }

}  // namespace synperf::cli::app_detail

namespace synperf::cli {

/// The synperf command line over the families of `Families` (a `family::list`): every command written over a family
/// list (predict, train, eval) has each of them. Returns the exit status: 0, or 2 for bad input (a command line it
/// cannot read included).
template <class Families>
int run_cli(int argc, char** argv) {
    CLI::App app{"synperf: predict GPU kernel latency on GPUs you may not own"};
    app.require_subcommand(1);
    synperf::cli::add_gpus_command(app);
    synperf::cli::add_predict_command<Families>(app);
    synperf::cli::add_train_command<Families>(app);
    synperf::cli::add_ensemble_command(app);
    synperf::cli::add_eval_command<Families>(app);
    synperf::cli::add_e2e_command(app);
    synperf::cli::add_calibrate_command(app);
    synperf::cli::require_decimal_integers(app);
    synperf::cli::reject_empty_values(app);
    synperf::cli::require_finite_numbers(app);
    try {
        app.parse(argc, argv);
    } catch (const CLI::RequiredError& e) {
        if (!app_detail::report_unknown_subcommand(app)) app_detail::report_parse_error(e);
        return 2;
    } catch (const CLI::ConversionError& e) {
        if (!app_detail::report_narrow_integer(e)) app_detail::report_parse_error(e);
        return 2;
    } catch (const CLI::ParseError& e) {
        if (e.get_exit_code() == static_cast<int>(CLI::ExitCodes::Success)) return app.exit(e);  // --help
        app_detail::report_parse_error(e);
        return 2;
    } catch (const synperf::error& e) {
        fmt::print(stderr, "{}\n", e.what());
        return 2;
    } catch (const std::exception& e) {
        fmt::print(stderr, "synperf: {}\n", e.what());
        return 2;
    }
    return 0;
}

}  // namespace synperf::cli
