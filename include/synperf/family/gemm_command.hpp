// SPDX-License-Identifier: Apache-2.0
#pragma once
/// \file `synperf predict gemm`: the bf16/fp16 GEMM family's predict command (`family::predict_command`).
#include <cstdint>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include "synperf/error.hpp"
#include "synperf/family/command.hpp"
#include "synperf/family/gemm.hpp"
#include "synperf/family/report.hpp"

namespace synperf::family {

template <>
struct predict_command<gemm> {
    static constexpr std::string_view summary = "bf16/fp16 GEMM as cuBLAS runs it: Y[m,n] = X[m,k] W[n,k]^T";

    struct inputs {
        std::int64_t m = 0, n = 0, k = 0;
        std::string dtype = "bf16";
        std::string framework = "trtllm";
        double reuse_distance = 0;
    };
    static constexpr auto options = std::tuple{
        option("--m", &inputs::m, "rows of X and Y (tokens)").column("m"),
        option("--n", &inputs::n, "output features").column("n"),
        option("--k", &inputs::k, "input features").column("k"),
        option("--dtype", &inputs::dtype, "bf16 or fp16").show_default(),
        option("--framework", &inputs::framework, "trtllm, sglang or vllm (the collector the model mimics)")
            .one_of("trtllm sglang vllm")
            .show_default(),
        option("--reuse-distance", &inputs::reuse_distance,
               "bytes touched between two runs on the same weights (default 0: serving, weights from DRAM; a benchmark "
               "cycling c copies of W: c*n*k*2)")};
    /// A --csv file gives whole shapes: columns m, n and k.
    static constexpr csv_rows csv = csv_rows::every_column;

    static gemm_dtype parse_dtype(std::string_view s) {
        if (s == "bf16" || s == "bfloat16") return gemm_dtype::bf16;
        if (s == "fp16" || s == "float16") return gemm_dtype::fp16;
        synperf::detail::report_error("gemm: unknown --dtype '" + std::string(s) + "'; known: bf16, fp16");
    }
    static gemm_problem problem(const inputs& in, const target_gpu&) {
        return {in.m, in.n, in.k, parse_dtype(in.dtype), in.reuse_distance};
    }
    static std::string framework(const inputs& in, const gemm_problem&) { return in.framework; }

    using predicted = family::predicted<inputs, gemm_problem, gemm_plan>;
    static void json(report& out, const predicted& o) {
        const gemm_problem& p = o.problem;
        const gemm_config& c = o.plan.config;
        out.merge({{"m", p.m}, {"n", p.n}, {"k", p.k}, {"reuse_distance_bytes", p.reuse_distance_bytes},
                   {"tile", report{{"m", c.bm}, {"n", c.bn}, {"k", c.bk}, {"stages", c.stages}, {"split_k", c.split_k},
                                   {"persistent", c.persistent}}},
                   {"waves", o.result.kernels.front().waves}, {"kernels", kernel_list(o.result)}});
    }
    /// A --csv row's JSON is the whole prediction's.
    static void json_row(report& out, const predicted& o) { json(out, o); }
    static report csv_row(const predicted& o) {
        const gemm_problem& p = o.problem;
        const gemm_config& c = o.plan.config;
        report row{{"gpu", o.gpu.name}, {"m", p.m}, {"n", p.n}, {"k", p.k}};
        row.merge(prediction_cells(o.result));
        return row.merge({{"bottleneck", o.result.bottleneck}, {"tile", text::cat(c.bm, "x", c.bn, "x", c.bk)}, {"split_k", c.split_k},
                          {"waves", decimal(o.result.kernels.front().waves, 3)}});
    }
    static std::vector<std::string> text(const predicted& o) {
        const gemm_problem& p = o.problem;
        const gemm_config& c = o.plan.config;
        std::vector<std::string> out{text::cat("gemm m=", p.m, " n=", p.n, " k=", p.k, " on ", o.gpu.name, " (", o.gpu.display_name,
                                               "), framework ", o.framework)};
        for (std::string& line : text::prediction_lines(o.result)) out.push_back(std::move(line));
        out.push_back(text::cat("  tile         ", c.bm, "x", c.bn, "x", c.bk, ", ", c.stages, " stages, split-K ", c.split_k, ", ",
                                c.persistent ? "persistent" : "one CTA per tile"));
        for (const kernel_report& k : o.result.kernels)
            out.push_back(text::cat("  kernel       ", k.name, ": ", k.tasks, " tasks, ", text::fixed(k.waves, 2), " waves, ",
                                    k.ctas_per_sm, " CTA/SM, ", k.busy_sms, " SMs busy, imbalance ", text::fixed(k.imbalance, 2)));
        return out;
    }
};

}  // namespace synperf::family
