// SPDX-License-Identifier: Apache-2.0
#pragma once
/// \file Measured single fused_moe_kernel launches with explicit configs (PipeWeave's fused-MoE design-space runs).
///
/// `pipeweave/moe_dse/moe_dse_<GPU>_99.csv`: `weight_type` (w13 / w2), `M` tokens, `E` experts, `topk`, `H` hidden,
/// `N` intermediate (the N of the tuned-config file names: w13 computes 2 N columns), `BLOCK_SIZE_M/N/K`,
/// `GROUP_SIZE_M`, `num_warps`, `num_stages`, `avg_duration` (microseconds), `sample_count`. Only configs near the
/// best of each shape were kept upstream. `tile_hardware_99.csv` (the best tiles per shape) is derived and not read.
///
/// Also the family's training source, `train::source<family::moe_kernel>` (synperf/train/source.hpp): its rows as samples.
#include <algorithm>
#include <array>
#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "synperf/data/csv.hpp"
#include "synperf/data/protocol.hpp"
#include "synperf/error.hpp"
#include "synperf/family/moe_kernel.hpp"
#include "synperf/gpu/numbers.hpp"
#include "synperf/predictor/analyze.hpp"
#include "synperf/predictor/prediction.hpp"
#include "synperf/train/analyze_rows.hpp"
#include "synperf/train/sample.hpp"
#include "synperf/train/source.hpp"
#include "synperf/work/kernel_kinds.hpp"

namespace synperf::data {

/// One measured launch.
struct measured_moe_kernel {
    std::string gpu;  ///< canonical GPU id
    family::moe_kernel_problem problem;
    double latency_us = 0;
    std::uint64_t shape_hash = 0;  ///< hash of (weight, E, topk, H, N): the seen split key
};

/// PipeWeave's GPU names in the file names -> catalogue ids.
inline constexpr std::array<std::pair<std::string_view, std::string_view>, 6> moe_dse_gpus{{{"A100", "a100_sxm"},
                                                                                            {"A40", "a40"},
                                                                                            {"H20", "h20"},
                                                                                            {"H800", "h800"},
                                                                                            {"L40", "l40"},
                                                                                            {"PRO6000S", "rtx_pro_6000_server"}}};

/// PipeWeave's split for these runs (its seen and unseen GPUs, docs/method.md#splits): train on A100, A40, H20
/// and H800; L40 (Ada) and the RTX PRO 6000 (Blackwell sm_120) are architectures no training GPU has.
[[nodiscard]] inline protocol moe_kernel_protocol() {
    return protocol{{"a100_sxm", "a40", "h20", "h800"}, {{"l40", split::unseen_arch}, {"rtx_pro_6000_server", split::unseen_arch}}};
}

/// Reads one `moe_dse_<GPU>_99.csv` of GPU `gpu` (a catalogue id).
inline void read_moe_kernel_file(const std::filesystem::path& file, const std::string& gpu, std::vector<measured_moe_kernel>& out) {
    const csv_table t = csv_table::load(file.string());
    const std::size_t c_w = t.column("weight_type"), c_m = t.column("M"), c_e = t.column("E"), c_topk = t.column("topk"),
                      c_h = t.column("H"), c_n = t.column("N"), c_bm = t.column("BLOCK_SIZE_M"), c_bn = t.column("BLOCK_SIZE_N"),
                      c_bk = t.column("BLOCK_SIZE_K"), c_g = t.column("GROUP_SIZE_M"), c_warps = t.column("num_warps"),
                      c_stages = t.column("num_stages"), c_lat = t.column("avg_duration");
    const auto small = [&](std::size_t r, std::size_t c) {
        const std::int64_t v = t.positive_integer(r, c);
        if (v > 4096)
            throw load_error(file.string(), t.line(r), 0,
                             "column '" + std::string(t.header()[c]) + "': expected a config value <= 4096, got " + std::to_string(v));
        return int(v);
    };
    for (std::size_t r = 0; r < t.rows(); ++r) {
        measured_moe_kernel m;
        m.gpu = gpu;
        const std::string_view w = t.field(r, c_w);
        if (w != "w13" && w != "w2")
            throw load_error(file.string(), t.line(r), 0, "column 'weight_type': expected w13 or w2, got '" + std::string(w) + "'");
        auto& p = m.problem;
        p.weight = w == "w13" ? family::moe_weight::w13 : family::moe_weight::w2;
        p.tokens = t.positive_integer(r, c_m);
        p.experts = t.positive_integer(r, c_e);
        p.topk = t.positive_integer(r, c_topk);
        p.hidden = t.positive_integer(r, c_h);
        p.inter = t.positive_integer(r, c_n);
        p.config = {small(r, c_bm), small(r, c_bn), small(r, c_bk), small(r, c_g), small(r, c_warps), small(r, c_stages)};
        m.latency_us = t.time_us(r, c_lat, 1.0);
        t.check_row(r, [&] { family::moe_kernel::validate(p); });
        m.shape_hash = shape_hash({static_cast<std::int64_t>(p.weight), p.experts, p.topk, p.hidden, p.inter});
        out.push_back(std::move(m));
    }
}

/// Every launch of `data_dir/pipeweave/moe_dse/moe_dse_<GPU>_99.csv` for the GPUs PipeWeave measured.
[[nodiscard]] inline std::vector<measured_moe_kernel> read_moe_kernel_rows(const std::filesystem::path& data_dir) {
    namespace fs = std::filesystem;
    std::vector<measured_moe_kernel> rows;
    const fs::path dir = data_dir / "pipeweave" / "moe_dse";
    bool any = false;
    for (const auto& [name, id] : moe_dse_gpus) {
        const fs::path f = dir / ("moe_dse_" + std::string(name) + "_99.csv");
        if (!synperf::detail::entry_present(f)) continue;
        any = true;
        read_moe_kernel_file(f, std::string(id), rows);
    }
    if (!any) throw load_error(dir.string(), 0, 0, "expected moe_dse_<GPU>_99.csv files (A100, A40, H20, H800, L40, PRO6000S), found none");
    return rows;
}

}  // namespace synperf::data

