// SPDX-License-Identifier: Apache-2.0
#pragma once
/// \file `synperf predict allreduce`: the collective family's predict command (`family::predict_command`): the node is
/// the GPU's built-in one or one built from the flags, and one GPU is the collective that communicates nothing.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include "synperf/error.hpp"
#include "synperf/family/allreduce.hpp"
#include "synperf/family/command.hpp"
#include "synperf/family/report.hpp"
#include "synperf/predictor/prediction.hpp"
#include "synperf/system/catalogue.hpp"
#include "synperf/system/system.hpp"

namespace synperf::family {

template <>
struct predict_command<allreduce> {
    static constexpr std::string_view summary = "all-reduce (or NCCL all-gather / reduce-scatter) inside one node";

    struct inputs {
        int gpus = 0;
        std::int64_t bytes = 0;
        std::string implementation = "sglang";
        std::string op = "all_reduce";
        std::string dtype = "bf16";
        std::string topology;
        int gpus_per_node = 0;
        int p2p_group = -1;           ///< PCIe: GPUs per peer-to-peer group (1: no peer access); -1: the node's own
        double host_bridge_gbps = 0;  ///< PCIe: bandwidth between P2P groups through the host
    };
    static constexpr auto options = std::tuple{
        option("--gpus", &inputs::gpus, "GPUs taking part (TP size)").column("gpus").within(1, 1 << 20),
        option("--bytes", &inputs::bytes, "message bytes").column("bytes").positive(),
        option("--framework,--implementation", &inputs::implementation, "sglang, vllm, sglang_eager, trtllm, nccl or torch")
            .one_of("sglang vllm sglang_eager vllm_eager trtllm nccl torch")
            .show_default(),
        option("--op", &inputs::op, "all_reduce, all_gather or reduce_scatter (the last two: nccl, torch)")
            .one_of("all_reduce all_gather reduce_scatter")
            .show_default(),
        option("--dtype", &inputs::dtype, "bf16, fp16, fp32 or int8").one_of("bf16 fp16 fp32 int8").show_default(),
        option("--topology", &inputs::topology, "build the node at run time: nvswitch, nvlink_mesh, nvlink_pairwise or pcie")
            .one_of("nvswitch nvlink_mesh nvlink_pairwise pcie"),
        option("--gpus-per-node", &inputs::gpus_per_node, "node size for a node built at run time").within(1, 1024),
        option("--p2p-group", &inputs::p2p_group,
               "PCIe node: GPUs per peer-to-peer group (1: no peer access, transfers staged through host memory; 0: the whole "
               "node); needs --host-bridge-gbps")
            .non_negative(),
        option("--host-bridge-gbps", &inputs::host_bridge_gbps, "PCIe node: bandwidth between P2P groups through the host (GB/s)")
            .within(0.1, 1e6)};
    /// A --csv file gives whole collectives: columns gpus and bytes (op, implementation and node from the flags).
    static constexpr csv_rows csv = csv_rows::every_column;

    /// The node the flags describe on `target`: its built-in one, or one built from the flags.
    static system::system_spec on_gpu(const inputs& in, const target_gpu& target) {
        const gpu::runtime_gpu& g = target.gpu;
        const bool from_spec_file = target.catalogue_id.empty();
        system::system_spec sys;
        if (in.topology.empty() && in.gpus_per_node == 0 && !from_spec_file) {
            sys = system::builtin_system_for(target.catalogue_id, g);
        } else {
            // A node built at run time: the GPU's links, the given wiring and size (defaults: the built-in node's).
            const system::system_spec base =
                from_spec_file ? system::make_system(g.name, g.numbers, 8, g.numbers.nvlink_gbps > 0 ? system::topology::nvswitch : system::topology::pcie)
                               : system::builtin_system_for(target.catalogue_id, g);
            const system::topology wiring = in.topology.empty() ? base.wiring : system::parse_topology(in.topology);
            sys = system::make_system(g.name, g.numbers, in.gpus_per_node > 0 ? in.gpus_per_node : base.gpus_per_node, wiring);
            if (wiring == base.wiring && sys.gpus_per_node == base.gpus_per_node) {
                sys.p2p_group_size = base.p2p_group_size;
                sys.host_bridge_gbps = base.host_bridge_gbps;
            }
        }
        if (in.p2p_group >= 0 || in.host_bridge_gbps > 0) {
            if (sys.wiring != system::topology::pcie)
                synperf::detail::report_error("predict allreduce: --p2p-group and --host-bridge-gbps describe a PCIe node; this node is " +
                                              std::string(system::to_string(sys.wiring)) + " (use --topology pcie)");
            if (in.p2p_group >= 0) sys.p2p_group_size = in.p2p_group;
            if (in.host_bridge_gbps > 0 && sys.p2p_group_size == 0)
                synperf::detail::report_error("predict allreduce: --host-bridge-gbps joins peer-to-peer groups, and this node has "
                                              "peer access across all its GPUs (give --p2p-group N as well)");
            if (in.host_bridge_gbps > 0) sys.host_bridge_gbps = in.host_bridge_gbps;
            sys.name += "_p2p" + std::to_string(sys.p2p_group_size);
            system::validate(sys);
        }
        return sys;
    }
    static allreduce_problem problem(const inputs& in, const system::system_spec& node) {
        return {node, parse_collective_op(in.op), in.bytes, parse_collective_dtype(in.dtype), in.gpus, parse_collective_impl(in.implementation)};
    }
    /// The model reads the implementation that runs (vLLM's custom all-reduce is SGLang's).
    static std::string framework(const inputs&, const allreduce_problem& p) { return std::string(to_string(p.implementation)); }

