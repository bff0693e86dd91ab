// SPDX-License-Identifier: Apache-2.0
// The single fused_moe_kernel family for `synperf train` / `synperf eval`: PipeWeave's design-space runs,
// pipeweave/moe_dse/moe_dse_<GPU>_99.csv (one launch per row, explicit config).
#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include <synperf/data/moe_kernel_rows.hpp>
#include <synperf/family/moe_kernel.hpp>
#include <synperf/gpu/registry.hpp>
#include <synperf/predictor/predictor.hpp>

#include "synperf/family_tool.hpp"

namespace synperf::cli {
namespace {

/// Datasheet roofline: max of the useful tensor flop and the bytes the launch must move once (the active experts'
/// weights, A, C) at DRAM bandwidth.
double moe_kernel_roofline_us(const family::moe_kernel_problem& p, const family::moe_kernel_plan& plan, const gpu::gpu_numbers& g) {
    const family::moe_gemm_launch& l = plan.gemm;
    const double a_rows = p.weight == family::moe_weight::w13 ? double(p.tokens) : double(plan.routing.assignments());
    const double bytes = l.weight_bytes + 2.0 * (a_rows * double(l.k) + double(plan.routing.assignments()) * double(l.n));
    return std::max(l.useful_flop / (g.tensor_tflops(gpu::tensor_dtype::bf16) * 1e6), bytes / (g.dram_gbps * 1e3));
}

std::vector<sample> load_moe_kernel(const std::filesystem::path& dir, const data::protocol& proto,
                                    const work::kernel_kind_set& priced, std::vector<std::string>& notes) {
    const std::vector<data::measured_moe_kernel> rows = data::read_moe_kernel_rows(dir);
    const std::map<std::string, gpu::gpu_numbers> numbers = gpu_numbers_of(rows);
    std::vector<sample> out(rows.size());
    parallel_for(rows.size(), [&](std::size_t i) {
        const data::measured_moe_kernel& r = rows[i];
        const gpu::gpu_numbers& g = numbers.at(r.gpu);
        sample& s = out[i];
        family::moe_kernel_plan plan;
        try {
            plan = family::moe_kernel::plan(r.problem, g);
        } catch (const invalid_argument&) {
            return;  // left out below: no GPU name
        }
        s.gpu = r.gpu;
        s.framework = "triton";
        s.kernel = std::string("fused_moe_kernel_") + std::string(family::to_string(r.problem.weight));
        s.take_analysis(predictor_detail::analyze<family::moe_kernel>(r.problem, g, predictor_detail::schedule_by_dispatch{}, priced));
        s.level = 0;
        s.latency_us = r.latency_us;
        s.roofline_us = moe_kernel_roofline_us(r.problem, plan, g);
        s.label = proto.label(r.gpu);
        s.part = data::part_of(r.shape_hash);
        const auto& q = r.problem;
        const auto& c = q.config;
        s.key = {q.tokens, q.hidden * 8192 + q.inter, q.experts * 64 + q.topk, static_cast<std::int64_t>(q.weight),
                 ((c.bm * 512 + c.bn) * 512 + c.bk), (c.group_m * 64 + c.warps) * 16 + c.stages, static_cast<std::int64_t>(r.latency_us * 1e3)};
        s.key_size = 7;
    });
    // A measured config whose shared memory the estimate here puts above the GPU's cannot be decomposed as launched.
    drop_unplanned(out, notes, "whose config needs more shared memory per CTA, as estimated here, than the GPU has");
    return out;
}

}  // namespace

family_tool moe_kernel_family_tool() {
    family_tool t = family_tool_of<family::moe_kernel>(
        "one Triton fused_moe_kernel launch with an explicit config (pipeweave/moe_dse/moe_dse_<GPU>_99.csv)",
        "data=PipeWeave(Apache-2.0) moe_dse");
    t.protocol = data::moe_kernel_protocol;
    t.load = load_moe_kernel;
    return t;
}

}  // namespace synperf::cli
