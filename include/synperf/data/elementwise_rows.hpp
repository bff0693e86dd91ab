// SPDX-License-Identifier: Apache-2.0
#pragma once
/// \file Measured elementwise latencies: static per-tensor FP8 quantize of bf16 [m, k]
/// (aiconfigurator/<gpu>/scale_matrix_perf.csv, TensorRT-LLM) and Vidur's residual add, RoPE and embedding
/// (vidur/compute/<gpu>/*__mlp.csv, fp16, eager PyTorch / sarathi-serve kernels).
///
/// Also the family's training source, `train::source<family::elementwise>` (synperf/train/source.hpp): its rows as samples.
#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "synperf/data/csv.hpp"
#include "synperf/data/gpu_folder.hpp"
#include "synperf/data/protocol.hpp"
#include "synperf/data/vidur_rows.hpp"
#include "synperf/family/elementwise.hpp"
#include "synperf/gpu/numbers.hpp"
#include "synperf/gpu/registry.hpp"
#include "synperf/predictor/analyze.hpp"
#include "synperf/predictor/prediction.hpp"
#include "synperf/train/analyze_rows.hpp"
#include "synperf/train/sample.hpp"
#include "synperf/train/source.hpp"
#include "synperf/work/kernel_kinds.hpp"

namespace synperf::data {

/// One measured elementwise op.
struct measured_elementwise {
    std::string gpu;
    std::string framework;  ///< trtllm (scale_matrix) or vidur
    std::string op;         ///< scale_matrix, add, attn_rope, emb
    family::elementwise_problem problem;
    double latency_us = 0;
    std::int64_t tp = 1;
    std::uint64_t shape_hash = 0;  ///< hash of the non-token columns
};

/// The GEMM protocol (train h100_sxm, b200_sxm, l40s), plus the A40 of Vidur's rows as an unseen architecture.
[[nodiscard]] inline protocol elementwise_protocol() {
    protocol p = gemm_protocol();
    p.held_out.emplace_back("a40", split::unseen_arch);
    return p;
}

/// Reads one scale_matrix_perf.csv (fp8 rows).
inline void read_scale_matrix_file(const std::filesystem::path& file, const std::string& gpu,
                                   std::vector<measured_elementwise>& out) {
    const csv_table t = csv_table::load(file.string());
    const std::size_t c_m = t.column("m"), c_k = t.column("k"), c_q = t.column("quant_dtype"), c_lat = t.column("latency");
    for (std::size_t r = 0; r < t.rows(); ++r) {
        if (t.field(r, c_q) != "fp8") continue;
        measured_elementwise e;
        e.gpu = gpu;
        e.framework = "trtllm";
        e.op = "scale_matrix";
        e.problem.kind = family::elementwise_kind::fp8_quantize;
        e.problem.rows = t.positive_integer(r, c_m);
        e.problem.cols = t.positive_integer(r, c_k);
        t.check_row(r, [&] { family::elementwise::validate(e.problem); });
        e.latency_us = t.time_us(r, c_lat, 1e3);
        e.shape_hash = shape_hash({0, e.problem.cols});
        out.push_back(std::move(e));
    }
}

/// Every scale_matrix row under aiconfigurator/, then Vidur's add, attn_rope and emb rows.
[[nodiscard]] inline std::vector<measured_elementwise> read_elementwise_rows(const std::filesystem::path& data_dir,
                                                                             vidur_exclusions* skipped = nullptr) {
    namespace fs = std::filesystem;
    std::vector<fs::path> files;
    const fs::path root = data_dir / "aiconfigurator";
    std::error_code ec;
    if (fs::is_directory(root, ec))
        for (const auto& entry : fs::directory_iterator(root))
            if (entry.is_directory() && synperf::detail::entry_present(entry.path() / "scale_matrix_perf.csv"))
                files.push_back(entry.path() / "scale_matrix_perf.csv");
    std::sort(files.begin(), files.end());
    if (files.empty()) throw load_error(data_dir.string(), 0, 0, "expected aiconfigurator/<gpu>/scale_matrix_perf.csv files, found none");
    std::vector<measured_elementwise> rows;
    for (const fs::path& f : files) read_scale_matrix_file(f, gpu_of_folder(f.parent_path()), rows);

    for (const vidur_row& v : read_vidur_rows(data_dir, skipped)) {
        const auto base = [&](const char* op, std::int64_t id) {
            measured_elementwise e;
            e.gpu = v.gpu;
            e.framework = "vidur";
            e.op = op;
            e.tp = v.tp;
            e.latency_us = vidur_median_us(v, op);
            e.problem.rows = v.tokens;
            e.problem.element_bytes = 2;
            e.shape_hash = shape_hash({id, v.n_embd, v.n_head, v.n_kv_head, v.vocab, v.tp});
            return e;
        };
        measured_elementwise add = base("add", 1);
        add.problem.kind = family::elementwise_kind::residual_add;
        add.problem.cols = v.n_embd;
        rows.push_back(std::move(add));
        measured_elementwise rope = base("attn_rope", 2);
        rope.problem.kind = family::elementwise_kind::rope;
        rope.problem.heads = int(v.n_head / v.tp);
        rope.problem.kv_heads = int(v.n_kv_head / v.tp);
        rope.problem.head_dim = int(v.n_embd / v.n_head);
        rows.push_back(std::move(rope));
        measured_elementwise emb = base("emb", 3);
        emb.problem.kind = family::elementwise_kind::embedding;
        emb.problem.cols = v.n_embd;
        emb.problem.vocab = v.vocab / v.tp;
        rows.push_back(std::move(emb));
        at_row(v.source, v.line, [&] {
            for (auto it = rows.end() - 3; it != rows.end(); ++it) family::elementwise::validate(it->problem);
        });
    }
    return rows;
}

}  // namespace synperf::data

