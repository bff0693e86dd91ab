// SPDX-License-Identifier: Apache-2.0
#pragma once
/// \file A node of GPUs as collectives see it: how many GPUs, how they are wired, link bandwidth and latency.
///
/// The GPU spec (`gpu::gpu_numbers`) says what one GPU has; a system says how several are connected, which
/// is a property of the board or server, not of the chip (the same L40S sits on PCIe boards, the same
/// H100 in 8-GPU NVSwitch servers and in 4-GPU boards with direct NVLink). Collective models read only
/// the numbers here.
#include <algorithm>
#include <cmath>
#include <string>
#include <string_view>

#include "synperf/error.hpp"
#include "synperf/gpu/numbers.hpp"

namespace synperf::system {

/// How the GPUs of one node are connected.
enum class topology {
    nvswitch,         ///< every GPU's NVLinks go to NVSwitches: full bandwidth between any pair (DGX/HGX, NVL trays)
    nvlink_mesh,      ///< direct NVLinks from every GPU to every other (4-GPU HGX boards): links split over peers
    nvlink_pairwise,  ///< NVLink bridges join GPUs in pairs; traffic between pairs crosses PCIe
    pcie,             ///< no NVLink: every transfer crosses PCIe
};

[[nodiscard]] constexpr std::string_view to_string(topology t) noexcept {
    switch (t) {
        case topology::nvswitch: return "nvswitch";
        case topology::nvlink_mesh: return "nvlink_mesh";
        case topology::nvlink_pairwise: return "nvlink_pairwise";
        case topology::pcie: return "pcie";
    }
    return "?";
}

/// Parses "nvswitch", "nvlink_mesh" (or "mesh"), "nvlink_pairwise" (or "pairwise"), "pcie".
[[nodiscard]] inline topology parse_topology(std::string_view s) {
    if (s == "nvswitch") return topology::nvswitch;
    if (s == "nvlink_mesh" || s == "mesh") return topology::nvlink_mesh;
    if (s == "nvlink_pairwise" || s == "pairwise") return topology::nvlink_pairwise;
    if (s == "pcie") return topology::pcie;
    synperf::detail::report_error("system: unknown topology '" + std::string(s) +
                                  "'; known: nvswitch, nvlink_mesh, nvlink_pairwise, pcie");
}

/// Link latencies: NCCL's per-hop hardware latency for its low-latency (LL) protocol, src/graph/tuning.cc
/// (hwLat: NVLink 0.6 us, PCI 1.0 us). A one-flag handshake between two GPUs costs about one hop.
inline constexpr double nvlink_hop_us = 0.6;
inline constexpr double pcie_hop_us = 1.0;

/// One node: its GPU, GPU count, wiring, and per-GPU link numbers (bandwidths per direction).
struct system_spec {
    std::string name;                ///< e.g. "h100_sxm_nvswitch8"
    std::string gpu;                 ///< catalogue GPU id (or a spec file's name)
    int gpus_per_node = 0;           ///< GPUs one collective can span without leaving the node
    topology wiring = topology::pcie;
    double nvlink_gbps = 0;          ///< NVLink bandwidth per GPU, one direction, all links (0: none)
    double pcie_gbps = 0;            ///< PCIe bandwidth per GPU, one direction
    double nvlink_latency_us = nvlink_hop_us;  ///< one hop over NVLink (flag handshake)
    double pcie_latency_us = pcie_hop_us;      ///< one hop over PCIe
    bool in_switch_reduction = false;  ///< NVLink SHARP (NVLS): the switch reduces (NVSwitch gen 3+, Hopper and later)
    int p2p_group_size = 0;          ///< PCIe: GPUs that reach each other peer-to-peer (one switch); 0 = the whole node, 1 = none
    double host_bridge_gbps = 0;     ///< PCIe: total bandwidth between P2P groups through the host, shared by the node
    std::string source;              ///< where the numbers come from

    friend bool operator==(const system_spec&, const system_spec&) = default;

