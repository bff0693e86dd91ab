// SPDX-License-Identifier: Apache-2.0
// The FP8 GEMM family for `synperf train` / `synperf eval`: pipeweave/gemm_fp8_{train,test}.csv (vLLM CUTLASS
// scaled_mm measured alone).
#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include <synperf/data/gemm_fp8_rows.hpp>
#include <synperf/family/gemm_fp8.hpp>
#include <synperf/gpu/registry.hpp>
#include <synperf/predictor/predictor.hpp>

#include "synperf/family_tool.hpp"

namespace synperf::cli {
namespace {

/// Datasheet roofline: max of dense FP8 compute time and A + B (1 byte) + Y (2 bytes) at DRAM bandwidth.
double gemm_fp8_roofline_us(const family::gemm_fp8_problem& p, const gpu::gpu_numbers& g) {
    const double flop = 2.0 * double(p.m) * double(p.n) * double(p.k);
    const double bytes = double(p.m) * double(p.k) + double(p.n) * double(p.k) + 2.0 * double(p.m) * double(p.n);
    return std::max(flop / (g.tensor_tflops(gpu::tensor_dtype::fp8) * 1e6), bytes / (g.dram_gbps * 1e3));
}

std::vector<sample> load_gemm_fp8(const std::filesystem::path& dir, const data::protocol& proto,
                                const work::kernel_kind_set& priced, std::vector<std::string>&) {
    const std::vector<data::measured_gemm_fp8> rows = data::read_gemm_fp8_rows(dir);
    const std::map<std::string, gpu::gpu_numbers> numbers = gpu_numbers_of(rows);
    std::vector<sample> out(rows.size());
    parallel_for(rows.size(), [&](std::size_t i) {
        const data::measured_gemm_fp8& r = rows[i];
        const gpu::gpu_numbers& g = numbers.at(r.gpu);
        prediction p = predictor_detail::analyze<family::gemm_fp8>(r.problem, g, predictor_detail::schedule_by_dispatch{}, priced);
        sample& s = out[i];
        s.gpu = r.gpu;
        s.framework = "vllm";
        s.kernel = "cutlass_scaled_mm";
        s.take_analysis(std::move(p));
        s.level = 0;
        s.latency_us = r.latency_us;
        s.roofline_us = gemm_fp8_roofline_us(r.problem, g);
        s.label = proto.label(r.gpu);
        s.part = data::part_of(r.shape_hash);
        s.key = {r.problem.m, r.problem.n, r.problem.k, static_cast<std::int64_t>(r.latency_us * 1e3)};
        s.key_size = 4;
    });
    return out;
}

}  // namespace

family_tool gemm_fp8_family_tool() {
    family_tool t = family_tool_of<family::gemm_fp8>(
        "FP8 GEMM, vLLM CUTLASS scaled_mm (pipeweave/gemm_fp8_{train,test}.csv)",
        "data=PipeWeave(Apache-2.0) gemm_fp8");
    t.protocol = data::gemm_fp8_protocol;
    t.load = load_gemm_fp8;
    // With the exact gradient the cooperative-kernel rows (measured efficiency 0.63) sit at a predicted 1.0, the
    // training GPU H800's included; the floor lowers the validation loss from 0.040 to 0.024 (docs/families/gemm_fp8.md).
    t.saturation_gradient_floor = 0.02;
    return t;
}

}  // namespace synperf::cli
