// SPDX-License-Identifier: Apache-2.0
// `synperf train <family>`: fit the family's efficiency MLP on measured rows and export its weights.
#include <algorithm>
#include <charconv>
#include <chrono>
#include <filesystem>
#include <functional>
#include <iostream>
#include <limits>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include <unistd.h>

#include <fmt/core.h>

#include <synperf/mlp/ensemble.hpp>
#include <synperf/mlp/format.hpp>
#include <synperf/mlp/validate.hpp>
#include <synperf/train/efficiency_model.hpp>
#include <synperf/train/encoding.hpp>
#include <synperf/train/mlp_trainer.hpp>
#include <synperf/train/protocol_folds.hpp>
#include <synperf/train/sample.hpp>
#include <synperf/train/source.hpp>
#include <synperf/train/subsample.hpp>

#include "synperf/common.hpp"
#include "synperf/family_commands.hpp"

namespace synperf::cli {
namespace {

constexpr std::size_t family_default = std::numeric_limits<std::size_t>::max();
// The validation subsample does not follow the seed, so that restarts are compared on the same rows.
constexpr std::uint64_t validation_subsample_salt = 42;

struct train_cli_options {
    std::string data;
    std::string out;
    bool protocol = false;
    std::size_t epochs = 400;
    std::uint64_t seed = 42;
    std::size_t restarts = 1;  // seeds seed, seed + 1, ...: the lowest validation loss is kept
    bool ensemble = false;     // keep every restart instead, as the members of an ensemble
    std::size_t max_rows = family_default;  // the family's default keeps a full training within minutes; 0 = all
    std::size_t batch = 1024;
    std::vector<std::size_t> hidden = train::train_options{}.hidden;  // the trainer's default widths
    double dropout = train::train_options{}.dropout;
    double lr = train::train_options{}.lr;
    std::size_t lr_patience = train::train_options{}.lr_patience;
    bool record_only = false;  // annotate existing weights instead of training
};

/// Writes what the rows `out` was trained on show (their efficiency range and the auxiliary kernels they ran) into
/// `out`, weights untouched. The rows are the subsample of `all_train_rows` for the seed in the file's meta; its row
/// count must match the meta's.
void record_training_rows(const train::family_source& fam, const std::vector<const train::sample*>& all_train_rows,
                          std::size_t max_rows, const std::string& out) {
    mlp::network net = mlp::load_mlp(out);
    if (net.member_count() > 1)
        throw invalid_argument(fmt::format("synperf: {}: an ensemble of {} members; retrain it with --restarts {} --ensemble "
                                           "instead",
                                           out, net.member_count(), net.member_count()));
    auto meta_count = [&](std::string_view key) -> std::uint64_t {
        const std::string tag = " " + std::string(key) + "=";
        const auto at = (" " + net.meta).find(tag);
        if (at == std::string::npos)
            throw invalid_argument(fmt::format("synperf: {}: meta has no '{}=' (retrain the weights instead)", out, key));
        const std::string_view text = std::string_view(net.meta).substr(at + tag.size() - 1);
        std::uint64_t value = 0;
        const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
        if (ec != std::errc{} || (end != text.data() + text.size() && *end != ' '))
            throw invalid_argument(fmt::format("synperf: {}: meta '{}=' is not a count (retrain the weights instead)", out, key));
        return value;
    };
    const std::vector<const train::sample*> rows = train::subsample(all_train_rows, max_rows, meta_count("seed"));
    if (rows.size() != meta_count("rows"))
        throw invalid_argument(fmt::format("synperf: {}: trained on {} rows, the data gives {} for its seed (other data or "
                                           "--max-rows): retrain the weights instead",
                                           out, meta_count("rows"), rows.size()));
    auto targets = xt::xtensor<float, 1>::from_shape({rows.size()});
    for (std::size_t r = 0; r < rows.size(); ++r) targets(r) = train::training_target(*rows[r]);
    train::record_efficiency_range(net, targets);
    net.trained_kernels = train::trained_kernel_kinds(rows);
    mlp::save_mlp(net, out);
    fmt::print(stderr, "synperf train {}: {}: efficiency range {} .. {}, {} auxiliary kernel kinds, over {} training rows\n",
               fam.name, out, net.efficiency_min, net.efficiency_max, net.trained_kernels->size(), rows.size());
}

/// The value of `key=` in a trainer's `meta` line ("" when absent).
std::string meta_field(std::string_view meta, std::string_view key) {
    const std::string tag = " " + std::string(key) + "=";
    const std::string padded = " " + std::string(meta);
    const auto at = padded.find(tag);
    if (at == std::string::npos) return {};
    const std::string_view rest = std::string_view(padded).substr(at + tag.size());
    return std::string(rest.substr(0, rest.find(' ')));
}

/// `mlp::make_ensemble` of trained networks, with a `meta` line that adds to the first member's the member count
/// (`members=`, which `scripts/check-weights.sh` reads), each member's seed and its validation loss.
mlp::network ensemble_of(const std::vector<mlp::network>& members) {
    mlp::network net = mlp::make_ensemble(members);
    std::string seeds, losses;
    for (const auto& m : members) {
        seeds += (seeds.empty() ? "" : ",") + meta_field(m.meta, "seed");
        losses += (losses.empty() ? "" : ",") + meta_field(m.meta, "best_val_loss");
    }
    net.meta += fmt::format(" members={} member_seeds={} member_best_val_loss={}", members.size(), seeds, losses);
    return net;
}

/// Trains one weights file on the rows `fits(sample)` accepts; validation = the validation shapes among them.
void train_one(const train::family_source& fam, const train_cli_options& o, const std::vector<train::sample>& samples,
               const std::function<bool(const train::sample&)>& fits, const std::string& kind, const std::string& out) {
    const auto t0 = std::chrono::steady_clock::now();
    train::training_rows fit = train::training_rows_of(samples, fits);
    const std::size_t max_rows = o.max_rows == family_default ? fam.default_max_rows : o.max_rows;
    const std::vector<const train::sample*> all_train_rows = std::move(fit.train);
    if (o.record_only) {
        record_training_rows(fam, all_train_rows, max_rows, out);
        return;
    }
    const std::vector<const train::sample*> val_rows = train::subsample(
        std::move(fit.validation), max_rows == 0 ? 0 : std::max<std::size_t>(max_rows / 7, 1), validation_subsample_salt);

    std::string gpus;  // in order of first appearance
    std::set<std::string> listed;
    for (const auto& s : samples)
        if (fits(s) && listed.insert(s.gpu).second) gpus += (gpus.empty() ? "" : ",") + s.gpu;

    mlp::network net;
    train::train_report report;
    std::vector<mlp::network> members;  // --ensemble: every restart, in seed order
    for (std::size_t restart = 0; restart < std::max<std::size_t>(o.restarts, 1); ++restart) {
        const std::uint64_t seed = o.seed + restart;
        const std::vector<const train::sample*> rows = train::subsample(all_train_rows, max_rows, seed);
        fmt::print(stderr, "synperf train {} ({} weights, seed {}): {} rows, {} train, {} validation\n", fam.name, kind, seed,
                   samples.size(), rows.size(), val_rows.size());
        if (rows.empty())
            throw invalid_argument("synperf: train " + fam.name + ": no training rows (the data holds no row of a training GPU: " +
                                   "check --data and the files of those GPUs)");
        if (val_rows.empty())
            throw invalid_argument(fmt::format("synperf: train {}: no validation rows: the {} training rows fall in too few shapes for a "
                                               "validation part (each shape's hash picks its part); give rows of more shapes",
                                               fam.name, rows.size()));
        train::train_options opt = train::options_for(fam);
        opt.max_epochs = o.epochs;
        opt.seed = seed;
        opt.batch = o.batch;
        opt.hidden = o.hidden;
        opt.dropout = o.dropout;
        opt.lr = o.lr;
        opt.lr_patience = o.lr_patience;
        train::train_report r;
        mlp::network candidate = train::train_efficiency_model(fam, rows, val_rows, opt, &r, &std::cerr);
        candidate.meta = kind + " gpus=" + gpus + " " + candidate.meta + " " + fam.data_credit;
        if (restart > 0)
            fmt::print(stderr, "synperf train: seed {}: validation loss {:.4f} (best so far {:.4f})\n", seed, r.best_val_loss,
                       report.best_val_loss);
        if (o.ensemble) members.push_back(candidate);
        if (restart == 0 || r.best_val_loss < report.best_val_loss) {
            net = std::move(candidate);
            report = r;
        }
    }
    if (o.ensemble) net = ensemble_of(members);
    mlp::save_mlp(net, out);
    const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    fmt::print(stderr, "wrote {} ({} epochs, best {} with validation loss {:.4f}) in {:.1f} s\n", out, report.epochs_run,
               report.best_epoch, report.best_val_loss, secs);
}

/// Where `train` writes without --out: models/<family>.mlp, or models/protocol/<family>.mlp, under the working
/// directory (never into the source tree the binary was built from).
std::filesystem::path default_out(const std::string& family, bool protocol) {
    return protocol ? std::filesystem::path("models") / "protocol" / (family + ".mlp") : std::filesystem::path("models") / (family + ".mlp");
}

/// The checks of the options CLI11 cannot make, done before any data is read so a mistake costs no training.
void check_train_options(const train_cli_options& o, const std::string& family) {
    if (o.ensemble && o.restarts < 2)
        throw invalid_argument(fmt::format("synperf: train --ensemble: needs --restarts 2 or more (the members), got {}",
                                           o.restarts));
    if (o.ensemble && o.record_only)
        throw invalid_argument("synperf: train --record-only: not with --ensemble (it records one member's rows)");
    for (const std::size_t w : o.hidden)
        if (w < 1 || w > mlp::max_width)
            throw invalid_argument(fmt::format("synperf: train --hidden: every width must be 1 .. {}, got {}", mlp::max_width, w));
    // Where the weights go is checked before training, so that a folder that is missing or read-only costs nothing.
    const std::filesystem::path out = o.out.empty() ? default_out(family, o.protocol) : std::filesystem::path(o.out);
    const std::string flag = o.out.empty() ? "synperf: train: the default output " + out.string() : "synperf: train --out " + o.out;
    const std::filesystem::path parent = std::filesystem::absolute(out).parent_path();
    if (!std::filesystem::is_directory(parent)) throw invalid_argument(flag + ": the folder " + parent.string() + " does not exist");
    if (std::filesystem::is_directory(out)) throw invalid_argument(flag + ": is a folder");
    if (::access(parent.c_str(), W_OK) != 0 || (std::filesystem::exists(out) && ::access(out.c_str(), W_OK) != 0))
        throw invalid_argument(flag + ": cannot be written (permission denied)");
}

void run_train(const train::family_source& fam, const train_cli_options& o) {
    check_train_options(o, fam.name);
    const auto dir = require_data_dir(o.data);
    const data::protocol proto = fam.protocol();
    std::vector<std::string> notes;
    // Every kernel as the model will see it: the kinds the training rows run are recorded, not priced apart.
    const std::vector<train::sample> samples = fam.load(dir, proto, work::every_kernel_kind(), notes);
    fmt::print(stderr, "synperf train {}: {} rows read from {}\n", fam.name, samples.size(), dir.string());
    for (const auto& n : notes) fmt::print(stderr, "synperf train {}: {}\n", fam.name, n);
    if (!o.protocol) {
        // Shipped weights: every GPU, the seen-test shapes included, validation by the same shape hash.
        train_one(fam, o, samples, [](const train::sample&) { return true; }, "shipped",
                  o.out.empty() ? default_out(fam.name, false).string() : o.out);
        return;
    }
    const std::string base = o.out.empty() ? default_out(fam.name, true).string() : o.out;
    for (const train::protocol_fold& fold : train::protocol_folds(fam))
        train_one(fam, o, samples, [&fold](const train::sample& s) { return fold.fits_on(s); }, "protocol",
                  train::fold_path(base, fold));
}

}  // namespace

void add_ensemble_command(CLI::App& app) {
    auto* cmd = app.add_subcommand(
        "ensemble", "join weights files trained with different seeds into one ensemble (what train --restarts N --ensemble writes)");
    static std::vector<std::string> inputs;
    static std::string out;
    cmd->add_option("weights", inputs, "the members' weights files, in seed order (2 to 16)")->required()->check(CLI::ExistingFile);
    cmd->add_option("--out", out, "ensemble weights file to write")->required();
    cmd->final_callback([] {
        std::vector<mlp::network> members;
        for (const auto& path : inputs) members.push_back(mlp::load_mlp(path));
        const mlp::network net = ensemble_of(members);
        mlp::save_mlp(net, out);
        fmt::print(stderr, "wrote {}: an ensemble of {} '{}' networks\n", out, net.member_count(), net.family);
    });
}

void add_train_command(CLI::App& app, std::vector<train::family_source> families) {
    auto* train_cmd = app.add_subcommand("train", "train a family's efficiency model on measured data");
    train_cmd->require_subcommand(1);
    static train_cli_options o;
    for (train::family_source& fam : families) {
        auto* sub = train_cmd->add_subcommand(fam.name, fam.summary);
        sub->add_option("--data", o.data, "measured-data directory (default: $SYNPERF_DATA or ../shared/data)");
        sub->add_option("--out", o.out, "weights file to write (default, under the working directory: models/" + fam.name + ".mlp, or models/protocol/" +
                                            fam.name + ".mlp" + (fam.leave_one_out ? "; leave-one-out: <stem>.loo-<gpu>.mlp per GPU)" : ")"));
        sub->add_flag("--protocol", o.protocol, "train on the protocol's train GPUs only (the weights `synperf eval` uses)");
        sub->add_option("--epochs", o.epochs, "maximum epochs")->capture_default_str()->check(number_in(1, 400));
        sub->add_option("--seed", o.seed, "random seed")->capture_default_str();
        sub->add_option("--restarts", o.restarts, "train seeds seed, seed+1, ... and keep the lowest validation loss")
            ->capture_default_str()
            ->check(number_in(1, 16));
        sub->add_flag("--ensemble", o.ensemble,
                      "keep every restart as a member of an ensemble (the geometric mean of their efficiencies) instead "
                      "of the lowest validation loss; needs --restarts 2 or more");
        sub->add_option("--max-rows", o.max_rows,
                        "deterministic subsample of the training rows (default " + std::to_string(fam.default_max_rows) +
                            "; 0 = all)");
        sub->add_option("--batch", o.batch, "minibatch size (at least 2: the network's batch normalization needs two rows)")
            ->capture_default_str()
            ->check(number_in(2, 1048576));
        add_integer_list_option(*sub, "--hidden", o.hidden, "hidden layer widths, first to last (default 256,128,64)");
        sub->add_option("--dropout", o.dropout, "dropout probability after each hidden layer")
            ->capture_default_str()
            ->check(number_in(0.0, 0.9));
        sub->add_flag("--record-only,--efficiency-range-only", o.record_only,
                      "train nothing: record what the training rows show (their efficiency range, the auxiliary kernels "
                      "they ran) in the existing weights file (--out)");
        sub->add_option("--lr", o.lr, "initial AdamW learning rate")->capture_default_str()->check(number_in(1e-6, 1.0));
        sub->add_option("--lr-patience", o.lr_patience, "epochs without improvement before the learning rate drops")
            ->capture_default_str()
            ->check(number_in(1, 400));
        sub->final_callback([f = std::move(fam)] { run_train(f, o); });
    }
}

}  // namespace synperf::cli