    /// True when `n` GPUs of this node talk over NVLink only (no PCIe hop).
    [[nodiscard]] constexpr bool nvlink_only(int n) const noexcept {
        switch (wiring) {
            case topology::nvswitch:
            case topology::nvlink_mesh: return true;
            case topology::nvlink_pairwise: return n <= 2;
            case topology::pcie: return false;
        }
        return false;
    }
    /// Per-GPU, per-direction bandwidth (GB/s) a collective over `n` GPUs of this node can use on its
    /// slowest link: NVSwitch gives the GPU's full NVLink bandwidth to any set of peers; a direct mesh
    /// gives the links to the n - 1 peers in use (n - 1 of gpus_per_node - 1 bundles); pairwise NVLink
    /// and PCIe rings are limited by PCIe once they leave a pair.
    /// When a PCIe collective spans several P2P groups, its traffic between groups shares the host bridge:
    /// a ring then moves (n - 1) x bytes through it, i.e. 2 x host_bridge_gbps / n per GPU.
    [[nodiscard]] constexpr double collective_gbps(int n) const noexcept {
        const double link = direct_gbps(n);
        if (p2p_group_size > 0 && n > p2p_group_size && host_bridge_gbps > 0)
            return std::min(link, 2.0 * host_bridge_gbps / double(n));
        return link;
    }
    /// The same without the host bridge: the slowest direct link.
    [[nodiscard]] constexpr double direct_gbps(int n) const noexcept {
        switch (wiring) {
            case topology::nvswitch: return nvlink_gbps;
            case topology::nvlink_mesh:
                return gpus_per_node > 1 ? nvlink_gbps * double(n - 1) / double(gpus_per_node - 1) : nvlink_gbps;
            case topology::nvlink_pairwise: return n <= 2 ? nvlink_gbps : pcie_gbps;
            case topology::pcie: return pcie_gbps;
        }
        return pcie_gbps;
    }
    /// Latency of one hop on the slowest link of an `n`-GPU collective (us).
    [[nodiscard]] constexpr double hop_latency_us(int n) const noexcept {
        return nvlink_only(n) ? nvlink_latency_us : pcie_latency_us;
    }
    /// Whether every GPU can reach every other over NVLink (vLLM / SGLang "full NVLink" for custom all-reduce).
    [[nodiscard]] constexpr bool fully_nvlink_connected(int n) const noexcept { return nvlink_only(n); }
    /// Whether `n` GPUs of this node can read each other's memory directly (CUDA peer access), over NVLink or
    /// within one PCIe P2P group; without it every transfer is staged through host memory.
    [[nodiscard]] constexpr bool peer_access(int n) const noexcept {
        return nvlink_only(n) || p2p_group_size == 0 || n <= p2p_group_size;
    }
};

/// Checks a system; throws `invalid_argument` naming the first bad field.
inline const system_spec& validate(const system_spec& s) {
    const auto bad = [&](const std::string& what) {
        synperf::detail::report_error("system '" + s.name + "': " + what);
    };
    if (s.gpus_per_node < 1 || s.gpus_per_node > 1024)
        bad("gpus_per_node must be in 1..1024, got " + std::to_string(s.gpus_per_node));
    synperf::detail::require_enum(s.wiring, topology::pcie, [&s] { return "system '" + s.name + "': unknown topology"; });
    // Plausibility ranges as for GPU numbers (a hundred times beyond today's links): outside them a value is a unit
    // mistake and the latency would be off by orders of magnitude, or infinite.
    if (!(s.pcie_gbps >= 0.1 && s.pcie_gbps <= 1e5)) bad("pcie_gbps must be in 0.1..1e5, got " + synperf::detail::value_text(s.pcie_gbps));
    // Per direction: half the GPU's bidirectional figure, whose range is 1..1e6.
    if (!(s.nvlink_gbps == 0 || (s.nvlink_gbps >= 0.5 && s.nvlink_gbps <= 5e5)))
        bad("nvlink_gbps (per direction) must be 0 (none) or in 0.5..5e5, got " + synperf::detail::approx(s.nvlink_gbps));
    if (s.wiring != topology::pcie && !(s.nvlink_gbps > 0))
        bad(std::string("topology ") + std::string(to_string(s.wiring)) + " needs nvlink_gbps > 0 (the GPU has no NVLink)");
    if (!(s.nvlink_latency_us > 0 && s.nvlink_latency_us <= 1e3) || !(s.pcie_latency_us > 0 && s.pcie_latency_us <= 1e3))
        bad("link latencies must be in (0, 1000] us");
    if (s.in_switch_reduction && s.wiring != topology::nvswitch) bad("in_switch_reduction needs topology nvswitch");
    if (s.p2p_group_size < 0 || s.p2p_group_size > s.gpus_per_node)
        bad("p2p_group_size must be in 0..gpus_per_node, got " + std::to_string(s.p2p_group_size));
    if (s.p2p_group_size > 0 && s.gpus_per_node % s.p2p_group_size != 0)
        bad("p2p_group_size (" + std::to_string(s.p2p_group_size) + ") must divide gpus_per_node (" + std::to_string(s.gpus_per_node) + ")");
    if (!(s.host_bridge_gbps == 0 || (s.host_bridge_gbps >= 0.1 && s.host_bridge_gbps <= 1e6)))  // NaN fails too
        bad("host_bridge_gbps must be 0 (none) or in 0.1..1e6, got " + synperf::detail::value_text(s.host_bridge_gbps));
    if (s.p2p_group_size > 0 && !(s.host_bridge_gbps > 0)) bad("p2p_group_size needs host_bridge_gbps > 0");
    if (s.wiring == topology::nvlink_pairwise && s.gpus_per_node % 2 != 0)
        bad("nvlink_pairwise needs an even gpus_per_node, got " + std::to_string(s.gpus_per_node));
    return s;
}

/// Builds a system from a GPU's numbers and a wiring at run time. NVLink bandwidth per direction is half the
/// GPU's bidirectional `nvlink_gbps` (NVIDIA quotes NVLink totals bidirectionally); NVLink SHARP is assumed on
/// NVSwitch systems of compute capability 9.0 and later (third-generation NVSwitch and later).
[[nodiscard]] inline system_spec make_system(std::string_view gpu_name, const gpu::gpu_numbers& g, int gpus_per_node,
                                             topology wiring) {
    system_spec s;
    s.gpu = std::string(gpu_name);
    s.name = s.gpu + "_" + std::string(to_string(wiring)) + std::to_string(gpus_per_node);
    s.gpus_per_node = gpus_per_node;
    s.wiring = wiring;
    s.nvlink_gbps = wiring == topology::pcie ? 0.0 : g.nvlink_gbps / 2.0;
    s.pcie_gbps = g.pcie_gbps;
    s.in_switch_reduction = wiring == topology::nvswitch && g.cc_major >= 9;
    s.source = "built from the GPU spec (nvlink_gbps / 2 per direction, pcie_gbps) and the given wiring";
    if (wiring != topology::pcie && !(g.nvlink_gbps > 0))
        synperf::detail::report_error("system: GPU '" + s.gpu + "' has no NVLink (nvlink_gbps = 0); use topology pcie");
    validate(s);
    return s;
}

}  // namespace synperf::system
