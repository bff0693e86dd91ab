// SPDX-License-Identifier: Apache-2.0
#pragma once
/// \file A kernel family of one's own in one header: PyTorch's LayerNorm forward (vectorized_layer_norm_kernel), one
/// CTA of 128 threads per row, Welford reduction then rescale; and its training source (measurements in a CSV of
/// gpu,rows,cols,latency_us, given as the file or as layernorm.csv in a data directory, and Vidur's phi-2 LayerNorm rows
/// under that directory). Add `my::layernorm` to a
/// family list (`synperf::builtin_families::append<my::layernorm>`) and every command written over the list has it.
#include <array>
#include <cstdint>
#include <filesystem>
#include <span>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include <synperf/data/csv.hpp>
#include <synperf/family/command.hpp>
#include <synperf/family/memory_bound.hpp>
#include <synperf/predictor/analyze.hpp>
#include <synperf/train/analyze_rows.hpp>  // target synperf::train (xtensor, xtensor-blas, BLAS)
#include <synperf/train/source.hpp>

namespace my {
namespace mb = synperf::family::memory_bound;

struct layernorm_problem {
    std::int64_t rows = 0, cols = 0;  ///< tokens, normalized size (fp16)
};

/// The family: the launch PyTorch runs and its work, per CTA (x read twice, the second time from L1; gamma, beta,
/// y once; per element ~8 FMA-pipe ops and a reciprocal) and for the op. Its features are ratios to the GPU's own
/// capacities (memory_bound.hpp), so that a model trained on a few GPUs transfers to another.
struct layernorm {
    using problem_type = layernorm_problem;
    using plan_type = mb::plan;
    static constexpr std::string_view name = "layernorm";
    static constexpr std::array<std::string_view, 1> framework_levels{"torch"};
    static constexpr std::array<std::string_view, 5> feature_names{"theoretical_us", "dram_over_bound", "latency_over_bound",
                                                                   "waves", "busy_sm_fraction"};
    static std::size_t framework_level(std::string_view) { return 0; }
    static void validate(const layernorm_problem& p) {
        if (p.rows < 1 || p.cols < 4 || p.cols % 4 != 0) throw synperf::invalid_argument("layernorm: rows >= 1, cols % 4 == 0");
    }
    static constexpr auto main_dispatch(const synperf::gpu::gpu_numbers&) { return synperf::work::dispatch_kind::hardware; }
    static mb::plan plan(const layernorm_problem& p, const synperf::gpu::gpu_numbers& g) {
        validate(p);
        const double n = double(p.cols), rows = double(p.rows);
        const mb::launch_shape s{.name = "vectorized_layer_norm_kernel", .ctas = p.rows, .threads = 128, .regs = 32, .smem = 24,
                                 .vector_bytes = 8, .accesses_per_thread = 5.0 * double(mb::ceil_div(p.cols, 512)),
                                 .memory_rounds = 0, .rounds_then_stream = false,
                                 .cta = {.fma_ops = 8.0 * n + 5120.0, .xu_ops = n + 768.0, .l2_bytes = 8.0 * n + 8.0, .smem_bytes = 0}};
        const mb::compulsory_work c{.fma_ops = 4.0 * rows * n, .xu_ops = rows, .footprint_bytes = 4.0 * (rows + 1) * n + 8.0 * rows};
        return {.kernels = {mb::make_launch(s, c, g)}, .shapes = {s}, .footprint_bytes = c.footprint_bytes};
    }
    static std::array<double, 5> features(const layernorm_problem&, const mb::plan& pl,
                                          std::span<const synperf::features::kernel_features> kf, const synperf::gpu::gpu_numbers& g) {
        const auto all = mb::common_features(pl, kf, g);  // in the order of mb::common_feature_names
        return {all[0], all[1], all[7], all[9], all[10]};
    }
};

struct measured_row {
    std::string gpu;
    layernorm_problem problem;
    double latency_us = 0;
};

}  // namespace my

/// Its training source: where the measurements are, the GPUs to train on, and each row as a sample.
template <>
struct synperf::train::source<my::layernorm> {
    static constexpr std::string_view summary = "PyTorch LayerNorm forward";
    static constexpr std::string_view data_credit = "data=vidur(MIT) phi-2 input_layernorm";
    static data::protocol protocol() { return {{"a100_sxm", "a40", "h100_sxm"}, {}}; }
    static constexpr bool leave_one_out = true;  // each of them predicted by a model trained on the others

    static std::vector<sample> load(const std::filesystem::path& data, const data::protocol& proto,
                                    const work::kernel_kind_set& priced, std::vector<std::string>&) {
        std::vector<my::measured_row> rows;
        const auto read = [&rows](const std::filesystem::path& csv, const char* gpu, const char* n, const char* d, const char* t, double us) {
            if (!std::filesystem::is_regular_file(csv)) return;
            const data::csv_table f = data::csv_table::load(csv.string());
            for (std::size_t i = 0; i < f.rows(); ++i)
                rows.push_back({gpu ? gpu : std::string(f.field(i, f.column("gpu"))),
                                {f.positive_integer(i, f.column(n)), f.positive_integer(i, f.column(d))}, f.time_us(i, f.column(t), us)});
        };
        read(std::filesystem::is_regular_file(data) ? data : data / "layernorm.csv", nullptr, "rows", "cols", "latency_us", 1.0);
        for (const char* gpu : {"a100", "a40", "h100"})
            read(data / "vidur/compute" / gpu / "microsoft__phi-2__mlp.csv", gpu, "num_tokens", "n_embd", "time_stats.input_layernorm.median", 1e3);
        return analyze_rows(rows, [&](const my::measured_row& r, const gpu::gpu_numbers& g, sample& s) {
            s.gpu = gpu::find_gpu(r.gpu).name;
            s.framework = s.kernel = "torch";
            s.take_analysis(synperf::analyze<my::layernorm>(r.problem, g, priced));
            s.latency_us = r.latency_us;
            s.roofline_us = 4.0 * double(r.problem.rows * r.problem.cols) / (g.dram_gbps * 1e3);  // x in, y out
            s.label = proto.label(s.gpu);
            s.part = data::part_of(data::shape_hash({r.problem.rows, r.problem.cols}));  // validation shapes
            s.key = {r.problem.rows, r.problem.cols, std::int64_t(r.latency_us * 1e3)};
            s.key_size = 3;
        });
    }
};

/// Its `synperf predict layernorm` command, for a command line built over a list that holds it (`--rows`, `--cols` or a
/// CSV with those columns; `--weights` gives the trained model).
template <>
struct synperf::family::predict_command<my::layernorm> {
    static constexpr std::string_view summary = "PyTorch LayerNorm forward over rows x cols (fp16)";
    struct inputs {
        std::int64_t rows = 0, cols = 0;
    };
    static constexpr auto options = std::tuple{option("--rows", &inputs::rows, "rows (tokens)").column("rows"),
                                               option("--cols", &inputs::cols, "normalized size").column("cols")};
    static my::layernorm_problem problem(const inputs& in, const target_gpu&) { return {in.rows, in.cols}; }
    static std::string framework(const inputs&, const my::layernorm_problem&) { return "torch"; }
};
