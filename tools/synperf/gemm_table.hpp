// SPDX-License-Identifier: Apache-2.0
#pragma once
// Measured GEMM rows joined with their decomposition: features, theoretical time, framework level.
#include <cmath>
#include <map>
#include <string>
#include <vector>

#include <synperf/data/gemm_rows.hpp>
#include <synperf/data/protocol.hpp>
#include <synperf/family/gemm.hpp>
#include <synperf/gpu/registry.hpp>
#include <synperf/predictor/predictor.hpp>

namespace synperf::cli {

/// One analyzed row.
struct gemm_sample {
    const data::measured_gemm* row = nullptr;
    std::vector<double> features;
    double theoretical_us = 0;
    std::size_t level = 0;
    data::split label = data::split::seen;
    data::seen_part part = data::seen_part::train;

    [[nodiscard]] double efficiency() const { return theoretical_us / row->latency_us; }
};

/// Decomposes and analyzes every row (GPU numbers looked up once per GPU).
inline std::vector<gemm_sample> analyze_gemm_rows(const std::vector<data::measured_gemm>& rows, const data::protocol& proto) {
    std::map<std::string, gpu::gpu_numbers> numbers;
    std::vector<gemm_sample> out;
    out.reserve(rows.size());
    for (const auto& r : rows) {
        auto it = numbers.find(r.gpu);
        if (it == numbers.end()) it = numbers.emplace(r.gpu, gpu::find_gpu(r.gpu).numbers).first;
        gemm_sample s;
        s.row = &r;
        prediction p = predictor_detail::analyze<family::gemm>(r.problem, it->second, predictor_detail::schedule_by_dispatch{});
        s.features = std::move(p.features);
        s.theoretical_us = p.theoretical_us;
        s.level = family::gemm::framework_level(r.framework);
        s.label = proto.label(r.gpu);
        s.part = data::part_of(r.shape_hash);
        out.push_back(std::move(s));
    }
    return out;
}

/// log1p of the features then the one-hot framework block: the MLP's (and the linear baseline's) input.
inline void model_input(const gemm_sample& s, double* out) {
    std::size_t i = 0;
    for (double f : s.features) out[i++] = std::log1p(f);
    for (std::size_t l = 0; l < family::gemm::framework_levels.size(); ++l) out[i++] = (l == s.level) ? 1.0 : 0.0;
}
inline constexpr std::size_t gemm_input_width = family::gemm::feature_count + family::gemm::framework_levels.size();

}  // namespace synperf::cli
