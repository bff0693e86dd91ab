// SPDX-License-Identifier: Apache-2.0
#pragma once
/// \file Measured fused-MoE block latencies (SGLang Triton fused_moe) from aiconfigurator's SGLang tables.
///
/// `aiconfigurator_sglang/<gpu>/moe_perf.csv`, rows with kernel_source = sglang_fused_moe_triton and
/// distribution = balanced (the only one staged), moe_dtype bfloat16 or fp8_block (fp8 W8A8; the collector uses
/// block scales only when H and I / tp are multiples of 128); latency in milliseconds.
///
/// Also the family's training source, `train::source<family::moe>` (synperf/train/source.hpp): its rows as samples.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "synperf/data/csv.hpp"
#include "synperf/data/gpu_folder.hpp"
#include "synperf/data/protocol.hpp"
#include "synperf/error.hpp"
#include "synperf/family/moe.hpp"
#include "synperf/gpu/numbers.hpp"
#include "synperf/gpu/registry.hpp"
#include "synperf/predictor/analyze.hpp"
#include "synperf/predictor/prediction.hpp"
#include "synperf/train/analyze_rows.hpp"
#include "synperf/train/sample.hpp"
#include "synperf/train/source.hpp"
#include "synperf/work/kernel_kinds.hpp"

namespace synperf::data {

/// What the collector's kernels did with rank 0's remote slots (ep > 1) on each GPU's run. The collector
/// changed: it now clamps the -1 ids to expert 0 (collect_moe.py), earlier runs left them to moe_align's -1
/// bucket. The data tell which: at bf16, H 7168, I 2048, E 256, topk 8, tp 1, 16384 tokens, ep 8 takes
/// 0.18x the time of ep 1 on b200_sxm (6.4 vs 36.3 ms) and rtx_pro_6000_server (9.8 vs 55.8 ms), the eighth
/// of the slots computed, but 0.77-0.97x on the other seven GPUs, where every slot of rank 0's tokens is.
[[nodiscard]] inline family::moe_remote_slots collector_remote_slots(std::string_view gpu) {
    return (gpu == "b200_sxm" || gpu == "rtx_pro_6000_server") ? family::moe_remote_slots::dropped
                                                                : family::moe_remote_slots::clamped_to_expert0;
}

/// One measured MoE block.
struct measured_moe {
    std::string gpu;  ///< canonical GPU id
    family::moe_problem problem;
    double latency_us = 0;
    std::uint64_t shape_hash = 0;  ///< hash of every column but the token count: the seen split key
};

/// Reads the Triton fused-MoE rows of one `moe_perf.csv`; `gpu` is the folder's GPU.
inline void read_moe_file(const std::filesystem::path& file, const std::string& gpu, std::vector<measured_moe>& out) {
    const csv_table t = csv_table::load(file.string());
    const std::size_t c_src = t.column("kernel_source"), c_dtype = t.column("moe_dtype"), c_t = t.column("num_tokens"),
                      c_h = t.column("hidden_size"), c_i = t.column("inter_size"), c_k = t.column("topk"),
                      c_e = t.column("num_experts"), c_tp = t.column("moe_tp_size"), c_ep = t.column("moe_ep_size"),
                      c_dist = t.column("distribution"), c_lat = t.column("latency");
    for (std::size_t r = 0; r < t.rows(); ++r) {
        if (t.field(r, c_src) != "sglang_fused_moe_triton" || t.field(r, c_dist) != "balanced") continue;
        const std::string_view dt = t.field(r, c_dtype);
        family::moe_dtype d;
        if (dt == "bfloat16") d = family::moe_dtype::bf16;
        else if (dt == "fp8_block") d = family::moe_dtype::fp8;
        else throw load_error(file.string(), t.line(r), 0, "column 'moe_dtype': expected bfloat16 or fp8_block, got '" + std::string(dt) + "'");
        measured_moe m;
        m.gpu = gpu;
        m.problem = {t.positive_integer(r, c_t), t.positive_integer(r, c_h), t.positive_integer(r, c_i), t.positive_integer(r, c_e),
                     t.positive_integer(r, c_k), t.positive_integer(r, c_tp), t.positive_integer(r, c_ep), d, std::nullopt,
                     collector_remote_slots(gpu), gpu};  // the GPU's SGLang tuned-config files apply
        m.latency_us = t.time_us(r, c_lat, 1e3);
        t.check_row(r, [&] { family::moe::validate(m.problem); });
        const auto& p = m.problem;
        m.shape_hash = shape_hash({p.hidden, p.inter, p.experts, p.topk, p.tp, p.ep, static_cast<std::int64_t>(d)});
        out.push_back(std::move(m));
    }
}

/// Every Triton fused-MoE row under `data_dir`/aiconfigurator_sglang, in a stable order.
[[nodiscard]] inline std::vector<measured_moe> read_moe_rows(const std::filesystem::path& data_dir) {
    namespace fs = std::filesystem;
    std::vector<fs::path> files;
    const fs::path root = data_dir / "aiconfigurator_sglang";
    std::error_code ec;
    if (fs::is_directory(root, ec))
        for (const auto& entry : fs::directory_iterator(root))
            if (entry.is_directory() && synperf::detail::entry_present(entry.path() / "moe_perf.csv")) files.push_back(entry.path() / "moe_perf.csv");
    std::sort(files.begin(), files.end());
    if (files.empty()) throw load_error(root.string(), 0, 0, "expected <gpu>/moe_perf.csv files, found none");
    std::vector<measured_moe> rows;
    for (const fs::path& f : files) read_moe_file(f, gpu_of_folder(f.parent_path()), rows);
    return rows;
}

}  // namespace synperf::data

