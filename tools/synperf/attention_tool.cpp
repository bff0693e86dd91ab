// SPDX-License-Identifier: Apache-2.0
// The attention families for `synperf train` / `synperf eval`: aiconfigurator*/<gpu>/{context,generation}_attention_perf.csv.
#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include <fmt/core.h>

#include <synperf/data/attention_rows.hpp>
#include <synperf/family/attention.hpp>
#include <synperf/gpu/registry.hpp>
#include <synperf/predictor/predictor.hpp>

#include "synperf/family_tool.hpp"

namespace synperf::cli {
namespace {

namespace at = family::attention;

/// Datasheet roofline: max of the useful MMA flop at the dense tensor peak and Q + K + V + O bytes at DRAM bandwidth.
double attention_roofline_us(const at::attention_problem& p, const gpu::gpu_numbers& g) {
    const double flop = 2.0 * double(p.head_dim + p.dv()) * p.attended_pairs() * double(p.heads);
    const gpu::tensor_dtype t = p.fp8_compute ? gpu::tensor_dtype::fp8 : gpu::tensor_dtype::bf16;
    const double tflops = g.tensor_tflops(t) > 0 ? g.tensor_tflops(t) : g.tensor_tflops(gpu::tensor_dtype::bf16);
    const double q_o = double(p.q_tokens()) * double(p.heads) * double(p.head_dim + p.dv()) * 2.0;
    const double kv = double(p.kv_tokens()) * double(p.kv_heads) * double(p.head_dim + p.dv()) * p.kv_bytes_per_element();
    return std::max(flop / (tflops * 1e6), (q_o + kv) / (g.dram_gbps * 1e3));
}

template <class F>
std::vector<sample> load_attention(const std::filesystem::path& dir, const data::protocol& proto, at::phase stage,
                                   const work::kernel_kind_set& priced, std::vector<std::string>& notes) {
    data::attention_exclusions skipped;
    const std::vector<data::measured_attention> rows = data::read_attention_rows(dir, stage, &skipped);
    if (skipped.flashinfer_wrapper > 0)
        notes.push_back(fmt::format("{} TRT-LLM torch_flow_flashinfer rows left out: a FlashInfer wrapper around the gen "
                                    "kernels with RoPE excluded, a different op composition",
                                    skipped.flashinfer_wrapper));
    if (skipped.b200_sglang_window_zero > 0)
        notes.push_back(fmt::format("{} B200 SGLang prefill rows with window_size 0 read as a one-token window (likely "
                                    "passed to SGLang as window_left 0): as full causal they would run up to 14.6x the "
                                    "tensor peak (MANIFEST.md, known anomalies)",
                                    skipped.b200_sglang_window_zero));
    const std::map<std::string, gpu::gpu_numbers> numbers = gpu_numbers_of(rows);
    std::vector<sample> out(rows.size());
    parallel_for(rows.size(), [&](std::size_t i) {
        const data::measured_attention& r = rows[i];
        const gpu::gpu_numbers& g = numbers.at(r.gpu);
        prediction p = predictor_detail::analyze<F>(r.problem, g, predictor_detail::schedule_by_dispatch{}, priced);
        sample& s = out[i];
        s.gpu = r.gpu;
        s.framework = r.framework;
        s.kernel = r.kernel_source;
        s.take_analysis(std::move(p));
        s.level = F::framework_level(r.framework);
        s.latency_us = r.latency_us;
        s.roofline_us = attention_roofline_us(at::effective_problem(r.problem, g), g);
        s.label = proto.label(r.gpu);
        s.part = data::part_of(r.shape_hash);
        const at::request_group& q = r.problem.requests.front();
        s.key = {q.count, q.q_len, q.kv_len, r.problem.heads, r.problem.kv_heads, r.problem.head_dim,
                 r.problem.window * 4 + static_cast<std::int64_t>(r.problem.kv_type) * 2 + (r.problem.fp8_compute ? 1 : 0),
                 static_cast<std::int64_t>(r.latency_us * 1e3)};
        s.key_size = 8;
    });
    return out;
}

template <class F>
family_tool attention_tool(at::phase stage, std::string summary) {
    family_tool t = family_tool_of<F>(
        std::move(summary),
        "data=aiconfigurator(Apache-2.0) " + std::string(stage == at::phase::prefill ? "context" : "generation") +
            "_attention_perf");
    t.protocol = data::gemm_protocol;  // attention uses the GEMM split (docs/method.md#splits)
    t.load = [stage](const std::filesystem::path& dir, const data::protocol& proto, const work::kernel_kind_set& priced,
                     std::vector<std::string>& notes) { return load_attention<F>(dir, proto, stage, priced, notes); };
    // SGLang on an unseen architecture runs a kernel path no training GPU ran (Triton on sm_120, FA3's Sm80
    // path on A100 next to L40S's sm_89 tiles): the looser target applies to these rows.
    t.flag = [](const sample& s) { return s.label == data::split::unseen_arch && s.framework == "sglang"; };
    t.flag_meaning = "the GPU runs a kernel path not seen in training (SGLang's Triton path on sm_120, FA3's Sm80 path on A100)";
    return t;
}

}  // namespace

family_tool attention_prefill_family_tool() {
    return attention_tool<family::attention_prefill>(
        at::phase::prefill, "prefill attention (aiconfigurator*/<gpu>/context_attention_perf.csv)");
}

family_tool attention_decode_family_tool() {
    return attention_tool<family::attention_decode>(
        at::phase::decode, "decode attention (aiconfigurator*/<gpu>/generation_attention_perf.csv)");
}

}  // namespace synperf::cli