namespace synperf::train {

/// The single fused_moe_kernel family's training source: PipeWeave's design-space runs,
/// pipeweave/moe_dse/moe_dse_<GPU>_99.csv (one launch per row, explicit config).
template <>
struct source<family::moe_kernel> {
    static constexpr std::string_view summary =
        "one Triton fused_moe_kernel launch with an explicit config (pipeweave/moe_dse/moe_dse_<GPU>_99.csv)";
    static constexpr std::string_view data_credit = "data=PipeWeave(Apache-2.0) moe_dse";
    static data::protocol protocol() { return data::moe_kernel_protocol(); }

    /// Datasheet roofline: max of the useful tensor flop and the bytes the launch must move once (the active
    /// experts' weights, A, C) at DRAM bandwidth.
    static double roofline_us(const family::moe_kernel_problem& p, const family::moe_kernel_plan& plan, const gpu::gpu_numbers& g) {
        const family::moe_gemm_launch& l = plan.gemm;
        const double a_rows = p.weight == family::moe_weight::w13 ? double(p.tokens) : double(plan.routing.assignments());
        const double bytes = l.weight_bytes + 2.0 * (a_rows * double(l.k) + double(plan.routing.assignments()) * double(l.n));
        return std::max(l.useful_flop / (g.tensor_tflops(gpu::tensor_dtype::bf16) * 1e6), bytes / (g.dram_gbps * 1e3));
    }

    static std::vector<sample> load(const std::filesystem::path& dir, const data::protocol& proto,
                                    const work::kernel_kind_set& priced, std::vector<std::string>& notes) {
        const std::vector<data::measured_moe_kernel> rows = data::read_moe_kernel_rows(dir);
        std::vector<sample> out = analyze_rows(rows, [&](const data::measured_moe_kernel& r, const gpu::gpu_numbers& g, sample& s) {
            family::moe_kernel_plan plan;
            try {
                plan = family::moe_kernel::plan(r.problem, g);
            } catch (const invalid_argument&) {
                return;  // left out below: no GPU name
            }
            s.gpu = r.gpu;
            s.framework = "triton";
            s.kernel = std::string("fused_moe_kernel_") + std::string(family::to_string(r.problem.weight));
            s.take_analysis(synperf::analyze<family::moe_kernel>(r.problem, g, priced));
            s.level = 0;
            s.latency_us = r.latency_us;
            s.roofline_us = roofline_us(r.problem, plan, g);
            s.label = proto.label(r.gpu);
            s.part = data::part_of(r.shape_hash);
            const auto& q = r.problem;
            const auto& c = q.config;
            s.key = {q.tokens, q.hidden * 8192 + q.inter, q.experts * 64 + q.topk, static_cast<std::int64_t>(q.weight),
                     ((c.bm * 512 + c.bn) * 512 + c.bk), (c.group_m * 64 + c.warps) * 16 + c.stages,
                     static_cast<std::int64_t>(r.latency_us * 1e3)};
            s.key_size = 7;
        });
        // A measured config whose shared memory the estimate here puts above the GPU's cannot be decomposed as launched.
        drop_unplanned(out, notes, "whose config needs more shared memory per CTA, as estimated here, than the GPU has");
        return out;
    }
};

}  // namespace synperf::train