namespace synperf::train {

/// The fused-MoE family's training source: the SGLang Triton fused_moe rows of
/// aiconfigurator_sglang/<gpu>/moe_perf.csv (whole MoE block, balanced routing).
template <>
struct source<family::moe> {
    static constexpr std::string_view summary =
        "fused MoE block, SGLang Triton fused_moe (aiconfigurator_sglang/<gpu>/moe_perf.csv)";
    static constexpr std::string_view data_credit = "data=aiconfigurator(Apache-2.0) sglang moe_perf";
    static data::protocol protocol() { return data::gemm_protocol(); }
    static constexpr std::size_t default_max_rows = 24000;

    /// Datasheet roofline: max of the useful tensor flop of both GEMMs and the bytes every kernel must move once
    /// (active experts' weights, activations in and out) at DRAM bandwidth.
    static double roofline_us(const family::moe_problem& p, const family::moe_plan& plan, const gpu::gpu_numbers& g) {
        const double flop = plan.w13.useful_flop + plan.w2.useful_flop;
        const auto dt = p.dtype == family::moe_dtype::bf16 ? gpu::tensor_dtype::bf16 : gpu::tensor_dtype::fp8;
        const double t = double(plan.routing.tokens), a = double(plan.routing.assignments()), h = double(p.hidden),
                     i = double(p.inter / p.tp);
        const double bytes = plan.w13.weight_bytes + plan.w2.weight_bytes + 2.0 * t * h * 2.0 + a * (3.0 * i + h) * 2.0;
        return std::max(flop / (g.tensor_tflops(dt) * 1e6), bytes / (g.dram_gbps * 1e3));
    }

    static std::vector<sample> load(const std::filesystem::path& dir, const data::protocol& proto,
                                    const work::kernel_kind_set& priced, std::vector<std::string>& notes) {
        const std::vector<data::measured_moe> rows = data::read_moe_rows(dir);
        std::vector<char> tuned(rows.size(), 0);  // the row ran one of SGLang's tuned config files
        std::vector<sample> out = analyze_rows(rows, [&](const data::measured_moe& r, const gpu::gpu_numbers& g, sample& s) {
            prediction p;
            try {
                p = synperf::analyze<family::moe>(r.problem, g, priced);
            } catch (const invalid_argument&) {
                return;  // left out below: no GPU name
            }
            s.gpu = r.gpu;
            s.framework = "sglang";
            s.kernel = std::string("fused_moe_triton_") + std::string(family::to_string(r.problem.dtype));
            s.take_analysis(std::move(p));
            s.level = 0;
            s.latency_us = r.latency_us;
            const family::moe_plan plan = family::moe::plan(r.problem, g);
            s.roofline_us = roofline_us(r.problem, plan, g);
            tuned[std::size_t(&r - rows.data())] = plan.tuned_file != nullptr;
            s.label = proto.label(r.gpu);
            s.part = data::part_of(r.shape_hash);
            const auto& q = r.problem;
            s.key = {q.tokens, q.hidden, q.inter, q.experts, q.topk, q.tp * 4096 + q.ep, static_cast<std::int64_t>(q.dtype),
                     static_cast<std::int64_t>(r.latency_us * 1e3)};
            s.key_size = 8;
        });
        std::map<std::string, std::pair<std::size_t, std::size_t>> per_gpu;  // GPU -> (rows on a tuned file, rows)
        for (std::size_t i = 0; i < out.size(); ++i)
            if (!out[i].gpu.empty()) {
                auto& [with_file, all] = per_gpu[out[i].gpu];
                with_file += std::size_t(tuned[i]);
                ++all;
            }
        std::string ran_tuned;
        for (const auto& [gpu, n] : per_gpu) {
            char pct[32];
            std::snprintf(pct, sizeof pct, "%.1f", 100.0 * double(n.first) / double(n.second));
            ran_tuned += (ran_tuned.empty() ? "" : ", ") + gpu + " " + pct + " %";
        }
        notes.push_back("rows whose config came from an SGLang tuned file (the rest ran its default rule): " + ran_tuned);
        // Rows whose default config cannot launch as estimated here (Triton's shared memory above the GPU's) are
        // left out: the collector must have run another config for them, which this decomposer does not know.
        drop_unplanned(out, notes, "whose SGLang default config needs more shared memory per CTA than the GPU has");
        return out;
    }
};

}  // namespace synperf::train
