// SPDX-License-Identifier: Apache-2.0
#pragma once
/// \file `synperf predict attention`: one command for both attention families (`family::predict_command`); `--phase`
/// picks prefill or decode, and the batch is uniform (--batch, --seq; a --csv row each) or ragged (--q-lens, --kv-lens).
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include "synperf/error.hpp"
#include "synperf/family/attention.hpp"
#include "synperf/family/attention/kernel_plan.hpp"
#include "synperf/family/attention/problem.hpp"
#include "synperf/family/command.hpp"
#include "synperf/family/list.hpp"
#include "synperf/family/report.hpp"

namespace synperf::family {

namespace attention {

/// Whether the attention training tables time kernel `k`: TensorRT-LLM's kernels (its own rows and SGLang's
/// `trtllm_mha`), FA3 (SGLang's `flash_attention`) and SGLang's Triton kernels. FA2 and FlashInfer are timed by none:
/// their predictions transfer the efficiency learned on the others (docs/families/attention.md).
[[nodiscard]] constexpr bool timed_by_training_tables(kernel_impl k) noexcept {
    return k == kernel_impl::trtllm || k == kernel_impl::fa3 || k == kernel_impl::triton;
}

}  // namespace attention

template <>
struct predict_command<attention_prefill> {
    static constexpr std::string_view name = "attention";
    static constexpr std::string_view summary = "prefill or decode attention of a batch of requests over a paged KV cache";
    /// Both phases, by the problem's.
    using families = list<attention_prefill, attention_decode>;
    static std::size_t family_of(const attention::attention_problem& p) { return p.stage == attention::phase::decode ? 1 : 0; }

    struct inputs {
        std::string phase = "prefill";
        std::string framework = "sglang";
        std::string kernel = "auto";
        int heads = 0, kv_heads = 0, head_dim = 0, v_head_dim = 0;
        std::vector<std::int64_t> q_lens, kv_lens;
        std::int64_t batch = 0, seq = 0, window = 0;
        int page_size = 64;
        bool causal = true;  // an LLM's prefill is causal; --non-causal for encoder-style attention
        std::string kv_dtype = "bf16";
        bool no_preprocess = false;
    };
    static constexpr auto options = std::tuple{
        option("--phase", &inputs::phase, "prefill or decode").one_of("prefill decode").show_default(),
        option("--framework", &inputs::framework, "trtllm, sglang or vllm: whose attention backend runs the op")
            .one_of("trtllm sglang vllm")
            .show_default(),
        option("--kernel", &inputs::kernel, "force an implementation: fa3, fa2, flashinfer, trtllm, triton (default: the framework's)")
            .one_of("auto fa3 fa2 flashinfer trtllm triton")
            .show_default(),
        option("--batch", &inputs::batch, "uniform batch: requests").column("batch"),
        option("--seq", &inputs::seq, "uniform batch: prompt length (prefill) or KV length (decode)").column("seq"),
        option("--heads", &inputs::heads, "query heads (per GPU)").column("heads").needed(),
        option("--kv-heads", &inputs::kv_heads, "KV heads (default: --heads, i.e. MHA)").column("kv_heads").positive(),
        option("--head-dim", &inputs::head_dim, "head dimension").column("head_dim").needed(),
        option("--v-head-dim", &inputs::v_head_dim, "V head dimension (default: --head-dim)").positive(),
        option("--q-lens", &inputs::q_lens, "query tokens per request, comma separated (prefill)"),
        option("--kv-lens", &inputs::kv_lens, "KV tokens per request, comma separated (default for prefill: --q-lens)"),
        option("--causal,!--non-causal", &inputs::causal, "causal mask (prefill; the default, as an LLM's prefill is) or none"),
        option("--window", &inputs::window, "sliding window in tokens (0: none)").column("window").zero_allowed().show_default(),
        option("--kv-dtype", &inputs::kv_dtype, "bf16 or fp8").one_of("bf16 fp8").show_default(),
        option("--page-size", &inputs::page_size, "paged KV tokens per page").show_default(),
        option("--no-preprocess", &inputs::no_preprocess, "leave out the op's pre-processing kernels (RoPE + KV write / KV store)")};

    static void check(const inputs& in, bool csv) {
        // A decode step's one query attends to every cached key: there is no mask to choose.
        if (in.phase == "decode" && !in.causal)
            synperf::detail::report_error("predict attention: --non-causal applies to --phase prefill only");
        if (csv && (!in.q_lens.empty() || !in.kv_lens.empty()))
            synperf::detail::report_error("predict attention: --csv rows are uniform batches (columns batch, seq); drop --q-lens/--kv-lens");
    }

