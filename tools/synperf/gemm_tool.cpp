// SPDX-License-Identifier: Apache-2.0
// The GEMM family for `synperf train` / `synperf eval`: bf16 rows of aiconfigurator*/<gpu>/gemm_perf.csv.
#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include <synperf/data/gemm_rows.hpp>
#include <synperf/family/gemm.hpp>
#include <synperf/gpu/registry.hpp>
#include <synperf/predictor/predictor.hpp>

#include "synperf/family_tool.hpp"

namespace synperf::cli {
namespace {

/// Datasheet roofline: max of dense bf16 compute time and A + B + C bytes at DRAM bandwidth.
double gemm_roofline_us(const family::gemm_problem& p, const gpu::gpu_numbers& g) {
    const double flop = 2.0 * double(p.m) * double(p.n) * double(p.k);
    const double bytes = 2.0 * (double(p.m) * double(p.k) + double(p.n) * double(p.k) + double(p.m) * double(p.n));
    return std::max(flop / (g.tensor_tflops(gpu::tensor_dtype::bf16) * 1e6), bytes / (g.dram_gbps * 1e3));
}

std::vector<sample> load_gemm(const std::filesystem::path& dir, const data::protocol& proto,
                                const work::kernel_kind_set& priced, std::vector<std::string>&) {
    const std::vector<data::measured_gemm> rows = data::read_gemm_rows(dir);
    const std::map<std::string, gpu::gpu_numbers> numbers = gpu_numbers_of(rows);
    std::vector<sample> out(rows.size());
    parallel_for(rows.size(), [&](std::size_t i) {
        const data::measured_gemm& r = rows[i];
        const gpu::gpu_numbers& g = numbers.at(r.gpu);
        prediction p = predictor_detail::analyze<family::gemm>(r.problem, g, predictor_detail::schedule_by_dispatch{}, priced);
        sample& s = out[i];
        s.gpu = r.gpu;
        s.framework = r.framework;
        s.kernel = "cublas";
        s.take_analysis(std::move(p));
        s.level = family::gemm::framework_level(r.framework);
        s.latency_us = r.latency_us;
        s.roofline_us = gemm_roofline_us(r.problem, g);
        s.label = proto.label(r.gpu);
        s.part = data::part_of(r.shape_hash);
        s.key = {r.problem.m, r.problem.n, r.problem.k, static_cast<std::int64_t>(r.latency_us * 1e3)};
        s.key_size = 4;
    });
    return out;
}

}  // namespace

family_tool gemm_family_tool() {
    family_tool t = family_tool_of<family::gemm>(
        "bf16 cuBLAS GEMM (aiconfigurator*/<gpu>/gemm_perf.csv)",
        "data=aiconfigurator(Apache-2.0) bf16 gemm_perf");
    t.protocol = data::gemm_protocol;
    t.load = load_gemm;
    return t;
}

}  // namespace synperf::cli