namespace synperf::train {

/// The elementwise family's training source: TensorRT-LLM's static FP8 quantize
/// (aiconfigurator/<gpu>/scale_matrix_perf.csv) and Vidur's residual add, RoPE and embedding.
template <>
struct source<family::elementwise> {
    static constexpr std::string_view summary =
        "memory-bound elementwise ops (aiconfigurator/<gpu>/scale_matrix_perf.csv FP8 quantize; Vidur add, attn_rope, emb)";
    static constexpr std::string_view data_credit = "data=aiconfigurator(Apache-2.0) scale_matrix_perf,vidur(MIT) add,attn_rope,emb";
    static data::protocol protocol() { return data::elementwise_protocol(); }

    /// Datasheet roofline: the unique bytes at DRAM bandwidth (the FP32 work is far below it).
    static double roofline_us(const family::elementwise_problem& p, const gpu::gpu_numbers& g) {
        return family::elementwise_detail::footprint(p) / (g.dram_gbps * 1e3);
    }

    static std::vector<sample> load(const std::filesystem::path& dir, const data::protocol& proto,
                                    const work::kernel_kind_set& priced, std::vector<std::string>& notes) {
        data::vidur_exclusions skipped;
        const std::vector<data::measured_elementwise> rows = data::read_elementwise_rows(dir, &skipped);
        if (skipped.non_gated > 0)
            notes.push_back(std::to_string(skipped.non_gated) +
                            " Vidur rows of non-gated models left out (phi-2: its add sums three tensors in two kernels)");
        return analyze_rows(rows, [&](const data::measured_elementwise& r, const gpu::gpu_numbers& g, sample& s) {
            prediction p = synperf::analyze<family::elementwise>(r.problem, g, priced);
            s.gpu = r.gpu;
            s.framework = r.framework;
            s.kernel = std::string(family::to_string(r.problem.kind));
            s.take_analysis(std::move(p));
            s.level = family::elementwise::framework_level(r.framework);
            s.latency_us = r.latency_us;
            s.roofline_us = roofline_us(r.problem, g);
            s.label = proto.label(r.gpu);
            s.part = data::part_of(r.shape_hash);
            s.key = {static_cast<std::int64_t>(r.problem.kind), r.problem.rows, r.problem.cols, r.tp,
                     static_cast<std::int64_t>(r.shape_hash >> 1), static_cast<std::int64_t>(r.latency_us * 1e3)};
            s.key_size = 6;
        });
    }
};

}  // namespace synperf::train
