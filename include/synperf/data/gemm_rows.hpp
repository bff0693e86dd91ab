// SPDX-License-Identifier: Apache-2.0
#pragma once
/// \file Measured bf16 GEMM latencies from the aiconfigurator-format tables.
///
/// Also the family's training source, `train::source<family::gemm>` (synperf/train/source.hpp): its rows as samples.
#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "synperf/data/csv.hpp"
#include "synperf/data/gemm_timing_loop.hpp"
#include "synperf/data/gpu_folder.hpp"
#include "synperf/data/inventory.hpp"
#include "synperf/data/protocol.hpp"
#include "synperf/family/gemm.hpp"
#include "synperf/gpu/numbers.hpp"
#include "synperf/gpu/registry.hpp"
#include "synperf/predictor/analyze.hpp"
#include "synperf/predictor/prediction.hpp"
#include "synperf/train/analyze_rows.hpp"
#include "synperf/train/sample.hpp"
#include "synperf/train/source.hpp"
#include "synperf/work/kernel_kinds.hpp"

namespace synperf::data {

/// One measured GEMM.
struct measured_gemm {
    std::string gpu;        ///< canonical GPU id
    std::string framework;  ///< trtllm, sglang or vllm
    family::gemm_problem problem;
    double latency_us = 0;
    std::uint64_t shape_hash = 0;  ///< hash of (n, k): the seen split key
};

/// Framework of a row from the table's kernel_source; empty for kernels that are not cuBLAS bf16 GEMMs.
[[nodiscard]] inline std::string gemm_framework(std::string_view kernel_source) {
    if (kernel_source == "torch_flow") return "trtllm";
    if (kernel_source == "sglang") return "sglang";
    if (kernel_source == "vllm_default") return "vllm";
    return {};
}

/// One measured row of a `gemm_perf.csv`: its framework (`gemm_framework`), shape and latency in microseconds.
struct gemm_table_row {
    std::string framework;
    std::int64_t m = 0, n = 0, k = 0;
    double latency_us = 0;
};

/// Calls `visit(row)` for every row of `file` with gemm_dtype `dtype` and a known framework; a non-positive
/// shape or latency, and any error `visit` throws (a family rejecting the row's problem), is a load_error naming the
/// file and line.
template <class Visit>
void for_each_gemm_row(const std::filesystem::path& file, std::string_view dtype, Visit&& visit) {
    const csv_table t = csv_table::load(file.string());
    const std::size_t c_src = t.column("kernel_source"), c_dtype = t.column("gemm_dtype"), c_m = t.column("m"),
                      c_n = t.column("n"), c_k = t.column("k"), c_lat = t.column("latency");
    for (std::size_t r = 0; r < t.rows(); ++r) {
        if (t.field(r, c_dtype) != dtype) continue;
        gemm_table_row row;
        row.framework = gemm_framework(t.field(r, c_src));
        if (row.framework.empty()) continue;
        row.m = t.positive_integer(r, c_m);
        row.n = t.positive_integer(r, c_n);
        row.k = t.positive_integer(r, c_k);
        t.check_row(r, [&] { family::gemm::validate({row.m, row.n, row.k}); });
        row.latency_us = t.time_us(r, c_lat, 1e3);
        t.check_row(r, [&] { visit(std::move(row)); });
    }
}

/// Reads the bf16 rows of one `gemm_perf.csv`; `gpu` is the folder's GPU, `framework_version` the collector's
/// version from the inventory ("" = the newest), which sets each row's reuse distance (gemm_timing_loop.hpp).
inline void read_gemm_file(const std::filesystem::path& file, const std::string& gpu, std::vector<measured_gemm>& out,
                           std::string_view framework_version = {}) {
    const double l2_bytes = gpu::find_gpu(gpu).numbers.l2_bytes;
    for_each_gemm_row(file, "bfloat16", [&](gemm_table_row row) {
        measured_gemm g;
        g.gpu = gpu;
        g.framework = std::move(row.framework);
        g.problem = {row.m, row.n, row.k, family::gemm_dtype::bf16};
        g.problem.reuse_distance_bytes = gemm_reuse_distance(gemm_timing_loop_of(g.framework, framework_version), g.problem, l2_bytes);
        g.latency_us = row.latency_us;
        g.shape_hash = shape_hash({g.problem.n, g.problem.k});
        out.push_back(std::move(g));
    });
}

/// One aiconfigurator-format GEMM table: its file, the folder's GPU and the collector's version ("" = the newest).
struct gemm_table {
    std::filesystem::path file;
    std::string gpu;
    std::string framework_version;
};

/// Every `aiconfigurator*/<gpu>/gemm_perf.csv` under `data_dir`, in a stable order; none is a load_error.
[[nodiscard]] inline std::vector<gemm_table> gemm_tables(const std::filesystem::path& data_dir) {
    namespace fs = std::filesystem;
    const std::map<std::string, std::string> versions = framework_versions(data_dir);
    std::vector<fs::path> files;
    for (const char* collection : {"aiconfigurator", "aiconfigurator_sglang"}) {
        const fs::path root = data_dir / collection;
        std::error_code ec;
        if (!fs::is_directory(root, ec)) continue;
        for (const auto& entry : fs::directory_iterator(root))
            if (entry.is_directory() && synperf::detail::entry_present(entry.path() / "gemm_perf.csv")) files.push_back(entry.path() / "gemm_perf.csv");
    }
    std::sort(files.begin(), files.end());
    if (files.empty()) throw load_error(data_dir.string(), 0, 0, "expected aiconfigurator*/<gpu>/gemm_perf.csv files, found none");
    std::vector<gemm_table> out;
    for (const fs::path& f : files) {
        const auto version = versions.find(f.lexically_relative(data_dir).generic_string());
        out.push_back({f, gpu_of_folder(f.parent_path()), version == versions.end() ? "" : version->second});
    }
    return out;
}

/// Every bf16 GEMM row under `data_dir` (aiconfigurator/ and aiconfigurator_sglang/), in a stable order.
[[nodiscard]] inline std::vector<measured_gemm> read_gemm_rows(const std::filesystem::path& data_dir) {
    std::vector<measured_gemm> rows;
    for (const gemm_table& t : gemm_tables(data_dir)) read_gemm_file(t.file, t.gpu, rows, t.framework_version);
    return rows;
}

}  // namespace synperf::data

