// SPDX-License-Identifier: Apache-2.0
#pragma once
/// \file Measured FP8 GEMM latencies (vLLM CUTLASS scaled_mm, the kernel alone) from PipeWeave's tables.
///
/// `pipeweave/gemm_fp8_{train,test}.csv`: the measurement is `M,N,K,avg_duration` (microseconds) and
/// `hardware` (CUDA device string); the other columns are PipeWeave's own derived features and are not read.
///
/// Also the family's training source, `train::source<family::gemm_fp8>` (synperf/train/source.hpp): its rows as samples.
#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "synperf/data/csv.hpp"
#include "synperf/data/protocol.hpp"
#include "synperf/family/gemm_fp8.hpp"
#include "synperf/gpu/numbers.hpp"
#include "synperf/gpu/registry.hpp"
#include "synperf/predictor/analyze.hpp"
#include "synperf/predictor/prediction.hpp"
#include "synperf/train/analyze_rows.hpp"
#include "synperf/train/sample.hpp"
#include "synperf/train/source.hpp"
#include "synperf/work/kernel_kinds.hpp"

namespace synperf::data {

/// One measured FP8 GEMM.
struct measured_gemm_fp8 {
    std::string gpu;  ///< canonical GPU id
    family::gemm_fp8_problem problem;
    double latency_us = 0;
    std::uint64_t shape_hash = 0;  ///< hash of (n, k): the seen split key
};

/// Reads one PipeWeave FP8 GEMM table (any GPU names the catalogue knows; others are a load_error).
inline void read_gemm_fp8_file(const std::filesystem::path& file, std::vector<measured_gemm_fp8>& out) {
    const csv_table t = csv_table::load(file.string());
    const std::size_t c_m = t.column("M"), c_n = t.column("N"), c_k = t.column("K"), c_lat = t.column("avg_duration"),
                      c_hw = t.column("hardware");
    std::map<std::string, std::string, std::less<>> names;  // device string -> canonical id
    for (std::size_t r = 0; r < t.rows(); ++r) {
        const std::string_view hw = t.field(r, c_hw);
        auto it = names.find(hw);
        if (it == names.end()) {
            std::string id;
            try {
                id = gpu::find_gpu(hw).name;
            } catch (const invalid_argument&) {
                throw load_error(file.string(), t.line(r), 0, "column 'hardware': expected a known GPU, got '" + std::string(hw) + "'");
            }
            it = names.emplace(std::string(hw), std::move(id)).first;
        }
        measured_gemm_fp8 g;
        g.gpu = it->second;
        g.problem = {t.positive_integer(r, c_m), t.positive_integer(r, c_n), t.positive_integer(r, c_k)};
        g.latency_us = t.time_us(r, c_lat, 1.0);
        t.check_row(r, [&] { family::gemm_fp8::validate(g.problem); });
        g.shape_hash = shape_hash({g.problem.n, g.problem.k});
        out.push_back(std::move(g));
    }
}

/// Every FP8 GEMM row of `data_dir/pipeweave/gemm_fp8_{train,test}.csv` (PipeWeave's own train/test files
/// are pooled: the protocol splits by GPU and by (n, k), not by file).
[[nodiscard]] inline std::vector<measured_gemm_fp8> read_gemm_fp8_rows(const std::filesystem::path& data_dir) {
    namespace fs = std::filesystem;
    std::vector<measured_gemm_fp8> rows;
    bool any = false;
    for (const char* name : {"gemm_fp8_train.csv", "gemm_fp8_test.csv"}) {
        const fs::path f = data_dir / "pipeweave" / name;
        if (!synperf::detail::entry_present(f)) continue;
        any = true;
        read_gemm_fp8_file(f, rows);
    }
    if (!any) throw load_error((data_dir / "pipeweave").string(), 0, 0, "expected gemm_fp8_train.csv / gemm_fp8_test.csv, found neither");
    return rows;
}

}  // namespace synperf::data

namespace synperf::train {

/// The FP8 GEMM family's training source: pipeweave/gemm_fp8_{train,test}.csv (vLLM CUTLASS scaled_mm measured
/// alone).
template <>
struct source<family::gemm_fp8> {
    static constexpr std::string_view summary = "FP8 GEMM, vLLM CUTLASS scaled_mm (pipeweave/gemm_fp8_{train,test}.csv)";
    static constexpr std::string_view data_credit = "data=PipeWeave(Apache-2.0) gemm_fp8";
    static data::protocol protocol() { return data::gemm_fp8_protocol(); }
    // With the exact gradient the cooperative-kernel rows (measured efficiency 0.63) sit at a predicted 1.0, the
    // training GPU H800's included; the floor lowers the validation loss from 0.040 to 0.024 (docs/families/gemm_fp8.md).
    static constexpr double saturation_gradient_floor = 0.02;

    /// Datasheet roofline: max of dense FP8 compute time and A + B (1 byte) + Y (2 bytes) at DRAM bandwidth.
    static double roofline_us(const family::gemm_fp8_problem& p, const gpu::gpu_numbers& g) {
        const double flop = 2.0 * double(p.m) * double(p.n) * double(p.k);
        const double bytes = double(p.m) * double(p.k) + double(p.n) * double(p.k) + 2.0 * double(p.m) * double(p.n);
        return std::max(flop / (g.tensor_tflops(gpu::tensor_dtype::fp8) * 1e6), bytes / (g.dram_gbps * 1e3));
    }

    static std::vector<sample> load(const std::filesystem::path& dir, const data::protocol& proto,
                                    const work::kernel_kind_set& priced, std::vector<std::string>&) {
        const std::vector<data::measured_gemm_fp8> rows = data::read_gemm_fp8_rows(dir);
        return analyze_rows(rows, [&](const data::measured_gemm_fp8& r, const gpu::gpu_numbers& g, sample& s) {
            prediction p = synperf::analyze<family::gemm_fp8>(r.problem, g, priced);
            s.gpu = r.gpu;
            s.framework = "vllm";
            s.kernel = "cutlass_scaled_mm";
            s.take_analysis(std::move(p));
            s.level = 0;
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
