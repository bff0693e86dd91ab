// SPDX-License-Identifier: Apache-2.0
#pragma once
/// \file Measured collective latencies: aiconfigurator custom all-reduce and nccl-tests tables, PipeWeave and
/// Vidur torch.distributed profiles, each joined with the system it was measured on.
///
/// Also the family's training source, `train::source<family::allreduce>` (synperf/train/source.hpp): its rows as samples.
#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "synperf/data/csv.hpp"
#include "synperf/data/gpu_folder.hpp"
#include "synperf/data/protocol.hpp"
#include "synperf/family/allreduce.hpp"
#include "synperf/gpu/numbers.hpp"
#include "synperf/gpu/registry.hpp"
#include "synperf/predictor/analyze.hpp"
#include "synperf/predictor/prediction.hpp"
#include "synperf/system/catalogue.hpp"
#include "synperf/train/analyze_rows.hpp"
#include "synperf/train/sample.hpp"
#include "synperf/train/source.hpp"
#include "synperf/work/kernel_kinds.hpp"

namespace synperf::data {

/// One measured collective.
struct measured_collective {
    std::string gpu;        ///< canonical GPU id
    std::string collector;  ///< report label: trtllm, sglang, sglang_eager, nccl/<op>, torch/pipeweave, torch/vidur
    family::allreduce_problem problem;
    double latency_us = 0;
    std::uint64_t shape_hash = 0;  ///< hash of (op, gpus, bytes): the seen split key
};

/// Rows left out while reading, by reason.
struct collective_exclusions {
    std::size_t alltoall = 0;    ///< nccl-tests alltoall rows (not modelled)
    std::size_t multi_node = 0;  ///< profiled rows spanning several nodes (inter-node network not modelled)
};

/// All-reduce protocol (docs/method.md#splits): train on the systems of h100_sxm, b200_sxm, l40s; a100_sxm and
/// rtx_pro_6000_server unseen-arch; gb200 / gb300 4-GPU nodes and b300_sxm unseen-sku; h200_sxm sibling. Other
/// GPUs of the PipeWeave / Vidur profiles (h20, h800, rtx_6000_ada, a100_pcie_40gb, h100_pcie) get the
/// protocol's default label, unseen-sku.
[[nodiscard]] inline protocol allreduce_protocol() {
    return protocol{{"h100_sxm", "b200_sxm", "l40s"},
                    {{"a100_sxm", split::unseen_arch},
                     {"rtx_pro_6000_server", split::unseen_arch},
                     {"gb200", split::unseen_sku},
                     {"gb300", split::unseen_sku},
                     {"b300_sxm", split::unseen_sku},
                     {"h200_sxm", split::sibling}}};
}

namespace allreduce_rows_detail {

inline measured_collective make_row(const std::string& gpu, std::string collector, const system::system_spec& sys,
                                    family::collective_op op, family::collective_dtype dtype, int gpus,
                                    std::int64_t bytes, family::collective_impl impl, double latency_us) {
    measured_collective m;
    m.gpu = gpu;
    m.collector = std::move(collector);
    m.problem = family::allreduce_problem{sys, op, bytes, dtype, gpus, impl};
    m.latency_us = latency_us;
    m.shape_hash = shape_hash({static_cast<std::int64_t>(op), gpus, bytes});
    return m;
}

/// A PipeWeave or Vidur cluster folder: its GPU and system, or an empty GPU id for an unknown folder.
struct profiled_cluster {
    std::string_view folder;
    std::string_view gpu;
    int gpus_per_node;
    system::topology wiring;
    std::string_view why;
};
inline constexpr std::array<profiled_cluster, 10> profiled_clusters{{
    // PipeWeave collective/<GPU>: max_devices_per_node gives the node size.
    {"A100", "a100_sxm", 8, system::topology::nvswitch, "8-GPU A100 node (max_devices_per_node 8): DGX A100"},
    {"H100", "h100_sxm", 4, system::topology::nvlink_mesh,
     "4-GPU H100 node (max_devices_per_node 4) of 132-SM H100 SXM GPUs (PipeWeave hardware/H100.json): HGX H100 4-GPU, direct NVLink"},
    {"H20", "h20", 8, system::topology::nvswitch, "8-GPU HGX H20"},
    {"H800", "h800", 8, system::topology::nvswitch, "8-GPU HGX H800"},
    {"RTX_6000_Ada", "rtx_6000_ada", 2, system::topology::pcie, "2-GPU PCIe workstation (max_devices_per_node 2)"},
    {"RTX_PRO_6000_S", "rtx_pro_6000_server", 4, system::topology::pcie, "4-GPU PCIe server (max_devices_per_node 4)"},
    // Vidur network/<cluster>.
    {"a100_dgx", "a100_sxm", 8, system::topology::nvswitch, "DGX A100"},
    {"h100_dgx", "h100_sxm", 8, system::topology::nvswitch, "DGX H100"},
    {"a100_pairwise_nvlink", "a100_pcie_40gb", 4, system::topology::nvlink_pairwise,
     "4 A100 PCIe (80 GB in Vidur's Azure NC A100 v4; the catalogue's 40 GB part has the same links) with NVLink bridges in pairs"},
    {"h100_pairwise_nvlink", "h100_pcie", 4, system::topology::nvlink_pairwise,
     "4 H100 PCIe/NVL with NVLink bridges in pairs (Vidur's Azure NC H100 v5)"},
}};

inline system::system_spec cluster_system(const profiled_cluster& c) {
    const gpu::runtime_gpu g = gpu::find_gpu(c.gpu);
    system::system_spec s = system::make_system(g.name, g.numbers, c.gpus_per_node, c.wiring);
    s.name = std::string(c.folder);
    s.source = std::string(c.why);
    return s;
}

}  // namespace allreduce_rows_detail

/// Reads one aiconfigurator `custom_allreduce_perf.csv` (TRT-LLM: column `implementation`; SGLang: `backend`).
inline void read_custom_allreduce_file(const std::filesystem::path& file, const std::string& gpu,
                                       std::vector<measured_collective>& out) {
    using namespace allreduce_rows_detail;
    const csv_table t = csv_table::load(file.string());
    const system::system_spec sys = system::builtin_system(gpu);
    const bool sglang = t.has_column("backend");
    const std::size_t c_dtype = t.column("allreduce_dtype"), c_n = t.column("num_gpus"), c_size = t.column("message_size"),
                      c_lat = t.column("latency"), c_backend = sglang ? t.column("backend") : t.column("kernel_source");
    for (std::size_t r = 0; r < t.rows(); ++r) {
        family::collective_impl impl = family::collective_impl::trtllm;
        if (sglang) {
            const std::string_view b = t.field(r, c_backend);
            if (b == "sglang_graph") impl = family::collective_impl::sglang;
            else if (b == "sglang_eager") impl = family::collective_impl::sglang_eager;
            else throw load_error(t.source(), t.line(r), 0, "column 'backend': expected sglang_graph or sglang_eager, got '" + std::string(b) + "'");
        }
        const auto dtype = t.check_row(r, [&] { return family::parse_collective_dtype(t.field(r, c_dtype)); });
        const std::int64_t bytes = t.positive_integer(r, c_size) * family::element_bytes(dtype);  // message_size = elements
        measured_collective m = make_row(gpu, std::string(family::to_string(impl)), sys, family::collective_op::all_reduce, dtype,
                                         t.positive_int(r, c_n), bytes, impl, t.time_us(r, c_lat, 1e3));
        t.check_row(r, [&] { family::validate(m.problem); });
        out.push_back(std::move(m));
    }
}

/// Reads one aiconfigurator `nccl_perf.csv` (nccl-tests): all-reduce, all-gather, reduce-scatter rows.
inline void read_nccl_file(const std::filesystem::path& file, const std::string& gpu, std::vector<measured_collective>& out,
                           collective_exclusions* skipped) {
    using namespace allreduce_rows_detail;
    const csv_table t = csv_table::load(file.string());
    const system::system_spec sys = system::builtin_system(gpu);
    const std::size_t c_op = t.column("op_name"), c_dtype = t.column("nccl_dtype"), c_n = t.column("num_gpus"),
                      c_size = t.column("message_size"), c_lat = t.column("latency");
    for (std::size_t r = 0; r < t.rows(); ++r) {
        if (t.field(r, c_op) == "alltoall") {
            if (skipped != nullptr) ++skipped->alltoall;
            continue;
        }
        const auto op = t.check_row(r, [&] { return family::parse_collective_op(t.field(r, c_op)); });
        const auto dtype = t.check_row(r, [&] { return family::parse_collective_dtype(t.field(r, c_dtype)); });
        const std::int64_t bytes = t.positive_integer(r, c_size) * family::element_bytes(dtype);  // nccl-tests bytes / element size
        measured_collective m = make_row(gpu, "nccl/" + std::string(family::to_string(op)), sys, op, dtype,
                                         t.positive_int(r, c_n), bytes, family::collective_impl::nccl,
                                         t.time_us(r, c_lat, 1e3));
        t.check_row(r, [&] { family::validate(m.problem); });
        out.push_back(std::move(m));
    }
}

/// Reads one PipeWeave `collective/<GPU>/all_reduce.csv` or Vidur `network/<cluster>/all_reduce.csv`.
/// `size` is in **bytes** (Vidur's profiler writes `size * 2  # bytes` for its fp16 buffer,
/// vidur/profiling/collectives/collectives_wrapper.py; read as elements, several rows would beat the NVLink
/// peak); latency is the median of the profiled NCCL kernel time (ms).
inline void read_profiled_allreduce_file(const std::filesystem::path& file, const allreduce_rows_detail::profiled_cluster& c,
                                         const std::string& collector, std::vector<measured_collective>& out,
                                         collective_exclusions* skipped) {
    using namespace allreduce_rows_detail;
    const csv_table t = csv_table::load(file.string());
    const system::system_spec sys = cluster_system(c);
    const std::string gpu(c.gpu);
    const std::size_t c_lat = t.column("time_stats.all_reduce.median"), c_n = t.column("num_workers"), c_size = t.column("size"),
                      c_dpn = t.column("devices_per_node"), c_coll = t.column("collective");
    for (std::size_t r = 0; r < t.rows(); ++r) {
        if (t.field(r, c_coll) != "all_reduce")
            throw load_error(t.source(), t.line(r), 0, "column 'collective': expected all_reduce, got '" + std::string(t.field(r, c_coll)) + "'");
        const int n = t.positive_int(r, c_n);
        const std::int64_t per_node = t.positive_integer(r, c_dpn);
        if (n < per_node)
            throw load_error(t.source(), t.line(r), 0, "expected num_workers (" + std::to_string(n) + ") to fill whole nodes of devices_per_node (" +
                                                           std::to_string(per_node) + "), got fewer");
        if (n > per_node) {
            if (skipped != nullptr) ++skipped->multi_node;
            continue;
        }
        measured_collective m = make_row(gpu, collector, sys, family::collective_op::all_reduce, family::collective_dtype::fp16,
                                         n, t.positive_integer(r, c_size), family::collective_impl::torch,
                                         t.time_us(r, c_lat, 1e3));
        t.check_row(r, [&] { family::validate(m.problem); });
        out.push_back(std::move(m));
    }
}

/// Every collective row under `data_dir`, in a stable order.
[[nodiscard]] inline std::vector<measured_collective> read_allreduce_rows(const std::filesystem::path& data_dir,
                                                                          collective_exclusions* skipped = nullptr) {
    namespace fs = std::filesystem;
    std::vector<measured_collective> rows;
    const auto gpu_dirs = [&](const char* collection) {
        std::vector<fs::path> out;
        std::error_code ec;
        const fs::path root = data_dir / collection;
        if (!fs::is_directory(root, ec)) return out;
        for (const auto& e : fs::directory_iterator(root))
            if (e.is_directory()) out.push_back(e.path());
        std::sort(out.begin(), out.end());
        return out;
    };
    for (const char* collection : {"aiconfigurator", "aiconfigurator_sglang"})
        for (const fs::path& d : gpu_dirs(collection)) {
            const bool custom = synperf::detail::entry_present(d / "custom_allreduce_perf.csv");
            const bool nccl = synperf::detail::entry_present(d / "nccl_perf.csv");
            if (!custom && !nccl) continue;
            const std::string gpu = gpu_of_folder(d);
            if (custom) read_custom_allreduce_file(d / "custom_allreduce_perf.csv", gpu, rows);
            if (nccl) read_nccl_file(d / "nccl_perf.csv", gpu, rows, skipped);
        }
    for (const auto& [collection, label] : {std::pair{"pipeweave/collective", "torch/pipeweave"}, std::pair{"vidur/network", "torch/vidur"}})
        for (const fs::path& d : gpu_dirs(collection)) {
            if (!synperf::detail::entry_present(d / "all_reduce.csv")) continue;
            const std::string folder = d.filename().string();
            const auto it = std::find_if(allreduce_rows_detail::profiled_clusters.begin(), allreduce_rows_detail::profiled_clusters.end(),
                                         [&](const auto& c) { return c.folder == folder; });
            if (it == allreduce_rows_detail::profiled_clusters.end())
                throw load_error((d / "all_reduce.csv").string(), 0, 0, "unknown cluster folder '" + folder + "': its GPU and wiring are not known");
            read_profiled_allreduce_file(d / "all_reduce.csv", *it, label, rows, skipped);
        }
    if (rows.empty())
        throw load_error(data_dir.string(), 0, 0,
                         "expected aiconfigurator*/<gpu>/{custom_allreduce,nccl}_perf.csv or pipeweave/collective, vidur/network files, found none");
    return rows;
}

}  // namespace synperf::data

