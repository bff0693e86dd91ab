// SPDX-License-Identifier: Apache-2.0
// The FP8 linear-layer family for `synperf train` / `synperf eval`: fp8 rows of aiconfigurator*/<gpu>/gemm_perf.csv
// (dynamic activation quantization + FP8 GEMM, TensorRT-LLM and SGLang).
#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include <synperf/data/fp8_linear_rows.hpp>
#include <synperf/family/fp8_linear.hpp>
#include <synperf/gpu/registry.hpp>
#include <synperf/predictor/predictor.hpp>

#include "synperf/family_tool.hpp"

namespace synperf::cli {
namespace {

/// Datasheet roofline: max of dense FP8 compute time and X (bf16) + W (e4m3) + Y (bf16) at DRAM bandwidth.
double fp8_linear_roofline_us(const family::fp8_linear_problem& p, const gpu::gpu_numbers& g) {
    const double flop = 2.0 * double(p.m) * double(p.n) * double(p.k);
    const double bytes = 2.0 * double(p.m) * double(p.k) + double(p.n) * double(p.k) + 2.0 * double(p.m) * double(p.n);
    return std::max(flop / (g.tensor_tflops(gpu::tensor_dtype::fp8) * 1e6), bytes / (g.dram_gbps * 1e3));
}

std::string kernels_of(const family::fp8_linear_problem& p, const gpu::gpu_numbers& g) {
    if (p.framework == family::fp8_linear_framework::sglang) return "per_token_quant+fp8_scaled_mm";
    return g.cc_major == 8 && g.cc_minor == 9 ? "quant+cublas_fp8|cuda_core" : "quant+cublas_fp8";
}

std::vector<sample> load_fp8_linear(const std::filesystem::path& dir, const data::protocol& proto,
                                const work::kernel_kind_set& priced, std::vector<std::string>&) {
    const std::vector<data::measured_fp8_linear> rows = data::read_fp8_linear_rows(dir);
    const std::map<std::string, gpu::gpu_numbers> numbers = gpu_numbers_of(rows);
    std::vector<sample> out(rows.size());
    parallel_for(rows.size(), [&](std::size_t i) {
        const data::measured_fp8_linear& r = rows[i];
        const gpu::gpu_numbers& g = numbers.at(r.gpu);
        prediction p = predictor_detail::analyze<family::fp8_linear>(r.problem, g, predictor_detail::schedule_by_dispatch{}, priced);
        sample& s = out[i];
        s.gpu = r.gpu;
        s.framework = std::string(family::to_string(r.problem.framework));
        s.kernel = kernels_of(r.problem, g);
        s.take_analysis(std::move(p));
        s.level = family::fp8_linear::framework_level(s.framework);
        s.latency_us = r.latency_us;
        s.roofline_us = fp8_linear_roofline_us(r.problem, g);
        s.label = proto.label(r.gpu);
        s.part = data::part_of(r.shape_hash);
        s.key = {r.problem.m, r.problem.n, r.problem.k, static_cast<std::int64_t>(r.latency_us * 1e3), std::int64_t(s.level)};
        s.key_size = 5;
    });
    return out;
}

}  // namespace

family_tool fp8_linear_family_tool() {
    family_tool t = family_tool_of<family::fp8_linear>(
        "FP8 linear layer: dynamic activation quantization + FP8 GEMM, TensorRT-LLM and SGLang (aiconfigurator*/<gpu>/gemm_perf.csv fp8 rows)",
        "data=aiconfigurator(Apache-2.0) fp8 gemm_perf");
    t.protocol = data::gemm_protocol;
    t.load = load_fp8_linear;
    return t;
}

}  // namespace synperf::cli
