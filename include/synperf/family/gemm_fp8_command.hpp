// SPDX-License-Identifier: Apache-2.0
#pragma once
/// \file `synperf predict gemm_fp8`: the FP8 GEMM family's predict command (`family::predict_command`).
#include <cstdint>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include "synperf/family/command.hpp"
#include "synperf/family/gemm_fp8.hpp"
#include "synperf/family/report.hpp"

namespace synperf::family {

template <>
struct predict_command<gemm_fp8> {
    static constexpr std::string_view summary =
        "FP8 GEMM as vLLM's CUTLASS scaled_mm runs it: Y[m,n] = X[m,k] W[n,k]^T, e4m3 in, bf16 out";

    struct inputs {
        std::int64_t m = 0, n = 0, k = 0;
    };
    static constexpr auto options = std::tuple{option("--m", &inputs::m, "rows of X and Y (tokens)").column("m"),
                                               option("--n", &inputs::n, "output features (multiple of 16)").column("n"),
                                               option("--k", &inputs::k, "input features (multiple of 16)").column("k")};
    /// A --csv file gives whole shapes: columns m, n and k.
    static constexpr csv_rows csv = csv_rows::every_column;

    static gemm_fp8_problem problem(const inputs& in, const target_gpu&) { return {in.m, in.n, in.k}; }
    /// The measurements are vLLM's.
    static std::string framework(const inputs&, const gemm_fp8_problem&) { return "vllm"; }

    using predicted = family::predicted<inputs, gemm_fp8_problem, gemm_fp8_plan>;
    static void json(report& out, const predicted& o) {
        const gemm_fp8_problem& p = o.problem;
        const gemm_fp8_config& c = o.plan.config;
        const kernel_report& k = o.result.kernels.front();
        out.merge({{"m", p.m}, {"n", p.n}, {"k", p.k}, {"kernel", k.name},
                   {"tile", report{{"m", c.bm}, {"n", c.bn}, {"k", c.bk}, {"stages", c.stages}}},
                   {"cluster", report{{"m", c.cluster_m}, {"n", c.cluster_n}}}, {"schedule", to_string(c.schedule)},
                   {"swap_ab", c.swap_ab}, {"persistent", c.persistent}, {"work_units", c.work_units}, {"grid_ctas", c.grid_ctas},
                   {"waves", k.waves}});
        out.merge(cost_terms(k));
    }
    /// A --csv row's JSON is the whole prediction's.
    static void json_row(report& out, const predicted& o) { json(out, o); }
    static report csv_row(const predicted& o) {
        const gemm_fp8_problem& p = o.problem;
        const gemm_fp8_config& c = o.plan.config;
        report row{{"gpu", o.gpu.name}, {"m", p.m}, {"n", p.n}, {"k", p.k}};
        row.merge(prediction_cells(o.result));
        return row.merge({{"bottleneck", o.result.bottleneck}, {"tile", text::cat(c.bm, "x", c.bn, "x", c.bk)},
                          {"schedule", to_string(c.schedule)}, {"waves", decimal(o.result.kernels.front().waves, 3)}});
    }
    static std::vector<std::string> text(const predicted& o) {
        const gemm_fp8_problem& p = o.problem;
        const gemm_fp8_config& c = o.plan.config;
        const kernel_report& k = o.result.kernels.front();
        std::vector<std::string> out{
            text::cat("gemm_fp8 m=", p.m, " n=", p.n, " k=", p.k, " on ", o.gpu.name, " (", o.gpu.display_name, "), vLLM CUTLASS scaled_mm")};
        for (std::string& line : text::prediction_lines(o.result)) out.push_back(std::move(line));
        out.push_back(text::cat("  kernel       ", k.name, ": tile ", c.bm, "x", c.bn, "x", c.bk, ", cluster ", c.cluster_m, "x",
                                c.cluster_n, ", ", to_string(c.schedule), c.swap_ab ? ", swap-AB (runs as N x M)" : "", ", ",
                                c.stages, " stages"));
        out.push_back(text::cat("  launch       ", c.work_units, " work units on ", c.grid_ctas, " CTAs",
                                c.persistent ? " (persistent)" : "", ", ", text::fixed(k.waves, 2), " waves, ", k.busy_sms,
                                " SMs busy, imbalance ", text::fixed(k.imbalance, 2)));
        return out;
    }
};

}  // namespace synperf::family