namespace synperf::train {

/// The all-reduce family's training source: aiconfigurator*/<gpu>/custom_allreduce_perf.csv (TRT-LLM AUTO,
/// SGLang custom all-reduce), aiconfigurator/<gpu>/nccl_perf.csv (nccl-tests), PipeWeave collective/ and Vidur
/// network/ (torch.distributed).
template <>
struct source<family::allreduce> {
    static constexpr std::string_view summary =
        "all-reduce / all-gather / reduce-scatter in one node (custom_allreduce_perf, nccl_perf, PipeWeave, Vidur)";
    static constexpr std::string_view data_credit =
        "data=aiconfigurator(Apache-2.0) custom_allreduce_perf+nccl_perf, pipeweave(Apache-2.0) collective, vidur(MIT) network";
    static data::protocol protocol() { return data::allreduce_protocol(); }

    static std::vector<sample> load(const std::filesystem::path& dir, const data::protocol& proto,
                                    const work::kernel_kind_set& priced, std::vector<std::string>& notes) {
        data::collective_exclusions skipped;
        const std::vector<data::measured_collective> rows = data::read_allreduce_rows(dir, &skipped);
        if (skipped.alltoall > 0)
            notes.push_back(std::to_string(skipped.alltoall) + " nccl-tests alltoall rows left out (all-to-all is not modelled)");
        if (skipped.multi_node > 0)
            notes.push_back(std::to_string(skipped.multi_node) +
                            " profiled all-reduce rows spanning several nodes left out (inter-node network not modelled)");
        return analyze_rows(rows, [&](const data::measured_collective& r, const gpu::gpu_numbers& g, sample& s) {
            prediction p = synperf::analyze<family::allreduce>(r.problem, g, priced);
            const family::allreduce_estimate e = family::estimate(r.problem);
            s.gpu = r.gpu;
            s.framework = r.collector;
            s.kernel = std::string(family::to_string(e.policy));
            s.take_analysis(std::move(p));
            s.level = static_cast<std::size_t>(r.problem.implementation);
            s.latency_us = r.latency_us;
            s.roofline_us = e.policy_us;  // the pure alpha-beta model of the algorithm the implementation runs
            s.label = proto.label(r.gpu);
            s.part = data::part_of(r.shape_hash);
            s.key = {static_cast<std::int64_t>(r.problem.op), r.problem.gpus, r.problem.bytes,
                     static_cast<std::int64_t>(r.problem.implementation), static_cast<std::int64_t>(r.problem.dtype),
                     static_cast<std::int64_t>(r.latency_us * 1e3)};
            s.key_size = 6;
        });
    }
};

}  // namespace synperf::train
