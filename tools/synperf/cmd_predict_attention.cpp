// SPDX-License-Identifier: Apache-2.0
// `synperf predict attention`: one prefill or decode attention op of a (possibly ragged) batch, or a CSV of
// uniform batches.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <fmt/core.h>
#include <nlohmann/json.hpp>

#include <synperf/cost/mlp_cost.hpp>
#include <synperf/data/attention_rows.hpp>
#include <synperf/data/csv.hpp>
#include <synperf/family/attention.hpp>
#include <synperf/mlp/format.hpp>
#include <synperf/predictor/predictor.hpp>
#if __has_include(<synperf/models/attention_prefill.hpp>) && __has_include(<synperf/models/attention_decode.hpp>)
#include <synperf/models/attention_decode.hpp>
#include <synperf/models/attention_prefill.hpp>
#define SYNPERF_CLI_HAS_EMBEDDED_ATTENTION 1
#endif

#include "synperf/common.hpp"

namespace synperf::cli {
namespace {

namespace at = family::attention;

struct predict_attention_options {
    gpu_choice gpu;
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
    std::string weights;
    std::string csv;
    bool json = false;
    bool print_header = true;  ///< CSV output: the header line (only the first GPU of a list prints it)
};

std::shared_ptr<const mlp::network> attention_model(at::phase stage, const std::string& weights) {
    if (!weights.empty()) return std::make_shared<const mlp::network>(mlp::load_mlp(weights));
    const std::string name = stage == at::phase::prefill ? "attention_prefill" : "attention_decode";
#ifdef SYNPERF_CLI_HAS_EMBEDDED_ATTENTION
    const mlp::network& net = stage == at::phase::prefill ? models::attention_prefill() : models::attention_decode();
    return std::shared_ptr<const mlp::network>(&net, [](const mlp::network*) {});
#else
    return std::make_shared<const mlp::network>(mlp::load_mlp(model_path(name, false).string()));
#endif
}

at::attention_problem make_problem(const predict_attention_options& o) {
    at::attention_problem p;
    if (o.phase == "prefill") p.stage = at::phase::prefill;
    else if (o.phase == "decode") p.stage = at::phase::decode;
    else throw invalid_argument("synperf: predict attention: --phase must be prefill or decode, got '" + o.phase + "'");
    const bool lists = !o.q_lens.empty() || !o.kv_lens.empty();
    if (lists && (o.batch != 0 || o.seq != 0))
        throw invalid_argument("synperf: predict attention: give either --q-lens/--kv-lens or --batch/--seq, not both");
    if (lists) {
        std::vector<std::int64_t> q = o.q_lens, kv = o.kv_lens;
        if (p.stage == at::phase::decode && q.empty()) q.assign(kv.size(), 1);
        if (p.stage == at::phase::prefill && kv.empty()) kv = q;
        if (q.empty()) throw invalid_argument("synperf: predict attention: --kv-lens needs --q-lens for prefill");
        p.requests = at::ragged_batch(q, kv);
    } else {
        if (o.batch <= 0 || o.seq <= 0)
            throw invalid_argument("synperf: predict attention: --batch and --seq must be > 0 (got " + std::to_string(o.batch) +
                                   " and " + std::to_string(o.seq) + "), or give --q-lens/--kv-lens");
        p.requests = at::uniform_batch(o.batch, p.stage == at::phase::prefill ? o.seq : 1, o.seq);
    }
    p.heads = o.heads;
    p.kv_heads = o.kv_heads == 0 ? o.heads : o.kv_heads;
    p.head_dim = o.head_dim;
    p.v_head_dim = o.v_head_dim;
    p.causal = p.stage == at::phase::prefill && o.causal;
    p.window = o.window;
    p.page_size = o.page_size;
    if (o.kv_dtype == "fp8") p.kv_type = at::kv_dtype::fp8;
    else if (o.kv_dtype != "bf16") throw invalid_argument("synperf: predict attention: --kv-dtype must be bf16 or fp8, got '" + o.kv_dtype + "'");
    p.backend = at::parse_framework(o.framework);
    p.kernel = at::parse_kernel(o.kernel);
    p.preprocess = !o.no_preprocess;
    return p;
}

template <class F>
void predict_with(const predict_attention_options& o, const gpu::runtime_gpu& g, const at::attention_problem& p) {
    F::validate(p);
    const at::attention_plan plan = F::plan(p, g.numbers);  // reported below; validated before the model loads
    auto net = attention_model(p.stage, o.weights);
    check_weights_for<F>(*net, o.weights);
    note_unmeasured_gpu(*net, g.name);
    const runtime_predictor<F> pred(g.numbers, cost::mlp_cost(net));
    const prediction r = pred.predict(p, o.framework);
    const auto warnings = prediction_warnings<F>(*net, r, p, g);
    const bool timed = data::attention_tables_time(plan.implementation);
    if (o.json) {
        const nlohmann::json out{{"gpu", g.name}, {"family", F::name}, {"framework", o.framework},
                                 {"implementation", std::string(at::to_string(plan.implementation))}, {"variant", plan.variant},
                                 {"batch", p.batch()}, {"q_tokens", p.q_tokens()}, {"kv_tokens", p.kv_tokens()},
                                 {"latency_us", r.latency_us}, {"efficiency", r.efficiency}, {"theoretical_us", r.theoretical_us},
                                 {"kernel_floor_us", r.kernel_floor_us}, {"priced_apart_us", r.priced_apart_us},
                                 {"bottleneck", r.bottleneck},
                                 {"tile", {{"q", plan.tile_q}, {"kv", plan.tile_kv}}}, {"splits", plan.splits},
                                 {"pack_gqa", plan.pack_gqa}, {"math", plan.fp8_math ? "fp8" : "bf16"},
                                 {"kernel_in_training_data", timed}, {"kernels", kernels_json(r)}, {"warnings", warnings}};
        fmt::print("{}\n", out.dump(2));
        return;
    }
    const std::string dims = p.dv() == p.head_dim ? fmt::format("d={}", p.head_dim) : fmt::format("d={}, dv={}", p.head_dim, p.dv());
    fmt::print("{} attention on {} ({}), framework {}: {} requests, {} query tokens, {} KV tokens, {}/{} heads, {}\n",
               at::to_string(p.stage), g.name, g.display_name, o.framework, p.batch(), p.q_tokens(), p.kv_tokens(), p.heads,
               p.kv_heads, dims);
    fmt::print("  latency      {:.3f} us\n", r.latency_us);
    fmt::print("  efficiency   {}\n", efficiency_text(r.efficiency));
    fmt::print("  theoretical  {:.3f} us (bottleneck: {})\n", r.theoretical_us, r.bottleneck);
    print_bound_terms(r);
    if (r.kernel_floor_us > r.theoretical_us)
        fmt::print("  kernel floor {:.3f} us (its kernels' least time as decomposed{})\n", r.kernel_floor_us,
                   r.latency_us - r.priced_apart_us > r.kernel_floor_us ? ""
                   : r.priced_apart_us > 0                               ? "; the prediction, before the kernels priced apart"
                                                                         : "; the prediction");
    if (r.priced_apart_us > 0) {
        std::string kinds;
        for (const auto& k : r.kernels)
            if (k.priced_apart && kinds.find(k.kind) == std::string::npos) kinds += (kinds.empty() ? "" : ", ") + k.kind;
        fmt::print("  priced apart {:.3f} us (kernels of a kind the model's training ops never ran, at their own floor: {})\n",
                   r.priced_apart_us, kinds);
    }
    fmt::print("  kernel       {} ({}): tile {}x{}, {} KV split(s){}, {} math\n", at::to_string(plan.implementation), plan.variant,
               plan.tile_q, plan.tile_kv, plan.splits, plan.pack_gqa ? ", GQA heads packed" : "", plan.fp8_math ? "FP8" : "BF16");
    for (const auto& k : r.kernels)
        fmt::print("  launch       {}: {} tasks, {:.2f} waves, {} CTA/SM, {} SMs busy, imbalance {:.2f}{}\n", k.name, k.tasks,
                   k.waves, k.ctas_per_sm, k.busy_sms, k.imbalance, k.priced_apart ? " (priced apart)" : "");
    print_warnings(warnings);
    if (!timed)
        fmt::print(stderr,
                   "note: no training table times {} kernels; this prediction transfers the efficiency learned on "
                   "FA3, TensorRT-LLM and Triton kernels (docs/families/attention.md, \"Transfer to FlashInfer\")\n",
                   at::to_string(plan.implementation));
}

/// `--csv FILE`: one uniform batch per row. Columns named like the size options (batch, seq, heads, kv_heads,
/// head_dim, window) give that row's value; the flags give the rest and the phase, framework and dtype.
template <class F>
void predict_csv_rows(const predict_attention_options& o, const gpu::runtime_gpu& g) {
    using O = predict_attention_options;
    const std::vector<csv_size<O>> sizes{size_column("batch", &O::batch),       size_column("seq", &O::seq),
                                         size_column("heads", &O::heads),       size_column("kv_heads", &O::kv_heads),
                                         size_column("head_dim", &O::head_dim), size_column("window", &O::window, nullptr, true)};
    const data::csv_table t = data::csv_table::load(o.csv);
    require_size_columns(t, sizes, "predict attention", o);
    std::vector<O> rows;
    std::vector<at::attention_problem> problems;
    std::vector<at::kernel_impl> implementations;  // each row's kernel library (its plan is rebuilt by the prediction)
    for (std::size_t r = 0; r < t.rows(); ++r) {
        O row = row_options(o, sizes, t, r);
        problems.push_back(data::at_row(t.source(), t.line(r), [&] { return make_problem(row); }));
        implementations.push_back(data::at_row(t.source(), t.line(r), [&] {
            F::validate(problems.back());
            return F::plan(problems.back(), g.numbers).implementation;
        }));
        rows.push_back(std::move(row));
    }
    measured_report measured(measured_times(t));
    auto net = attention_model(problems.empty() ? at::phase::prefill : problems.front().stage, o.weights);
    check_weights_for<F>(*net, o.weights);
    note_unmeasured_gpu(*net, g.name);
    const runtime_predictor<F> pred(g.numbers, cost::mlp_cost(net));
    json_document doc(o.json, true);
    if (!o.json && o.print_header)
        fmt::print("gpu,framework,phase,batch,seq,heads,kv_heads,head_dim,window,latency_us,efficiency,theoretical_us,bottleneck,"
                   "implementation{}\n",
                   measured.header_columns());
    csv_warning_summary csv_warnings;
    for (std::size_t i = 0; i < problems.size(); ++i) {
        const at::attention_problem& p = problems[i];
        const prediction r = pred.predict(p, o.framework);
        const std::string impl(at::to_string(implementations[i]));
        const auto warnings = prediction_warnings<F>(*net, r, p, g);
        if (o.json) {
            nlohmann::json row{{"gpu", g.name}, {"family", F::name}, {"framework", o.framework}, {"batch", rows[i].batch},
                               {"seq", rows[i].seq}, {"heads", p.heads}, {"kv_heads", p.kv_heads}, {"head_dim", p.head_dim},
                               {"window", p.window}, {"latency_us", r.latency_us}, {"efficiency", r.efficiency},
                               {"theoretical_us", r.theoretical_us}, {"bottleneck", r.bottleneck}, {"implementation", impl},
                               {"warnings", warnings}};
            measured.add_json_fields(row, i, r.latency_us);
            doc.add(row);
            continue;
        }
        fmt::print("{},{},{},{},{},{},{},{},{},{:.4f},{:.4f},{:.4f},{},{}{}\n", g.name, o.framework, at::to_string(p.stage), rows[i].batch,
                   rows[i].seq, p.heads, p.kv_heads, p.head_dim, p.window, r.latency_us, r.efficiency, r.theoretical_us,
                   r.bottleneck, impl, measured.csv_fields(i, r.latency_us));
        csv_warnings.add(i, warnings);
    }
    doc.finish();
    csv_warnings.print(problems.size(), g.name);
    measured.print_summary(g.name);
}

void run_predict_attention(const predict_attention_options& o) {
    const gpu::runtime_gpu g = o.gpu.resolve();
    if (!o.csv.empty()) {
        if (!o.q_lens.empty() || !o.kv_lens.empty())
            throw invalid_argument("synperf: predict attention: --csv rows are uniform batches (columns batch, seq); drop --q-lens/--kv-lens");
        if (o.phase == "decode") return predict_csv_rows<family::attention_decode>(o, g);
        return predict_csv_rows<family::attention_prefill>(o, g);
    }
    const at::attention_problem p = make_problem(o);
    if (p.stage == at::phase::prefill) predict_with<family::attention_prefill>(o, g, p);
    else predict_with<family::attention_decode>(o, g, p);
}

}  // namespace

void add_predict_attention_command(CLI::App& predict) {
    static predict_attention_options o;
    auto* cmd = predict.add_subcommand("attention", "prefill or decode attention of a batch of requests over a paged KV cache");
    o.gpu.add_to(*cmd);
    cmd->add_option("--phase", o.phase, "prefill or decode")->check(CLI::IsMember({"prefill", "decode"}))->capture_default_str();
    cmd->add_option("--framework", o.framework, "trtllm, sglang or vllm: whose attention backend runs the op")
        ->check(CLI::IsMember({"trtllm", "sglang", "vllm"}))
        ->capture_default_str();
    cmd->add_option("--kernel", o.kernel, "force an implementation: fa3, fa2, flashinfer, trtllm, triton (default: the framework's)")
        ->check(CLI::IsMember({"auto", "fa3", "fa2", "flashinfer", "trtllm", "triton"}))
        ->capture_default_str();
    cmd->add_option("--heads", o.heads, "query heads (per GPU)");
    cmd->add_option("--kv-heads", o.kv_heads, "KV heads (default: --heads, i.e. MHA)")->check(positive_number());
    cmd->add_option("--head-dim", o.head_dim, "head dimension");
    cmd->add_option("--v-head-dim", o.v_head_dim, "V head dimension (default: --head-dim)")->check(positive_number());
    add_integer_list_option(*cmd, "--q-lens", o.q_lens, "query tokens per request, comma separated (prefill)");
    add_integer_list_option(*cmd, "--kv-lens", o.kv_lens, "KV tokens per request, comma separated (default for prefill: --q-lens)");
    cmd->add_option("--batch", o.batch, "uniform batch: requests");
    cmd->add_option("--seq", o.seq, "uniform batch: prompt length (prefill) or KV length (decode)");
    cmd->add_flag("--causal,!--non-causal", o.causal, "causal mask (prefill; the default, as an LLM's prefill is) or none");
    cmd->add_option("--window", o.window, "sliding window in tokens (0: none)")->capture_default_str();
    cmd->add_option("--kv-dtype", o.kv_dtype, "bf16 or fp8")->check(CLI::IsMember({"bf16", "fp8"}))->capture_default_str();
    cmd->add_option("--page-size", o.page_size, "paged KV tokens per page")->capture_default_str();
    cmd->add_flag("--no-preprocess", o.no_preprocess, "leave out the op's pre-processing kernels (RoPE + KV write / KV store)");
    cmd->add_option("--csv", o.csv,
                    "CSV of uniform batches: columns (any of batch, seq, heads, kv_heads, head_dim, window) give each row's sizes; "
                    "the flags give the rest; an optional measured_us column adds each row's error and a summary");
    cmd->add_option("--weights", o.weights, "weights file (default: the embedded shipped model)");
    cmd->add_flag("--json", o.json, "print JSON");
    cmd->final_callback([cmd] {
        require_sizes(*cmd, {"--heads", "--head-dim"});
        // A decode step's one query attends to every cached key: there is no mask to choose.
        if (o.phase == "decode" && !o.causal)
            throw invalid_argument("synperf: predict attention: --non-causal applies to --phase prefill only");
        for_each_listed_gpu(o, run_predict_attention);
    });
}

}  // namespace synperf::cli
