// SPDX-License-Identifier: Apache-2.0
#pragma once
/// \file Measured SiLU-and-mul latencies: Vidur's mlp_act over [num_tokens, 2 d], d = n_expanded_embd / TP,
/// fp16, sarathi-serve's scalar kernel.
#include <filesystem>
#include <string>
#include <vector>

#include "synperf/data/protocol.hpp"
#include "synperf/data/vidur_rows.hpp"
#include "synperf/family/silu_mul.hpp"

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
