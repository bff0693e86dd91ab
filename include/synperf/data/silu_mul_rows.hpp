// SPDX-License-Identifier: Apache-2.0
#pragma once
/// \file Measured SiLU-and-mul latencies: Vidur's mlp_act over [num_tokens, 2 d], d = n_expanded_embd / TP,
/// fp16, sarathi-serve's scalar kernel.
///
/// Also the family's training source, `train::source<family::silu_mul>` (synperf/train/source.hpp): its rows as samples.
#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "synperf/data/protocol.hpp"
#include "synperf/data/vidur_rows.hpp"
#include "synperf/family/silu_mul.hpp"
#include "synperf/gpu/numbers.hpp"
#include "synperf/gpu/registry.hpp"
#include "synperf/predictor/analyze.hpp"
#include "synperf/predictor/prediction.hpp"
#include "synperf/train/analyze_rows.hpp"
#include "synperf/train/sample.hpp"
#include "synperf/train/source.hpp"
#include "synperf/work/kernel_kinds.hpp"

namespace synperf::data {

/// One measured SiLU-and-mul.
struct measured_silu_mul {
    std::string gpu;
    std::string framework = "vllm";
    std::string model;
    std::int64_t tp = 1;
    family::silu_mul_problem problem;
    double latency_us = 0;
    std::uint64_t shape_hash = 0;  ///< hash of the non-token columns (model shape, TP)
};

/// mlp_act of every gated-model Vidur row.
[[nodiscard]] inline std::vector<measured_silu_mul> read_silu_mul_rows(const std::filesystem::path& data_dir,
                                                                       vidur_exclusions* skipped = nullptr) {
    std::vector<measured_silu_mul> out;
    for (const vidur_row& v : read_vidur_rows(data_dir, skipped)) {
        measured_silu_mul m;
        m.gpu = v.gpu;
        m.model = v.model;
        m.tp = v.tp;
        m.problem = {v.tokens, v.n_expanded_embd / v.tp, 2, family::silu_mul_impl::vllm_scalar};
        at_row(v.source, v.line, [&] { family::silu_mul::validate(m.problem); });
        m.latency_us = vidur_median_us(v, "mlp_act");
        m.shape_hash = shape_hash({v.n_embd, v.n_head, v.n_kv_head, v.n_expanded_embd, v.tp});
        out.push_back(std::move(m));
    }
    return out;
}

}  // namespace synperf::data

namespace synperf::train {

/// The SiLU-and-mul family's training source: Vidur's mlp_act (vidur/compute/<gpu>/*__mlp.csv), evaluated
/// leave-one-GPU-out over A100, A40 and H100.
template <>
struct source<family::silu_mul> {
    static constexpr std::string_view summary = "SiLU-and-mul, one CTA per token (vidur/compute/<gpu>/*__mlp.csv mlp_act)";
    static constexpr std::string_view data_credit = "data=vidur(MIT) mlp_act";
    static data::protocol protocol() { return data::vidur_protocol(); }
    static constexpr bool leave_one_out = true;

    /// Datasheet roofline: 2d read and d written per token at DRAM bandwidth (the FP32 and XU work is far below it).
    static double roofline_us(const family::silu_mul_problem& p, const gpu::gpu_numbers& g) {
        return 3.0 * double(p.tokens) * double(p.d) * p.element_bytes / (g.dram_gbps * 1e3);
    }

    static std::vector<sample> load(const std::filesystem::path& dir, const data::protocol& proto,
                                    const work::kernel_kind_set& priced, std::vector<std::string>& notes) {
        data::vidur_exclusions skipped;
        const std::vector<data::measured_silu_mul> rows = data::read_silu_mul_rows(dir, &skipped);
        if (skipped.non_gated > 0)
            notes.push_back(std::to_string(skipped.non_gated) + " Vidur rows of non-gated models left out (phi-2: GELU, not SiLU-and-mul)");
        return analyze_rows(rows, [&](const data::measured_silu_mul& r, const gpu::gpu_numbers& g, sample& s) {
            prediction p = synperf::analyze<family::silu_mul>(r.problem, g, priced);
            s.gpu = r.gpu;
            s.framework = r.framework;
            s.kernel = "silu_and_mul_kernel";
            s.take_analysis(std::move(p));
            s.level = family::silu_mul::framework_level(r.framework);
            s.latency_us = r.latency_us;
            s.roofline_us = roofline_us(r.problem, g);
            s.label = proto.label(r.gpu);
            s.part = data::part_of(r.shape_hash);
            s.key = {r.problem.tokens, r.problem.d, r.tp, static_cast<std::int64_t>(r.shape_hash >> 1),
                     static_cast<std::int64_t>(r.latency_us * 1e3)};
            s.key_size = 5;
        });
    }
};

}  // namespace synperf::train
