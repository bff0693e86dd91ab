// SPDX-License-Identifier: Apache-2.0
// `synperf predict allreduce`: collectives on the built-in node of a GPU or a node built from flags (one, or a CSV).
#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <fmt/core.h>
#include <nlohmann/json.hpp>

#include <synperf/cost/mlp_cost.hpp>
#include <synperf/data/csv.hpp>
#include <synperf/family/allreduce.hpp>
#include <synperf/mlp/format.hpp>
#include <synperf/predictor/predictor.hpp>
#include <synperf/system/catalogue.hpp>
#if __has_include(<synperf/models/allreduce.hpp>)
#include <synperf/models/allreduce.hpp>
#define SYNPERF_CLI_EMBEDDED_ALLREDUCE (&synperf::models::allreduce())
#else
#define SYNPERF_CLI_EMBEDDED_ALLREDUCE nullptr
#endif

#include "synperf/common.hpp"

namespace synperf::cli {
namespace {

struct predict_allreduce_options {
    gpu_choice gpu;
    int gpus = 0;
    std::int64_t bytes = 0;
    std::string implementation = "sglang";
    std::string op = "all_reduce";
    std::string dtype = "bf16";
    std::string topology;
    int gpus_per_node = 0;
    int p2p_group = -1;           ///< PCIe: GPUs per peer-to-peer group (1: no peer access); -1: the node's own
    double host_bridge_gbps = 0;  ///< PCIe: bandwidth between P2P groups through the host
    std::string weights;
    std::string csv;
    bool json = false;
    bool print_header = true;  ///< CSV output: the header line (only the first GPU of a list prints it)
};

/// The node the options describe: the GPU's built-in node, or one built from the flags.
system::system_spec node_of(const predict_allreduce_options& o, const gpu::runtime_gpu& g) {
    system::system_spec sys;
    if (o.topology.empty() && o.gpus_per_node == 0 && o.gpu.spec_file.empty()) {
        sys = system::builtin_system_for(o.gpu.catalogue_id(), g);
    } else {
        // A node built at run time: the GPU's links, the given wiring and size (defaults: the built-in node's).
        system::system_spec base;
        if (o.gpu.spec_file.empty()) base = system::builtin_system_for(o.gpu.catalogue_id(), g);
        else base = system::make_system(g.name, g.numbers, 8, g.numbers.nvlink_gbps > 0 ? system::topology::nvswitch : system::topology::pcie);
        const system::topology wiring = o.topology.empty() ? base.wiring : system::parse_topology(o.topology);
        sys = system::make_system(g.name, g.numbers, o.gpus_per_node > 0 ? o.gpus_per_node : base.gpus_per_node, wiring);
        if (wiring == base.wiring && sys.gpus_per_node == base.gpus_per_node) {
            sys.p2p_group_size = base.p2p_group_size;
            sys.host_bridge_gbps = base.host_bridge_gbps;
        }
    }
    if (o.p2p_group >= 0 || o.host_bridge_gbps > 0) {
        if (sys.wiring != system::topology::pcie)
            throw invalid_argument("synperf: predict allreduce: --p2p-group and --host-bridge-gbps describe a PCIe node; this node is " +
                                   std::string(system::to_string(sys.wiring)) + " (use --topology pcie)");
        if (o.p2p_group >= 0) sys.p2p_group_size = o.p2p_group;
        if (o.host_bridge_gbps > 0 && sys.p2p_group_size == 0)
            throw invalid_argument("synperf: predict allreduce: --host-bridge-gbps joins peer-to-peer groups, and this node has "
                                   "peer access across all its GPUs (give --p2p-group N as well)");
        if (o.host_bridge_gbps > 0) sys.host_bridge_gbps = o.host_bridge_gbps;
        sys.name += "_p2p" + std::to_string(sys.p2p_group_size);
        system::validate(sys);
    }
    return sys;
}

/// The implementation as the user named it; a framework that runs another's kernels says which (vLLM's custom
/// all-reduce is SGLang's, so `--framework vllm` is modelled as `sglang`).
std::string implementation_label(const predict_allreduce_options& o, family::collective_impl impl) {
    const std::string_view modelled = family::to_string(impl);
    if (o.implementation == modelled) return o.implementation;
    return fmt::format("{} (the same custom all-reduce as {}, modelled as {})", o.implementation, modelled, modelled);
}

/// `--csv FILE`: one collective per row (columns gpus, bytes), one CSV line of output per row (with `--json`, one
/// JSON array of rows).
void run_predict_allreduce_csv(const predict_allreduce_options& o, const gpu::runtime_gpu& g, const system::system_spec& sys) {
    const data::csv_table t = data::csv_table::load(o.csv);
    static constexpr std::array<std::string_view, 3> known{"gpus", "bytes", measured_column};
    t.require_known_columns(known, "predict allreduce");
    const std::size_t c_gpus = t.column("gpus"), c_bytes = t.column("bytes");
    std::vector<family::allreduce_problem> problems;
    for (std::size_t r = 0; r < t.rows(); ++r) {
        family::allreduce_problem p{sys, family::parse_collective_op(o.op), t.positive_integer(r, c_bytes),
                                    family::parse_collective_dtype(o.dtype), static_cast<int>(t.positive_integer(r, c_gpus)),
                                    family::parse_collective_impl(o.implementation)};
        data::at_row(t.source(), t.line(r), [&] { family::validate(p, true); });
        problems.push_back(std::move(p));
    }
    measured_report measured(measured_times(t));
    auto net = predict_model(o.weights, SYNPERF_CLI_EMBEDDED_ALLREDUCE, "allreduce");
    check_weights_for<family::allreduce>(*net, o.weights);
    note_unmeasured_gpu(*net, g.name);
    const runtime_predictor<family::allreduce> pred(g.numbers, cost::mlp_cost(net));
    if (o.print_header && !o.json)
        fmt::print("gpu,gpus,bytes,latency_us,efficiency,theoretical_us,algorithm{}\n", measured.header_columns());
    json_document doc(o.json, true);
    csv_warning_summary csv_warnings;
    for (std::size_t i = 0; i < problems.size(); ++i) {
        const family::allreduce_problem& p = problems[i];
        // One GPU communicates nothing: 0 us, its own bound.
        const prediction r = p.gpus == 1 ? prediction{} : pred.predict(p, family::to_string(p.implementation));
        const auto warnings = p.gpus == 1 ? std::vector<std::string>{} : prediction_warnings<family::allreduce>(*net, r, p, g);
        const double efficiency = p.gpus == 1 ? 1.0 : r.efficiency;
        const std::string algorithm = p.gpus == 1 ? "none" : std::string(family::to_string(family::estimate(p).policy));
        if (o.json) {
            nlohmann::json row{{"gpu", g.name}, {"family", "allreduce"}, {"op", std::string(family::to_string(p.op))},
                               {"implementation", std::string(family::to_string(p.implementation))},
                               {"framework", o.implementation}, {"gpus", p.gpus}, {"bytes", p.bytes}, {"system", sys.name},
                               {"latency_us", r.latency_us}, {"efficiency", efficiency},
                               {"theoretical_us", r.theoretical_us}, {"algorithm", algorithm}, {"warnings", warnings}};
            measured.add_json_fields(row, i, r.latency_us);
            doc.add(row);
            continue;
        }
        fmt::print("{},{},{},{:.4f},{:.4f},{:.4f},{}{}\n", g.name, p.gpus, p.bytes, r.latency_us, efficiency, r.theoretical_us,
                   algorithm, measured.csv_fields(i, r.latency_us));
        csv_warnings.add(i, warnings);
    }
    doc.finish();
    csv_warnings.print(problems.size(), g.name);
    measured.print_summary(g.name);
}

void run_predict_allreduce(const predict_allreduce_options& o) {
    const gpu::runtime_gpu g = o.gpu.resolve();
    const system::system_spec sys = node_of(o, g);
    if (!o.csv.empty()) {
        if (o.gpus != 0 || o.bytes != 0)
            throw invalid_argument("synperf: predict allreduce: give --gpus and --bytes, or --csv FILE, not both");
        run_predict_allreduce_csv(o, g, sys);
        return;
    }
    if (o.gpus == 0 || o.bytes == 0)
        throw invalid_argument(std::string("synperf: predict allreduce: give --gpus and --bytes, or --csv FILE (") +
                               (o.gpus == 0 ? "--gpus" : "--bytes") + " is missing)");
    family::allreduce_problem p{sys, family::parse_collective_op(o.op), o.bytes, family::parse_collective_dtype(o.dtype), o.gpus,
                                family::parse_collective_impl(o.implementation)};
    family::validate(p, true);  // inputs first, so a bad size is reported as such; one GPU is checked all the same
    auto net = predict_model(o.weights, SYNPERF_CLI_EMBEDDED_ALLREDUCE, "allreduce");
    check_weights_for<family::allreduce>(*net, o.weights);
    if (o.gpus == 1) {
        if (o.json) fmt::print("{}\n", nlohmann::json{{"gpu", g.name}, {"gpus", 1}, {"bytes", o.bytes}, {"latency_us", 0.0}}.dump(2));
        else fmt::print("{} on 1 GPU: no communication, 0 us\n", family::to_string(p.op));
        return;
    }
    note_unmeasured_gpu(*net, g.name);
    const runtime_predictor<family::allreduce> pred(g.numbers, cost::mlp_cost(net));
    const prediction r = pred.predict(p, family::to_string(p.implementation));
    const family::allreduce_estimate e = family::estimate(p);
    const auto warnings = prediction_warnings<family::allreduce>(*net, r, p, g);
    if (o.json) {
        nlohmann::json algorithms = nlohmann::json::object();
        for (auto a : {family::collective_algorithm::one_shot, family::collective_algorithm::two_shot, family::collective_algorithm::ring,
                       family::collective_algorithm::tree, family::collective_algorithm::nvls})
            if (e[a].available)
                algorithms[std::string(family::to_string(a))] = {{"latency_us", e[a].latency_us}, {"bandwidth_us", e[a].bandwidth_us},
                                                                 {"total_us", e[a].total_us()}};
        const nlohmann::json out{{"gpu", g.name}, {"family", "allreduce"}, {"op", std::string(family::to_string(p.op))},
                                 {"implementation", std::string(family::to_string(p.implementation))},
                                 {"framework", o.implementation}, {"gpus", p.gpus}, {"bytes", p.bytes},
                                 {"system", {{"name", sys.name}, {"topology", std::string(system::to_string(sys.wiring))},
                                             {"gpus_per_node", sys.gpus_per_node}, {"link_gbps", e.gbps},
                                             {"p2p_group_size", sys.p2p_group_size}, {"host_bridge_gbps", sys.host_bridge_gbps},
                                             {"hop_latency_us", e.hop_us}, {"nvls", sys.in_switch_reduction}}},
                                 {"latency_us", r.latency_us}, {"efficiency", r.efficiency}, {"theoretical_us", r.theoretical_us},
                                 {"algorithm", std::string(family::to_string(e.policy))}, {"alpha_beta_us", e.policy_us},
                                 {"algorithms", algorithms}, {"kernel", r.kernels.front().name}, {"ctas", r.kernels.front().tasks},
                                 {"warnings", warnings}};
        fmt::print("{}\n", out.dump(2));
        return;
    }
    const std::string p2p = sys.p2p_group_size == 0 ? std::string()
                            : sys.p2p_group_size == 1
                                ? fmt::format(", no peer access: {:g} GB/s through the host", sys.host_bridge_gbps)
                                : fmt::format(", peer access in groups of {}, {:g} GB/s host bridge", sys.p2p_group_size,
                                              sys.host_bridge_gbps);
    fmt::print("{} of {} bytes on {} x {} ({}, {} GPUs per node{}, {:.4g} GB/s per direction), {}\n", family::to_string(p.op), p.bytes,
               p.gpus, g.name, system::to_string(sys.wiring), sys.gpus_per_node, p2p, e.gbps, implementation_label(o, p.implementation));
    fmt::print("  latency      {:.3f} us\n", r.latency_us);
    fmt::print("  efficiency   {}\n", efficiency_text(r.efficiency));
    fmt::print("  theoretical  {:.3f} us (fastest algorithm: {})\n", r.theoretical_us, family::to_string(e.fastest));
    fmt::print("  alpha-beta   {:.3f} us ({}, the implementation's choice)\n", e.policy_us, family::to_string(e.policy));
    fmt::print("  kernel       {}: {} CTAs\n", r.kernels.front().name, r.kernels.front().tasks);
    print_warnings(warnings);
}

}  // namespace

void add_predict_allreduce_command(CLI::App& predict) {
    static predict_allreduce_options o;
    auto* cmd = predict.add_subcommand("allreduce", "all-reduce (or NCCL all-gather / reduce-scatter) inside one node");
    o.gpu.add_to(*cmd);
    cmd->add_option("--gpus", o.gpus, "GPUs taking part (TP size)")->check(number_in(1, 1 << 20));
    cmd->add_option("--bytes", o.bytes, "message bytes")->check(positive_number());
    cmd->add_option("--csv", o.csv, "CSV with columns gpus,bytes (optional measured_us: error per row and a summary): predict every row (op, implementation and node from the flags)");
    cmd->add_option("--framework,--implementation", o.implementation, "sglang, vllm, sglang_eager, trtllm, nccl or torch")
        ->check(CLI::IsMember({"sglang", "vllm", "sglang_eager", "vllm_eager", "trtllm", "nccl", "torch"}))
        ->capture_default_str();
    cmd->add_option("--op", o.op, "all_reduce, all_gather or reduce_scatter (the last two: nccl, torch)")
        ->check(CLI::IsMember({"all_reduce", "all_gather", "reduce_scatter"}))
        ->capture_default_str();
    cmd->add_option("--dtype", o.dtype, "bf16, fp16, fp32 or int8")->check(CLI::IsMember({"bf16", "fp16", "fp32", "int8"}))->capture_default_str();
    cmd->add_option("--topology", o.topology, "build the node at run time: nvswitch, nvlink_mesh, nvlink_pairwise or pcie")
        ->check(CLI::IsMember({"nvswitch", "nvlink_mesh", "nvlink_pairwise", "pcie"}));
    cmd->add_option("--gpus-per-node", o.gpus_per_node, "node size for a node built at run time")->check(number_in(1, 1024));
    cmd->add_option("--p2p-group", o.p2p_group,
                    "PCIe node: GPUs per peer-to-peer group (1: no peer access, transfers staged through host memory; "
                    "0: the whole node); needs --host-bridge-gbps")
        ->check(non_negative_number());
    cmd->add_option("--host-bridge-gbps", o.host_bridge_gbps, "PCIe node: bandwidth between P2P groups through the host (GB/s)")
        ->check(number_in(0.1, 1e6));
    cmd->add_option("--weights", o.weights, "weights file (default: the embedded shipped model)");
    cmd->add_flag("--json", o.json, "print JSON");
    cmd->final_callback([] { for_each_listed_gpu(o, run_predict_allreduce); });
}

}  // namespace synperf::cli