namespace synperf::train {

/// The GEMM family's training source: the bf16 rows of aiconfigurator*/<gpu>/gemm_perf.csv.
template <>
struct source<family::gemm> {
    static constexpr std::string_view summary = "bf16 cuBLAS GEMM (aiconfigurator*/<gpu>/gemm_perf.csv)";
    static constexpr std::string_view data_credit = "data=aiconfigurator(Apache-2.0) bf16 gemm_perf";
    static data::protocol protocol() { return data::gemm_protocol(); }

    /// Datasheet roofline: max of dense bf16 compute time and A + B + C bytes at DRAM bandwidth.
    static double roofline_us(const family::gemm_problem& p, const gpu::gpu_numbers& g) {
        const double flop = 2.0 * double(p.m) * double(p.n) * double(p.k);
        const double bytes = 2.0 * (double(p.m) * double(p.k) + double(p.n) * double(p.k) + double(p.m) * double(p.n));
        return std::max(flop / (g.tensor_tflops(gpu::tensor_dtype::bf16) * 1e6), bytes / (g.dram_gbps * 1e3));
    }

    static std::vector<sample> load(const std::filesystem::path& dir, const data::protocol& proto,
                                    const work::kernel_kind_set& priced, std::vector<std::string>&) {
        const std::vector<data::measured_gemm> rows = data::read_gemm_rows(dir);
        return analyze_rows(rows, [&](const data::measured_gemm& r, const gpu::gpu_numbers& g, sample& s) {
            prediction p = synperf::analyze<family::gemm>(r.problem, g, priced);
            s.gpu = r.gpu;
            s.framework = r.framework;
            s.kernel = "cublas";
            s.take_analysis(std::move(p));
            s.level = family::gemm::framework_level(r.framework);
            s.latency_us = r.latency_us;
            s.roofline_us = roofline_us(r.problem, g);
            s.label = proto.label(r.gpu);
            s.part = data::part_of(r.shape_hash);
            s.key = {r.problem.m, r.problem.n, r.problem.k, static_cast<std::int64_t>(r.latency_us * 1e3)};
            s.key_size = 4;
        });
    }
};

}  // namespace synperf::train