    static attention::attention_problem problem(const inputs& in, const target_gpu&) {
        namespace at = attention;
        at::attention_problem p;
        if (in.phase == "prefill") p.stage = at::phase::prefill;
        else if (in.phase == "decode") p.stage = at::phase::decode;
        else synperf::detail::report_error("predict attention: --phase must be prefill or decode, got '" + in.phase + "'");
        const bool lists = !in.q_lens.empty() || !in.kv_lens.empty();
        if (lists && (in.batch != 0 || in.seq != 0))
            synperf::detail::report_error("predict attention: give either --q-lens/--kv-lens or --batch/--seq, not both");
        if (lists) {
            std::vector<std::int64_t> q = in.q_lens, kv = in.kv_lens;
            if (p.stage == at::phase::decode && q.empty()) q.assign(kv.size(), 1);
            if (p.stage == at::phase::prefill && kv.empty()) kv = q;
            if (q.empty()) synperf::detail::report_error("predict attention: --kv-lens needs --q-lens for prefill");
            p.requests = at::ragged_batch(q, kv);
        } else {
            if (in.batch <= 0 || in.seq <= 0)
                synperf::detail::report_error("predict attention: --batch and --seq must be > 0 (got " + std::to_string(in.batch) +
                                              " and " + std::to_string(in.seq) + "), or give --q-lens/--kv-lens");
            p.requests = at::uniform_batch(in.batch, p.stage == at::phase::prefill ? in.seq : 1, in.seq);
        }
        p.heads = in.heads;
        p.kv_heads = in.kv_heads == 0 ? in.heads : in.kv_heads;
        p.head_dim = in.head_dim;
        p.v_head_dim = in.v_head_dim;
        p.causal = p.stage == at::phase::prefill && in.causal;
        p.window = in.window;
        p.page_size = in.page_size;
        if (in.kv_dtype == "fp8") p.kv_type = at::kv_dtype::fp8;
        else if (in.kv_dtype != "bf16")
            synperf::detail::report_error("predict attention: --kv-dtype must be bf16 or fp8, got '" + in.kv_dtype + "'");
        p.backend = at::parse_framework(in.framework);
        p.kernel = at::parse_kernel(in.kernel);
        p.preprocess = !in.no_preprocess;
        return p;
    }
    static std::string framework(const inputs& in, const attention::attention_problem&) { return in.framework; }

    using predicted = family::predicted<inputs, attention::attention_problem, attention::attention_plan>;
    static void json(report& out, const predicted& o) {
        const attention::attention_problem& p = o.problem;
        const attention::attention_plan& plan = o.plan;
        out.merge({{"implementation", attention::to_string(plan.implementation)}, {"variant", plan.variant}, {"batch", p.batch()},
                   {"q_tokens", p.q_tokens()}, {"kv_tokens", p.kv_tokens()}, {"kernel_floor_us", o.result.kernel_floor_us},
                   {"priced_apart_us", o.result.priced_apart_us}, {"tile", report{{"q", plan.tile_q}, {"kv", plan.tile_kv}}},
                   {"splits", plan.splits}, {"pack_gqa", plan.pack_gqa}, {"math", plan.fp8_math ? "fp8" : "bf16"},
                   {"kernel_in_training_data", attention::timed_by_training_tables(plan.implementation)},
                   {"kernels", kernel_list(o.result)}});
    }
    static report csv_row(const predicted& o) {
        const attention::attention_problem& p = o.problem;
        report row{{"gpu", o.gpu.name},          {"framework", o.framework}, {"phase", attention::to_string(p.stage)},
                   {"batch", o.inputs.batch},    {"seq", o.inputs.seq},      {"heads", p.heads},
                   {"kv_heads", p.kv_heads},     {"head_dim", p.head_dim},   {"window", p.window}};
        row.merge(prediction_cells(o.result));
        return row.merge({{"bottleneck", o.result.bottleneck}, {"implementation", attention::to_string(o.plan.implementation)}});
    }
    static std::vector<std::string> text(const predicted& o) {
        const attention::attention_problem& p = o.problem;
        const attention::attention_plan& plan = o.plan;
        const prediction& r = o.result;
        const std::string dims = p.dv() == p.head_dim ? text::cat("d=", p.head_dim) : text::cat("d=", p.head_dim, ", dv=", p.dv());
        std::vector<std::string> out{text::cat(attention::to_string(p.stage), " attention on ", o.gpu.name, " (", o.gpu.display_name,
                                               "), framework ", o.framework, ": ", p.batch(), " requests, ", p.q_tokens(),
                                               " query tokens, ", p.kv_tokens(), " KV tokens, ", p.heads, "/", p.kv_heads, " heads, ", dims)};
        for (std::string& line : text::prediction_lines(r)) out.push_back(std::move(line));
        if (r.kernel_floor_us > r.theoretical_us)
            out.push_back(text::cat("  kernel floor ", text::fixed(r.kernel_floor_us, 3), " us (its kernels' least time as decomposed",
                                    r.latency_us - r.priced_apart_us > r.kernel_floor_us ? ""
                                    : r.priced_apart_us > 0 ? "; the prediction, before the kernels priced apart"
                                                            : "; the prediction",
                                    ")"));
        if (r.priced_apart_us > 0) {
            std::string kinds;
            for (const kernel_report& k : r.kernels)
                if (k.priced_apart && kinds.find(k.kind) == std::string::npos) kinds.append(kinds.empty() ? "" : ", ").append(k.kind);
            out.push_back(text::cat("  priced apart ", text::fixed(r.priced_apart_us, 3),
                                    " us (kernels of a kind the model's training ops never ran, at their own floor: ", kinds, ")"));
        }
        out.push_back(text::cat("  kernel       ", attention::to_string(plan.implementation), " (", plan.variant, "): tile ", plan.tile_q,
                                "x", plan.tile_kv, ", ", plan.splits, " KV split(s)", plan.pack_gqa ? ", GQA heads packed" : "", ", ",
                                plan.fp8_math ? "FP8" : "BF16", " math"));
        for (const kernel_report& k : r.kernels)
            out.push_back(text::cat("  launch       ", k.name, ": ", k.tasks, " tasks, ", text::fixed(k.waves, 2), " waves, ", k.ctas_per_sm,
                                    " CTA/SM, ", k.busy_sms, " SMs busy, imbalance ", text::fixed(k.imbalance, 2),
                                    k.priced_apart ? " (priced apart)" : ""));
        return out;
    }
    static std::vector<std::string> notes(const predicted& o) {
        if (attention::timed_by_training_tables(o.plan.implementation)) return {};
        return {text::cat("note: no training table times ", attention::to_string(o.plan.implementation),
                          " kernels; this prediction transfers the efficiency learned on FA3, TensorRT-LLM and Triton kernels "
                          "(docs/families/attention.md, \"Transfer to FlashInfer\")")};
    }
};

}  // namespace synperf::family
