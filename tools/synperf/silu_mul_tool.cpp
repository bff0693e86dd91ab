// SPDX-License-Identifier: Apache-2.0
// The SiLU-and-mul family for `synperf train` / `synperf eval`: Vidur's mlp_act (vidur/compute/<gpu>/*__mlp.csv),
// evaluated leave-one-GPU-out over A100, A40 and H100.
#include <map>
#include <string>
#include <vector>

#include <fmt/core.h>

#include <synperf/data/silu_mul_rows.hpp>
#include <synperf/family/silu_mul.hpp>
#include <synperf/gpu/registry.hpp>
#include <synperf/predictor/predictor.hpp>

#include "synperf/family_tool.hpp"

namespace synperf::cli {
namespace {

/// Datasheet roofline: 2d read and d written per token at DRAM bandwidth (the FP32 and XU work is far below it).
double silu_mul_roofline_us(const family::silu_mul_problem& p, const gpu::gpu_numbers& g) {
    return 3.0 * double(p.tokens) * double(p.d) * p.element_bytes / (g.dram_gbps * 1e3);
}

std::vector<sample> load_silu_mul(const std::filesystem::path& dir, const data::protocol& proto,
                                  const work::kernel_kind_set& priced, std::vector<std::string>& notes) {
    data::vidur_exclusions skipped;
    const std::vector<data::measured_silu_mul> rows = data::read_silu_mul_rows(dir, &skipped);
    if (skipped.non_gated > 0)
        notes.push_back(fmt::format("{} Vidur rows of non-gated models left out (phi-2: GELU, not SiLU-and-mul)", skipped.non_gated));
    const std::map<std::string, gpu::gpu_numbers> numbers = gpu_numbers_of(rows);
    std::vector<sample> out(rows.size());
    parallel_for(rows.size(), [&](std::size_t i) {
        const data::measured_silu_mul& r = rows[i];
        const gpu::gpu_numbers& g = numbers.at(r.gpu);
        prediction p = predictor_detail::analyze<family::silu_mul>(r.problem, g, predictor_detail::schedule_by_dispatch{}, priced);
        sample& s = out[i];
        s.gpu = r.gpu;
        s.framework = r.framework;
        s.kernel = "silu_and_mul_kernel";
        s.take_analysis(std::move(p));
        s.level = family::silu_mul::framework_level(r.framework);
        s.latency_us = r.latency_us;
        s.roofline_us = silu_mul_roofline_us(r.problem, g);
        s.label = proto.label(r.gpu);
        s.part = data::part_of(r.shape_hash);
        s.key = {r.problem.tokens, r.problem.d, r.tp, static_cast<std::int64_t>(r.shape_hash >> 1),
                 static_cast<std::int64_t>(r.latency_us * 1e3)};
        s.key_size = 5;
    });
    return out;
}

}  // namespace

family_tool silu_mul_family_tool() {
    family_tool t = family_tool_of<family::silu_mul>(
        "SiLU-and-mul, one CTA per token (vidur/compute/<gpu>/*__mlp.csv mlp_act)",
        "data=vidur(MIT) mlp_act");
    t.protocol = data::vidur_protocol;
    t.load = load_silu_mul;
    t.leave_one_out = true;
    return t;
}

}  // namespace synperf::cli
