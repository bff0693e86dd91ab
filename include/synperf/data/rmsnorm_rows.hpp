// SPDX-License-Identifier: Apache-2.0
#pragma once
/// \file Measured RMSNorm latencies: Vidur's input_layernorm and post_attention_layernorm (plain RMSNorm
/// over [num_tokens, n_embd], fp16, sarathi-serve's scalar kernel).
///
/// Also the family's training source, `train::source<family::rmsnorm>` (synperf/train/source.hpp): its rows as samples.
#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "synperf/data/protocol.hpp"
#include "synperf/data/vidur_rows.hpp"
#include "synperf/family/rmsnorm.hpp"
#include "synperf/gpu/numbers.hpp"
#include "synperf/gpu/registry.hpp"
#include "synperf/predictor/analyze.hpp"
#include "synperf/predictor/prediction.hpp"
#include "synperf/train/analyze_rows.hpp"
#include "synperf/train/sample.hpp"
#include "synperf/train/source.hpp"
#include "synperf/work/kernel_kinds.hpp"

namespace synperf::data {

/// One measured RMSNorm.
struct measured_rmsnorm {
    std::string gpu;
    std::string framework = "vllm";
    std::string op;     ///< input_layernorm or post_attention_layernorm
    std::string model;
    std::int64_t tp = 1;
    family::rmsnorm_problem problem;
    double latency_us = 0;
    std::uint64_t shape_hash = 0;  ///< hash of the non-token columns (model shape, TP, op)
};

/// Both norms of every gated-model Vidur row (the hidden size is not sharded: TP only changes the run).
[[nodiscard]] inline std::vector<measured_rmsnorm> read_rmsnorm_rows(const std::filesystem::path& data_dir,
                                                                     vidur_exclusions* skipped = nullptr) {
    std::vector<measured_rmsnorm> out;
    for (const vidur_row& v : read_vidur_rows(data_dir, skipped)) {
        for (int which = 0; which < 2; ++which) {
            measured_rmsnorm m;
            m.gpu = v.gpu;
            m.op = which == 0 ? "input_layernorm" : "post_attention_layernorm";
            m.model = v.model;
            m.tp = v.tp;
            m.problem = {v.tokens, v.n_embd, false, 2, family::rmsnorm_impl::vllm_scalar};
            at_row(v.source, v.line, [&] { family::rmsnorm::validate(m.problem); });
            m.latency_us = vidur_median_us(v, m.op);
            m.shape_hash = shape_hash({v.n_embd, v.n_head, v.n_kv_head, v.n_expanded_embd, v.tp, which});
            out.push_back(std::move(m));
        }
    }
    return out;
}

}  // namespace synperf::data

namespace synperf::train {

/// The RMSNorm family's training source: Vidur's input_layernorm and post_attention_layernorm
/// (vidur/compute/<gpu>/*__mlp.csv), evaluated leave-one-GPU-out over A100, A40 and H100.
template <>
struct source<family::rmsnorm> {
    static constexpr std::string_view summary =
        "RMSNorm, one CTA per token (vidur/compute/<gpu>/*__mlp.csv input/post_attention_layernorm)";
    static constexpr std::string_view data_credit = "data=vidur(MIT) input_layernorm,post_attention_layernorm";
    static data::protocol protocol() { return data::vidur_protocol(); }
    static constexpr bool leave_one_out = true;

    /// Datasheet roofline: the unique bytes (x, w, out) at DRAM bandwidth (the FP32 work is far below it).
    static double roofline_us(const family::rmsnorm_problem& p, const gpu::gpu_numbers& g) {
        const double bytes = double(p.tokens) * double(p.hidden) * p.element_bytes * (p.fused_add ? 4.0 : 2.0) +
                             double(p.hidden) * p.element_bytes;
        return bytes / (g.dram_gbps * 1e3);
    }

    static std::vector<sample> load(const std::filesystem::path& dir, const data::protocol& proto,
                                    const work::kernel_kind_set& priced, std::vector<std::string>& notes) {
        data::vidur_exclusions skipped;
        const std::vector<data::measured_rmsnorm> rows = data::read_rmsnorm_rows(dir, &skipped);
        if (skipped.non_gated > 0)
            notes.push_back(std::to_string(skipped.non_gated) + " Vidur rows of non-gated models left out (phi-2: LayerNorm, not RMSNorm)");
        return analyze_rows(rows, [&](const data::measured_rmsnorm& r, const gpu::gpu_numbers& g, sample& s) {
            prediction p = synperf::analyze<family::rmsnorm>(r.problem, g, priced);
            s.gpu = r.gpu;
            s.framework = r.framework;
            s.kernel = "rms_norm_kernel";
            s.take_analysis(std::move(p));
            s.level = family::rmsnorm::framework_level(r.framework);
            s.latency_us = r.latency_us;
            s.roofline_us = roofline_us(r.problem, g);
            s.label = proto.label(r.gpu);
            s.part = data::part_of(r.shape_hash);
            s.key = {r.problem.tokens, r.problem.hidden, r.tp, static_cast<std::int64_t>(r.shape_hash >> 1),
                     static_cast<std::int64_t>(r.latency_us * 1e3)};
            s.key_size = 5;
        });
    }
};

}  // namespace synperf::train
