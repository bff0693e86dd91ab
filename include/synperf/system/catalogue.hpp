// SPDX-License-Identifier: Apache-2.0
#pragma once
/// \file Built-in systems: the usual node of every catalogue GPU (DGX/HGX NVSwitch, NVL trays, PCIe boards).
///
/// Sources (docs/families/allreduce.md has the full list): aiconfigurator `systems/<gpu>.yaml`
/// (`node.num_gpus_per_node`, `intra_node_bw` per direction, `pcie_bw`), NVIDIA DGX/HGX product pages
/// (8-GPU NVSwitch baseboards for A100/H100/H200/H20/H800/B200/B300; GB200/GB300 compute trays of 4 GPUs on
/// the NVL72 NVSwitch fabric), and the NVLink-bridge datasheets of the PCIe parts (A100 PCIe, H100 PCIe/NVL,
/// A40, RTX A6000: bridges join GPUs in pairs). Link bandwidth comes from the GPU spec (`nvlink_gbps`,
/// `pcie_gbps`), so a system and its GPU cannot disagree.
#include <array>
#include <string>
#include <string_view>
#include <vector>

#include "synperf/error.hpp"
#include "synperf/gpu/registry.hpp"
#include "synperf/system/system.hpp"

namespace synperf::system {

namespace detail {

struct builtin_node {
    std::string_view gpu;
    int gpus_per_node;
    topology wiring;
    std::string_view source;
};

inline constexpr std::array<builtin_node, 22> builtin_nodes{{
    {"a100_sxm", 8, topology::nvswitch, "DGX A100 (NVSwitch gen 2, no NVLink SHARP); AIC a100_sxm.yaml: 8 GPUs, 300 GB/s per direction"},
    {"a100_pcie_40gb", 4, topology::nvlink_pairwise, "A100 PCIe datasheet: NVLink bridge for 2 GPUs; 4-GPU server as Vidur's a100_pairwise_nvlink"},
    {"a40", 4, topology::nvlink_pairwise, "A40 datasheet: NVLink bridge for 2 GPUs; 4-GPU server as Vidur's a40_pairwise_nvlink"},
    {"a10", 8, topology::pcie, "A10 has no NVLink: PCIe 4.0 board (assumed 8 GPUs)"},
    {"rtx_a6000", 4, topology::nvlink_pairwise, "RTX A6000 datasheet: NVLink bridge for 2 GPUs (assumed 4-GPU server)"},
    {"l4", 8, topology::pcie, "AIC l4.yaml: 8 GPUs, PCIe 4.0, no NVLink"},
    {"l20", 8, topology::pcie, "L20 has no NVLink: PCIe 4.0 board (assumed 8 GPUs, as L40S)"},
    {"l40", 8, topology::pcie, "L40 has no NVLink: PCIe 4.0 board (assumed 8 GPUs, as L40S)"},
    {"l40s", 8, topology::pcie, "AIC l40s.yaml: 8 GPUs, intra_node_bw = pcie_bw = 32 GB/s (PCIe 4.0)"},
    {"rtx_6000_ada", 8, topology::pcie, "RTX 6000 Ada has no NVLink: PCIe 4.0 board (assumed 8 GPUs)"},
    {"rtx_4090", 8, topology::pcie, "GeForce, no NVLink: PCIe 4.0 board (assumed 8 GPUs)"},
    {"h100_sxm", 8, topology::nvswitch, "DGX H100 (NVSwitch gen 3, NVLink SHARP); AIC h100_sxm.yaml: 8 GPUs, 450 GB/s per direction"},
    {"h100_pcie", 4, topology::nvlink_pairwise, "H100 PCIe/NVL datasheet: NVLink bridge for 2 GPUs; 4-GPU server as Vidur's h100_pairwise_nvlink"},
    {"h800", 8, topology::nvswitch, "HGX H800 8-GPU NVSwitch baseboard, NVLink cut to 400 GB/s bidirectional"},
    {"h20", 8, topology::nvswitch, "HGX H20 8-GPU NVSwitch baseboard; AIC h20_3e.yaml: 8 GPUs, 450 GB/s per direction"},
    {"h200_sxm", 8, topology::nvswitch, "DGX H200; AIC h200_sxm.yaml: 8 GPUs, 450 GB/s per direction"},
    {"b200_sxm", 8, topology::nvswitch, "DGX B200 (NVLink 5, NVSwitch with SHARP); AIC b200_sxm.yaml: 8 GPUs, 900 GB/s per direction"},
    {"gb200", 4, topology::nvswitch, "GB200 NVL72 compute tray: AIC gb200.yaml num_gpus_per_node 4, NVLink 5 via NVSwitch trays, 900 GB/s per direction"},
    {"b300_sxm", 8, topology::nvswitch, "HGX B300; AIC b300_sxm.yaml: 8 GPUs, 900 GB/s per direction"},
    {"gb300", 4, topology::nvswitch, "GB300 NVL72 compute tray: AIC gb300.yaml num_gpus_per_node 4, 900 GB/s per direction"},
    {"rtx_5090", 8, topology::pcie, "GeForce, no NVLink: PCIe 5.0 board (assumed 8 GPUs; AIC rtx_5090.yaml describes a 1-GPU node)"},
    {"rtx_pro_6000_server", 8, topology::pcie, "AIC rtx_pro_6000_server.yaml: 8 GPUs, intra_node_bw = pcie_bw = 64 GB/s (PCIe 5.0)"},
}};

}  // namespace detail

/// The built-in node of catalogue GPU `gpu_name` (any name `gpu::find_gpu` accepts) with its links taken from
/// `numbers`: the catalogue GPU's own numbers, or the same GPU with fields overridden at run time, so that an
/// override of `nvlink_gbps` or `pcie_gbps` reaches the collectives. The node keeps its size and PCIe grouping;
/// a GPU overridden to no NVLink (`nvlink_gbps` 0) turns an NVLink node into a PCIe one. Throws
/// `invalid_argument` for unknown GPUs.
[[nodiscard]] inline system_spec builtin_system(std::string_view gpu_name, const gpu::gpu_numbers& numbers) {
    const gpu::runtime_gpu g = gpu::find_gpu(gpu_name);
    for (const auto& n : detail::builtin_nodes) {
        if (n.gpu != g.name) continue;
        const bool nvlink_lost = n.wiring != topology::pcie && !(numbers.nvlink_gbps > 0);
        system_spec s = make_system(g.name, numbers, n.gpus_per_node, nvlink_lost ? topology::pcie : n.wiring);
        s.source = std::string(n.source);
        if (nvlink_lost) s.source += "; NVLink overridden to 0: PCIe only";
        if (g.name == "l40s") {
            // The L40S node of the aiconfigurator data: 2-GPU collectives run at PCIe speed (SGLang's P2P custom
            // all-reduce works; nccl-tests bus bandwidth ~20 GB/s), while 4- and 8-GPU ones reach only 5 and
            // 2 GB/s bus bandwidth, i.e. 9-12 GB/s shared through the host: GPUs in P2P pairs, the rest via
            // the CPU. 16 GB/s keeps the analytical time a lower bound.
            s.p2p_group_size = 2;
            s.host_bridge_gbps = 16.0;
            s.source += "; P2P in pairs, 16 GB/s host bridge (from the node's nccl-tests bus bandwidth)";
        }
        return s;
    }
    synperf::detail::report_error("system: no built-in system for GPU '" + g.name +
                                  "'; build one with system::make_system(gpu, numbers, gpus_per_node, topology)");
}

/// The built-in node of catalogue GPU `catalogue_gpu` for `g`, that GPU after run-time overrides (`--set`): the
/// catalogue GPU's size, wiring and PCIe grouping with `g`'s links, named after `g`. Overriding a GPU's `name`
/// renames it; the node stays the one of the GPU it was taken from. Throws `invalid_argument` for unknown GPUs.
[[nodiscard]] inline system_spec builtin_system_for(std::string_view catalogue_gpu, const gpu::runtime_gpu& g) {
    system_spec s = builtin_system(catalogue_gpu, g.numbers);
    if (s.gpu != g.name) {
        s.name = g.name + s.name.substr(s.gpu.size());
        s.gpu = g.name;
    }
    return s;
}

/// The built-in system of a catalogue GPU, with the catalogue's numbers.
[[nodiscard]] inline system_spec builtin_system(std::string_view gpu_name) {
    return builtin_system(gpu_name, gpu::find_gpu(gpu_name).numbers);
}

/// Every built-in system, in GPU catalogue order.
[[nodiscard]] inline std::vector<system_spec> builtin_systems() {
    std::vector<system_spec> out;
    for (const auto& n : detail::builtin_nodes) out.push_back(builtin_system(n.gpu));
    return out;
}

}  // namespace synperf::system
