// SPDX-License-Identifier: Apache-2.0
// The fused-MoE family for `synperf train` / `synperf eval`: SGLang Triton fused_moe rows of
// aiconfigurator_sglang/<gpu>/moe_perf.csv (whole MoE block, balanced routing).
#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include <fmt/core.h>

#include <synperf/data/moe_rows.hpp>
#include <synperf/family/moe.hpp>
#include <synperf/gpu/registry.hpp>
#include <synperf/predictor/predictor.hpp>

#include "synperf/family_tool.hpp"

namespace synperf::cli {
namespace {

/// Datasheet roofline: max of the useful tensor flop of both GEMMs and the bytes every kernel must move once
/// (active experts' weights, activations in and out) at DRAM bandwidth.
double moe_roofline_us(const family::moe_problem& p, const family::moe_plan& plan, const gpu::gpu_numbers& g) {
    const double flop = plan.w13.useful_flop + plan.w2.useful_flop;
    const auto dt = p.dtype == family::moe_dtype::bf16 ? gpu::tensor_dtype::bf16 : gpu::tensor_dtype::fp8;
    const double t = double(plan.routing.tokens), a = double(plan.routing.assignments()), h = double(p.hidden),
                 i = double(p.inter / p.tp);
    const double bytes = plan.w13.weight_bytes + plan.w2.weight_bytes + 2.0 * t * h * 2.0 + a * (3.0 * i + h) * 2.0;
    return std::max(flop / (g.tensor_tflops(dt) * 1e6), bytes / (g.dram_gbps * 1e3));
}

std::vector<sample> load_moe(const std::filesystem::path& dir, const data::protocol& proto,
                             const work::kernel_kind_set& priced, std::vector<std::string>& notes) {
    const std::vector<data::measured_moe> rows = data::read_moe_rows(dir);
    const std::map<std::string, gpu::gpu_numbers> numbers = gpu_numbers_of(rows);
    std::vector<sample> out(rows.size());
    std::vector<char> tuned(rows.size(), 0);  // the row ran one of SGLang's tuned config files
    parallel_for(rows.size(), [&](std::size_t i) {
        const data::measured_moe& r = rows[i];
        const gpu::gpu_numbers& g = numbers.at(r.gpu);
        sample& s = out[i];
        prediction p;
        try {
            p = predictor_detail::analyze<family::moe>(r.problem, g, predictor_detail::schedule_by_dispatch{}, priced);
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
        s.roofline_us = moe_roofline_us(r.problem, plan, g);
        tuned[i] = plan.tuned_file != nullptr;
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
    for (const auto& [gpu, n] : per_gpu)
        ran_tuned += fmt::format("{}{} {:.1f} %", ran_tuned.empty() ? "" : ", ", gpu, 100.0 * double(n.first) / double(n.second));
    notes.push_back("rows whose config came from an SGLang tuned file (the rest ran its default rule): " + ran_tuned);
    // Rows whose default config cannot launch as estimated here (Triton's shared memory above the GPU's) are
    // left out: the collector must have run another config for them, which this decomposer does not know.
    drop_unplanned(out, notes, "whose SGLang default config needs more shared memory per CTA than the GPU has");
    return out;
}

}  // namespace

family_tool moe_family_tool() {
    family_tool t = family_tool_of<family::moe>(
        "fused MoE block, SGLang Triton fused_moe (aiconfigurator_sglang/<gpu>/moe_perf.csv)",
        "data=aiconfigurator(Apache-2.0) sglang moe_perf");
    t.protocol = data::gemm_protocol;
    t.load = load_moe;
    t.default_max_rows = 24000;
    return t;
}

}  // namespace synperf::cli
