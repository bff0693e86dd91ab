// SPDX-License-Identifier: Apache-2.0
// The elementwise family for `synperf train` / `synperf eval`: TensorRT-LLM's static FP8 quantize
// (aiconfigurator/<gpu>/scale_matrix_perf.csv) and Vidur's residual add, RoPE and embedding, with the GEMM protocol.
#include <map>
#include <string>
#include <vector>

#include <fmt/core.h>

#include <synperf/data/elementwise_rows.hpp>
#include <synperf/family/elementwise.hpp>
#include <synperf/gpu/registry.hpp>
#include <synperf/predictor/predictor.hpp>

#include "synperf/family_tool.hpp"

namespace synperf::cli {
namespace {

std::vector<sample> load_elementwise(const std::filesystem::path& dir, const data::protocol& proto,
                                     const work::kernel_kind_set& priced, std::vector<std::string>& notes) {
    data::vidur_exclusions skipped;
    const std::vector<data::measured_elementwise> rows = data::read_elementwise_rows(dir, &skipped);
    if (skipped.non_gated > 0)
        notes.push_back(fmt::format("{} Vidur rows of non-gated models left out (phi-2: its add sums three tensors in two kernels)",
                                    skipped.non_gated));
    const std::map<std::string, gpu::gpu_numbers> numbers = gpu_numbers_of(rows);
    std::vector<sample> out(rows.size());
    parallel_for(rows.size(), [&](std::size_t i) {
        const data::measured_elementwise& r = rows[i];
        const gpu::gpu_numbers& g = numbers.at(r.gpu);
        prediction p = predictor_detail::analyze<family::elementwise>(r.problem, g, predictor_detail::schedule_by_dispatch{}, priced);
        sample& s = out[i];
        s.gpu = r.gpu;
        s.framework = r.framework;
        s.kernel = std::string(family::to_string(r.problem.kind));
        s.take_analysis(std::move(p));
        s.level = family::elementwise::framework_level(r.framework);
        s.latency_us = r.latency_us;
        // Datasheet roofline: the unique bytes at DRAM bandwidth (the FP32 work is far below it).
        s.roofline_us = family::elementwise_detail::footprint(r.problem) / (g.dram_gbps * 1e3);
        s.label = proto.label(r.gpu);
        s.part = data::part_of(r.shape_hash);
        s.key = {static_cast<std::int64_t>(r.problem.kind), r.problem.rows, r.problem.cols, r.tp,
                 static_cast<std::int64_t>(r.shape_hash >> 1), static_cast<std::int64_t>(r.latency_us * 1e3)};
        s.key_size = 6;
    });
    return out;
}

}  // namespace

family_tool elementwise_family_tool() {
    family_tool t = family_tool_of<family::elementwise>(
        "memory-bound elementwise ops (aiconfigurator/<gpu>/scale_matrix_perf.csv FP8 quantize; Vidur add, attn_rope, emb)",
        "data=aiconfigurator(Apache-2.0) scale_matrix_perf,vidur(MIT) add,attn_rope,emb");
    t.protocol = data::elementwise_protocol;
    t.load = load_elementwise;
    return t;
}

}  // namespace synperf::cli
