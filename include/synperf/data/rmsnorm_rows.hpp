// SPDX-License-Identifier: Apache-2.0
#pragma once
/// \file Measured RMSNorm latencies: Vidur's input_layernorm and post_attention_layernorm (plain RMSNorm
/// over [num_tokens, n_embd], fp16, sarathi-serve's scalar kernel).
#include <filesystem>
#include <string>
#include <vector>

#include "synperf/data/protocol.hpp"
#include "synperf/data/vidur_rows.hpp"
#include "synperf/family/rmsnorm.hpp"

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
