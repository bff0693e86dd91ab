// SPDX-License-Identifier: Apache-2.0
#pragma once
/// \file Measured FP8 linear layers (dynamic activation quantization + FP8 GEMM): the `fp8` rows of the
/// aiconfigurator-format GEMM tables (`aiconfigurator*/<gpu>/gemm_perf.csv`, gemm_dtype = fp8).
///
/// Also the family's training source, `train::source<family::fp8_linear>` (synperf/train/source.hpp): its rows as samples.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "synperf/data/gemm_rows.hpp"
#include "synperf/data/gemm_timing_loop.hpp"
#include "synperf/data/protocol.hpp"
#include "synperf/family/fp8_linear.hpp"
#include "synperf/gpu/numbers.hpp"
#include "synperf/gpu/registry.hpp"
#include "synperf/predictor/analyze.hpp"
#include "synperf/predictor/prediction.hpp"
#include "synperf/train/analyze_rows.hpp"
#include "synperf/train/sample.hpp"
#include "synperf/train/source.hpp"
#include "synperf/work/kernel_kinds.hpp"

namespace synperf::data {

/// One measured FP8 linear layer.
struct measured_fp8_linear {
    std::string gpu;  ///< canonical GPU id
    family::fp8_linear_problem problem;
    double latency_us = 0;
    std::uint64_t shape_hash = 0;  ///< hash of (n, k): the seen split key
};

/// Bytes touched between two runs on the same weights in a collector's loop (gemm_timing_loop.hpp), with
/// this op's operands: X bf16, its e4m3 copy, W e4m3, Y bf16. TensorRT-LLM's collector sizes its weight
/// copies with one byte per FP8 weight; SGLang's six op copies each hold X, its e4m3 copy and W.
[[nodiscard]] inline double fp8_linear_reuse_distance(gemm_timing_loop loop, const family::fp8_linear_problem& p, double l2_bytes) {
    const double x = double(p.m) * double(p.k), w = double(p.n) * double(p.k), y = 2.0 * double(p.m) * double(p.n);
    switch (loop) {
        case gemm_timing_loop::five_weight_copies: return 5 * w + 3 * x + y;
        case gemm_timing_loop::l2_sized_weight_copies: return std::clamp(std::ceil(l2_bytes / w), 1.0, 5.0) * w + 3 * x + y;
        case gemm_timing_loop::six_op_copies: return 6 * (3 * x + w) + y;
        case gemm_timing_loop::six_layer_copies: return 6 * (w + y) + 3 * x;
    }
    return 0;
}

/// Reads the fp8 rows of one `gemm_perf.csv` (kernel_source torch_flow = TensorRT-LLM, sglang = SGLang; the
/// framework levels this family has).
inline void read_fp8_linear_file(const std::filesystem::path& file, const std::string& gpu, std::vector<measured_fp8_linear>& out,
                                 std::string_view framework_version = {}) {
    const double l2_bytes = gpu::find_gpu(gpu).numbers.l2_bytes;
    for_each_gemm_row(file, "fp8", [&](const gemm_table_row& row) {
        if (row.framework != "trtllm" && row.framework != "sglang") return;
        measured_fp8_linear m;
        m.gpu = gpu;
        m.problem = {row.m, row.n, row.k, family::fp8_linear::parse_framework(row.framework), 0.0};
        m.problem.reuse_distance_bytes = fp8_linear_reuse_distance(gemm_timing_loop_of(row.framework, framework_version), m.problem, l2_bytes);
        m.latency_us = row.latency_us;
        family::fp8_linear::validate(m.problem);
        m.shape_hash = shape_hash({m.problem.n, m.problem.k});
        out.push_back(std::move(m));
    });
}

/// Every fp8 GEMM row under `data_dir` (aiconfigurator/ and aiconfigurator_sglang/), in a stable order.
[[nodiscard]] inline std::vector<measured_fp8_linear> read_fp8_linear_rows(const std::filesystem::path& data_dir) {
    std::vector<measured_fp8_linear> rows;
    for (const gemm_table& t : gemm_tables(data_dir)) read_fp8_linear_file(t.file, t.gpu, rows, t.framework_version);
    return rows;
}

}  // namespace synperf::data

namespace synperf::train {

/// The FP8 linear-layer family's training source: the fp8 rows of aiconfigurator*/<gpu>/gemm_perf.csv (dynamic
/// activation quantization + FP8 GEMM, TensorRT-LLM and SGLang).
template <>
struct source<family::fp8_linear> {
    static constexpr std::string_view summary =
        "FP8 linear layer: dynamic activation quantization + FP8 GEMM, TensorRT-LLM and SGLang (aiconfigurator*/<gpu>/gemm_perf.csv fp8 rows)";
    static constexpr std::string_view data_credit = "data=aiconfigurator(Apache-2.0) fp8 gemm_perf";
    static data::protocol protocol() { return data::gemm_protocol(); }

    /// Datasheet roofline: max of dense FP8 compute time and X (bf16) + W (e4m3) + Y (bf16) at DRAM bandwidth.
    static double roofline_us(const family::fp8_linear_problem& p, const gpu::gpu_numbers& g) {
        const double flop = 2.0 * double(p.m) * double(p.n) * double(p.k);
        const double bytes = 2.0 * double(p.m) * double(p.k) + double(p.n) * double(p.k) + 2.0 * double(p.m) * double(p.n);
        return std::max(flop / (g.tensor_tflops(gpu::tensor_dtype::fp8) * 1e6), bytes / (g.dram_gbps * 1e3));
    }

    /// The kernels a row ran, for reports.
    static std::string kernels_of(const family::fp8_linear_problem& p, const gpu::gpu_numbers& g) {
        if (p.framework == family::fp8_linear_framework::sglang) return "per_token_quant+fp8_scaled_mm";
        return g.cc_major == 8 && g.cc_minor == 9 ? "quant+cublas_fp8|cuda_core" : "quant+cublas_fp8";
    }

    static std::vector<sample> load(const std::filesystem::path& dir, const data::protocol& proto,
                                    const work::kernel_kind_set& priced, std::vector<std::string>&) {
        const std::vector<data::measured_fp8_linear> rows = data::read_fp8_linear_rows(dir);
        return analyze_rows(rows, [&](const data::measured_fp8_linear& r, const gpu::gpu_numbers& g, sample& s) {
            prediction p = synperf::analyze<family::fp8_linear>(r.problem, g, priced);
            s.gpu = r.gpu;
            s.framework = std::string(family::to_string(r.problem.framework));
            s.kernel = kernels_of(r.problem, g);
            s.take_analysis(std::move(p));
            s.level = family::fp8_linear::framework_level(s.framework);
            s.latency_us = r.latency_us;
            s.roofline_us = roofline_us(r.problem, g);
            s.label = proto.label(r.gpu);
            s.part = data::part_of(r.shape_hash);
            s.key = {r.problem.m, r.problem.n, r.problem.k, static_cast<std::int64_t>(r.latency_us * 1e3), std::int64_t(s.level)};
            s.key_size = 5;
        });
    }
};

}  // namespace synperf::train
