// SPDX-License-Identifier: Apache-2.0
// The RMSNorm family for `synperf train` / `synperf eval`: Vidur's input_layernorm and post_attention_layernorm
// (vidur/compute/<gpu>/*__mlp.csv), evaluated leave-one-GPU-out over A100, A40 and H100.
#include <map>
#include <string>
#include <vector>

#include <fmt/core.h>

#include <synperf/data/rmsnorm_rows.hpp>
#include <synperf/family/rmsnorm.hpp>
#include <synperf/gpu/registry.hpp>
#include <synperf/predictor/predictor.hpp>

#include "synperf/family_tool.hpp"

namespace synperf::cli {
namespace {

/// Datasheet roofline: the unique bytes (x, w, out) at DRAM bandwidth (the FP32 work is far below it).
double rmsnorm_roofline_us(const family::rmsnorm_problem& p, const gpu::gpu_numbers& g) {
    const double bytes = double(p.tokens) * double(p.hidden) * p.element_bytes * (p.fused_add ? 4.0 : 2.0) +
                         double(p.hidden) * p.element_bytes;
    return bytes / (g.dram_gbps * 1e3);
}

std::vector<sample> load_rmsnorm(const std::filesystem::path& dir, const data::protocol& proto,
                                 const work::kernel_kind_set& priced, std::vector<std::string>& notes) {
    data::vidur_exclusions skipped;
    const std::vector<data::measured_rmsnorm> rows = data::read_rmsnorm_rows(dir, &skipped);
    if (skipped.non_gated > 0)
        notes.push_back(fmt::format("{} Vidur rows of non-gated models left out (phi-2: LayerNorm, not RMSNorm)", skipped.non_gated));
    const std::map<std::string, gpu::gpu_numbers> numbers = gpu_numbers_of(rows);
    std::vector<sample> out(rows.size());
    parallel_for(rows.size(), [&](std::size_t i) {
        const data::measured_rmsnorm& r = rows[i];
        const gpu::gpu_numbers& g = numbers.at(r.gpu);
        prediction p = predictor_detail::analyze<family::rmsnorm>(r.problem, g, predictor_detail::schedule_by_dispatch{}, priced);
        sample& s = out[i];
        s.gpu = r.gpu;
        s.framework = r.framework;
        s.kernel = "rms_norm_kernel";
        s.take_analysis(std::move(p));
        s.level = family::rmsnorm::framework_level(r.framework);
        s.latency_us = r.latency_us;
        s.roofline_us = rmsnorm_roofline_us(r.problem, g);
        s.label = proto.label(r.gpu);
        s.part = data::part_of(r.shape_hash);
        s.key = {r.problem.tokens, r.problem.hidden, r.tp, static_cast<std::int64_t>(r.shape_hash >> 1),
                 static_cast<std::int64_t>(r.latency_us * 1e3)};
        s.key_size = 5;
    });
    return out;
}

}  // namespace

family_tool rmsnorm_family_tool() {
    family_tool t = family_tool_of<family::rmsnorm>(
        "RMSNorm, one CTA per token (vidur/compute/<gpu>/*__mlp.csv input/post_attention_layernorm)",
        "data=vidur(MIT) input_layernorm,post_attention_layernorm");
    t.protocol = data::vidur_protocol;
    t.load = load_rmsnorm;
    t.leave_one_out = true;
    return t;
}

}  // namespace synperf::cli