    /// One GPU communicates nothing: 0 µs, its own bound; its inputs are checked as for more GPUs.
    static std::optional<prediction> without_model(const allreduce_problem& p) {
        if (p.gpus != 1) return std::nullopt;
        validate(p, true);
        prediction none;
        none.efficiency = 1.0;
        return none;
    }

    using predicted = family::predicted<inputs, allreduce_problem, allreduce_plan>;
    static void json(report& out, const predicted& o) {
        const allreduce_problem& p = o.problem;
        if (p.gpus == 1) {
            out = report{{"gpu", o.gpu.name}, {"gpus", 1}, {"bytes", p.bytes}, {"latency_us", 0.0}};
            return;
        }
        const system::system_spec& sys = p.system;
        const allreduce_estimate e = estimate(p);
        report algorithms;
        for (auto a : {collective_algorithm::one_shot, collective_algorithm::two_shot, collective_algorithm::ring, collective_algorithm::tree,
                       collective_algorithm::nvls})
            if (e[a].available)
                algorithms.set(to_string(a), report{{"latency_us", e[a].latency_us}, {"bandwidth_us", e[a].bandwidth_us},
                                                    {"total_us", e[a].total_us()}});
        out.erase("bottleneck");
        out.merge({{"op", to_string(p.op)}, {"implementation", to_string(p.implementation)}, {"framework", o.inputs.implementation},
                   {"gpus", p.gpus}, {"bytes", p.bytes},
                   {"system", report{{"name", sys.name}, {"topology", system::to_string(sys.wiring)}, {"gpus_per_node", sys.gpus_per_node},
                                     {"link_gbps", e.gbps}, {"p2p_group_size", sys.p2p_group_size},
                                     {"host_bridge_gbps", sys.host_bridge_gbps}, {"hop_latency_us", e.hop_us},
                                     {"nvls", sys.in_switch_reduction}}},
                   {"algorithm", to_string(e.policy)}, {"alpha_beta_us", e.policy_us}, {"algorithms", algorithms},
                   {"kernel", o.result.kernels.front().name}, {"ctas", o.result.kernels.front().tasks}});
    }
    static report csv_row(const predicted& o) {
        const allreduce_problem& p = o.problem;
        report row{{"gpu", o.gpu.name}, {"gpus", p.gpus}, {"bytes", p.bytes}};
        row.merge(prediction_cells(o.result));
        return row.set("algorithm", p.gpus == 1 ? std::string_view("none") : to_string(estimate(p).policy));
    }
    /// A --csv row's JSON: its cells, the collective and the node's name.
    static void json_row(report& out, const predicted& o) {
        const allreduce_problem& p = o.problem;
        out.erase("bottleneck");
        out.merge(csv_row(o));
        out.merge({{"op", to_string(p.op)}, {"implementation", to_string(p.implementation)}, {"framework", o.inputs.implementation},
                   {"system", p.system.name}});
    }
    static std::vector<std::string> text(const predicted& o) {
        const allreduce_problem& p = o.problem;
        if (p.gpus == 1) return {text::cat(to_string(p.op), " on 1 GPU: no communication, 0 us")};
        const system::system_spec& sys = p.system;
        const allreduce_estimate e = estimate(p);
        const prediction& r = o.result;
        const std::string p2p = sys.p2p_group_size == 0 ? std::string()
                                : sys.p2p_group_size == 1
                                    ? text::cat(", no peer access: ", text::general(sys.host_bridge_gbps, 6), " GB/s through the host")
                                    : text::cat(", peer access in groups of ", sys.p2p_group_size, ", ", text::general(sys.host_bridge_gbps, 6),
                                                " GB/s host bridge");
        const std::string_view modelled = to_string(p.implementation);
        // A framework that runs another's kernels says which (vLLM's custom all-reduce is SGLang's).
        const std::string label = o.inputs.implementation == modelled
                                      ? o.inputs.implementation
                                      : text::cat(o.inputs.implementation, " (the same custom all-reduce as ", modelled, ", modelled as ",
                                                  modelled, ")");
        return {text::cat(to_string(p.op), " of ", p.bytes, " bytes on ", p.gpus, " x ", o.gpu.name, " (", system::to_string(sys.wiring), ", ",
                          sys.gpus_per_node, " GPUs per node", p2p, ", ", text::general(e.gbps, 4), " GB/s per direction), ", label),
                text::cat("  latency      ", text::fixed(r.latency_us, 3), " us"),
                text::cat("  efficiency   ", text::efficiency(r.efficiency)),
                text::cat("  theoretical  ", text::fixed(r.theoretical_us, 3), " us (fastest algorithm: ", to_string(e.fastest), ")"),
                text::cat("  alpha-beta   ", text::fixed(e.policy_us, 3), " us (", to_string(e.policy), ", the implementation's choice)"),
                text::cat("  kernel       ", r.kernels.front().name, ": ", r.kernels.front().tasks, " CTAs")};
    }
};

}  // namespace synperf::family
