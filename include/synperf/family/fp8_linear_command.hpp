// SPDX-License-Identifier: Apache-2.0
#pragma once
/// \file `synperf predict fp8_linear`: the FP8 linear layer family's predict command (`family::predict_command`).
#include <cstdint>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include "synperf/family/command.hpp"
#include "synperf/family/fp8_linear.hpp"
#include "synperf/family/report.hpp"

namespace synperf::family {

template <>
struct predict_command<fp8_linear> {
    static constexpr std::string_view summary =
        "FP8 linear layer with dynamic activation scales: quantize X (bf16 -> e4m3), then Y[m,n] = Xq W[n,k]^T";

    struct inputs {
        std::int64_t m = 0, n = 0, k = 0;
        std::string framework = "trtllm";
        double reuse_distance = 0;
    };
    static constexpr auto options = std::tuple{
        option("--m", &inputs::m, "rows of X and Y (tokens)").column("m"),
        option("--n", &inputs::n, "output features (multiple of 16)").column("n"),
        option("--k", &inputs::k, "input features (multiple of 16)").column("k"),
        option("--framework", &inputs::framework, "trtllm (per-tensor scale, cuBLASLt) or sglang (per-token scales, CUTLASS)"),
        option("--reuse-distance", &inputs::reuse_distance,
               "bytes touched between two runs on the same weights (default 0: serving, weights from DRAM)")};
    /// A --csv file gives whole shapes: columns m, n and k.
    static constexpr csv_rows csv = csv_rows::every_column;

    static fp8_linear_problem problem(const inputs& in, const target_gpu&) {
        return {in.m, in.n, in.k, fp8_linear::parse_framework(in.framework), in.reuse_distance};
    }
    static std::string framework(const inputs& in, const fp8_linear_problem&) { return in.framework; }

    using predicted = family::predicted<inputs, fp8_linear_problem, fp8_linear_plan>;
    static void json(report& out, const predicted& o) {
        const fp8_linear_problem& p = o.problem;
        const gemm_fp8_config& c = o.plan.gemm;
        out.merge({{"m", p.m}, {"n", p.n}, {"k", p.k}, {"kernel_floor_us", o.result.kernel_floor_us},
                   {"cuda_core_gemm", o.plan.cuda_core_gemm}, {"kernels", kernel_list(o.result)}});
        if (!o.plan.cuda_core_gemm)
            out.set("tile", report{{"m", c.bm}, {"n", c.bn}, {"k", c.bk}, {"cluster_m", c.cluster_m}, {"cluster_n", c.cluster_n},
                                   {"swap_ab", c.swap_ab}, {"persistent", c.persistent}});
    }
    /// A --csv row's JSON is the whole prediction's.
    static void json_row(report& out, const predicted& o) { json(out, o); }
    static report csv_row(const predicted& o) {
        const fp8_linear_problem& p = o.problem;
        const gemm_fp8_config& c = o.plan.gemm;
        report row{{"gpu", o.gpu.name}, {"framework", o.framework}, {"m", p.m}, {"n", p.n}, {"k", p.k}};
        row.merge(prediction_cells(o.result));
        return row.merge({{"kernel_floor_us", decimal(o.result.kernel_floor_us, 4)}, {"bottleneck", o.result.bottleneck},
                          {"gemm", o.plan.cuda_core_gemm ? std::string("cuda_core") : text::cat(c.bm, "x", c.bn, "x", c.bk)}});
    }
    static std::vector<std::string> text(const predicted& o) {
        const fp8_linear_problem& p = o.problem;
        const gemm_fp8_config& c = o.plan.gemm;
        const prediction& r = o.result;
        std::vector<std::string> out{text::cat("fp8_linear m=", p.m, " n=", p.n, " k=", p.k, " on ", o.gpu.name, " (", o.gpu.display_name,
                                               "), framework ", o.framework)};
        for (std::string& line : text::prediction_lines(r)) out.push_back(std::move(line));
        if (r.kernel_floor_us > r.theoretical_us)
            out.push_back(text::cat("  kernel floor ", text::fixed(r.kernel_floor_us, 3),
                                    " us (the busiest SM's MMA work in sgl-kernel's own tile",
                                    r.latency_us <= r.kernel_floor_us ? "; the prediction" : "", ")"));
        if (o.plan.cuda_core_gemm)
            out.push_back(text::cat("  gemm         CUDA-core FP8 GEMM (m <= 8 on sm_89): ", r.kernels.front().tasks, " CTAs"));
        else
            out.push_back(text::cat("  gemm         tile ", c.bm, "x", c.bn, "x", c.bk, ", cluster ", c.cluster_m, "x", c.cluster_n, ", ",
                                    to_string(c.schedule), c.swap_ab ? ", swap-AB" : ""));
        for (const kernel_report& k : r.kernels)
            out.push_back(text::cat("  launch       ", k.name, ": ", text::fixed(k.theoretical_us, 3), " us bound, ", k.tasks, " tasks, ",
                                    text::fixed(k.waves, 2), " waves, ", k.busy_sms, " SMs busy"));
        return out;
    }
};

}  // namespace synperf::family
