// SPDX-License-Identifier: Apache-2.0
// `synperf predict rmsnorm | silu_mul | elementwise`: the memory-bound ops of an LLM layer, one shape from flags or a
// CSV of shapes.
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <fmt/core.h>
#include <nlohmann/json.hpp>

#include <synperf/cost/mlp_cost.hpp>
#include <synperf/data/csv.hpp>
#include <synperf/family/elementwise.hpp>
#include <synperf/family/memory_bound.hpp>
#include <synperf/family/rmsnorm.hpp>
#include <synperf/family/silu_mul.hpp>
#include <synperf/mlp/format.hpp>
#include <synperf/predictor/predictor.hpp>
#if __has_include(<synperf/models/rmsnorm.hpp>)
#include <synperf/models/rmsnorm.hpp>
#define SYNPERF_CLI_EMBEDDED_RMSNORM (&synperf::models::rmsnorm())
#else
#define SYNPERF_CLI_EMBEDDED_RMSNORM nullptr
#endif
#if __has_include(<synperf/models/silu_mul.hpp>)
#include <synperf/models/silu_mul.hpp>
#define SYNPERF_CLI_EMBEDDED_SILU_MUL (&synperf::models::silu_mul())
#else
#define SYNPERF_CLI_EMBEDDED_SILU_MUL nullptr
#endif
#if __has_include(<synperf/models/elementwise.hpp>)
#include <synperf/models/elementwise.hpp>
#define SYNPERF_CLI_EMBEDDED_ELEMENTWISE (&synperf::models::elementwise())
#else
#define SYNPERF_CLI_EMBEDDED_ELEMENTWISE nullptr
#endif

#include "synperf/common.hpp"

namespace synperf::cli {
namespace {

/// Element size of an activation dtype.
int element_bytes(const std::string& dtype, std::string_view family) {
    if (dtype == "bf16" || dtype == "fp16") return 2;
    if (dtype == "fp32") return 4;
    throw invalid_argument("synperf: " + std::string(family) + ": unknown --dtype '" + dtype + "'; known: bf16, fp16, fp32");
}

/// Options every memory-bound predict command shares.
struct memory_bound_options {
    gpu_choice gpu;
    std::string dtype = "fp16";
    std::string framework;
    std::string weights;
    std::string csv;
    bool json = false;
    bool print_header = true;  ///< CSV output: the header line (only the first GPU of a list prints it)

    void add_to(CLI::App& cmd, const std::string& frameworks, const std::string& csv_columns) {
        gpu.add_to(cmd);
        cmd.add_option("--dtype", dtype, "activation dtype: bf16, fp16 or fp32")->capture_default_str();
        cmd.add_option("--framework", framework, frameworks);
        cmd.add_option("--csv", csv, "CSV whose columns (any of " + csv_columns + ") give each row's sizes; the flags give the rest; an optional measured_us column adds each row's error and a summary");
        cmd.add_option("--weights", weights, "weights file (default: the embedded shipped model)");
        cmd.add_flag("--json", json, "print JSON");
    }
};

/// `--csv FILE` of a memory-bound family: each row's sizes from the columns that name them, the rest from the
/// flags; one CSV line (or JSON object) per row. `problem_of` builds a row's problem and framework.
template <class F, class Options, class ProblemOf>
void predict_csv_rows(const Options& o, const std::vector<csv_size<Options>>& sizes, ProblemOf problem_of,
                      const mlp::network* embedded) {
    const gpu::runtime_gpu g = o.gpu.resolve();
    const data::csv_table t = data::csv_table::load(o.csv);
    require_size_columns(t, sizes, "predict " + std::string(F::name), o);
    std::vector<Options> rows;
    std::vector<std::pair<typename F::problem_type, std::string>> problems;
    for (std::size_t r = 0; r < t.rows(); ++r) {
        Options row = row_options(o, sizes, t, r);
        problems.push_back(data::at_row(t.source(), t.line(r), [&] {
            auto pf = problem_of(row);
            (void)F::framework_level(pf.second);
            (void)F::plan(pf.first, g.numbers);  // checks the shape and the GPU before the model is loaded
            return pf;
        }));
        rows.push_back(std::move(row));
    }
    measured_report measured(measured_times(t));
    auto net = predict_model(o.weights, embedded, F::name);
    check_weights_for<F>(*net, o.weights);
    note_unmeasured_gpu(*net, g.name);
    const runtime_predictor<F> pred(g.numbers, cost::mlp_cost(net));
    json_document doc(o.json, true);
    if (!o.json && o.print_header) {
        fmt::print("gpu,framework");
        for (const auto& c : sizes) fmt::print(",{}", c.name);
        fmt::print(",latency_us,efficiency,theoretical_us,bottleneck{}\n", measured.header_columns());
    }
    csv_warning_summary csv_warnings;
    for (std::size_t i = 0; i < problems.size(); ++i) {
        const auto& [p, framework] = problems[i];
        const prediction r = pred.predict(p, framework);
        const auto warnings = prediction_warnings<F>(*net, r, p, g);
        if (o.json) {
            nlohmann::json row{{"gpu", g.name}, {"family", F::name}, {"framework", framework}};
            for (const auto& c : sizes) row[c.name] = c.get(rows[i]);
            row.update(nlohmann::json{{"latency_us", r.latency_us}, {"efficiency", r.efficiency}, {"theoretical_us", r.theoretical_us},
                                      {"bottleneck", r.bottleneck}, {"warnings", warnings}});
            measured.add_json_fields(row, i, r.latency_us);
            doc.add(row);
            continue;
        }
        fmt::print("{},{}", g.name, framework);
        for (const auto& c : sizes) fmt::print(",{}", c.get(rows[i]));
        fmt::print(",{:.4f},{:.4f},{:.4f},{}{}\n", r.latency_us, r.efficiency, r.theoretical_us, r.bottleneck,
                   measured.csv_fields(i, r.latency_us));
        csv_warnings.add(i, warnings);
    }
    doc.finish();
    csv_warnings.print(problems.size(), g.name);
    measured.print_summary(g.name);
}

/// Predicts one op of family F and prints it; `what` describes the op, `fields` are its JSON inputs.
template <class F>
void predict_and_print(const memory_bound_options& o, const typename F::problem_type& p, std::string_view framework,
                       const mlp::network* embedded, const std::string& what, nlohmann::json fields) {
    const gpu::runtime_gpu g = o.gpu.resolve();
    // The shape, the framework and the GPU are checked before the model is loaded, so either is reported as such.
    (void)F::framework_level(framework);
    const family::memory_bound::plan pl = F::plan(p, g.numbers);
    auto net = predict_model(o.weights, embedded, F::name);
    check_weights_for<F>(*net, o.weights);
    note_unmeasured_gpu(*net, g.name);
    const runtime_predictor<F> pred(g.numbers, cost::mlp_cost(net));
    const prediction r = pred.predict(p, framework);
    const auto warnings = prediction_warnings<F>(*net, r, p, g);
    const family::memory_bound::launch_shape& s = pl.shapes.front();
    const kernel_report& k = r.kernels.front();
    if (o.json) {
        nlohmann::json out{{"gpu", g.name}, {"family", F::name}, {"framework", framework}};
        out.update(fields);
        out.update(nlohmann::json{{"latency_us", r.latency_us}, {"efficiency", r.efficiency}, {"theoretical_us", r.theoretical_us},
                                  {"bottleneck", r.bottleneck}, {"kernel", k.name}, {"grid_ctas", s.ctas},
                                  {"threads", s.threads}, {"vector_bytes", s.vector_bytes}, {"smem_bytes", s.smem},
                                  {"ctas_per_sm", k.ctas_per_sm}, {"waves", k.waves}, {"busy_sms", k.busy_sms},
                                  {"footprint_bytes", pl.footprint_bytes}, {"warnings", warnings}});
        out.update(cost_json(k));
        fmt::print("{}\n", out.dump(2));
        return;
    }
    fmt::print("{} on {} ({}), framework {}\n", what, g.name, g.display_name, framework);
    fmt::print("  latency      {:.3f} us\n", r.latency_us);
    fmt::print("  efficiency   {}\n", efficiency_text(r.efficiency));
    fmt::print("  theoretical  {:.3f} us (bottleneck: {})\n", r.theoretical_us, r.bottleneck);
    print_bound_terms(r);
    fmt::print("  kernel       {}: {} threads, {}-byte accesses{}\n", k.name, s.threads, s.vector_bytes,
               s.smem > 0 ? fmt::format(", {} B shared memory", s.smem) : std::string());
    fmt::print("  launch       {} CTAs, {} CTA/SM, {:.2f} waves, {} SMs busy; {:.0f} bytes moved once\n", s.ctas, k.ctas_per_sm,
               k.waves, k.busy_sms, pl.footprint_bytes);
    print_warnings(warnings);
}

// --- rmsnorm ---------------------------------------------------------------------------------------------------

struct predict_rmsnorm_options : memory_bound_options {
    std::int64_t tokens = 0, hidden = 0;
    bool fused_add = false;
    std::string kernel = "vllm_scalar";
};

family::rmsnorm_impl parse_rmsnorm_kernel(const std::string& s) {
    if (s == "vllm_scalar") return family::rmsnorm_impl::vllm_scalar;
    if (s == "vllm_vectorized") return family::rmsnorm_impl::vllm_vectorized;
    if (s == "flashinfer") return family::rmsnorm_impl::flashinfer;
    throw invalid_argument("synperf: rmsnorm: unknown --kernel '" + s + "'; known: vllm_scalar, vllm_vectorized, flashinfer");
}

std::pair<family::rmsnorm_problem, std::string> rmsnorm_problem_of(const predict_rmsnorm_options& o) {
    return {{o.tokens, o.hidden, o.fused_add, element_bytes(o.dtype, "rmsnorm"), parse_rmsnorm_kernel(o.kernel)},
            o.framework.empty() ? "vllm" : o.framework};
}

void run_predict_rmsnorm(const predict_rmsnorm_options& o) {
    if (!o.csv.empty())
        return predict_csv_rows<family::rmsnorm>(
            o, {size_column("tokens", &predict_rmsnorm_options::tokens), size_column("hidden", &predict_rmsnorm_options::hidden)},
            rmsnorm_problem_of, SYNPERF_CLI_EMBEDDED_RMSNORM);
    const auto [p, fw] = rmsnorm_problem_of(o);
    predict_and_print<family::rmsnorm>(
        o, p, fw, SYNPERF_CLI_EMBEDDED_RMSNORM,
        fmt::format("{} tokens={} hidden={} {} ({})", p.fused_add ? "fused_add_rms_norm" : "rms_norm", p.tokens, p.hidden, o.dtype,
                    o.kernel),
        {{"tokens", p.tokens}, {"hidden", p.hidden}, {"fused_add", p.fused_add}, {"dtype", o.dtype}, {"implementation", o.kernel}});
}

// --- silu_mul --------------------------------------------------------------------------------------------------

struct predict_silu_mul_options : memory_bound_options {
    std::int64_t tokens = 0, d = 0;
    std::string kernel = "vllm_scalar";
};

std::pair<family::silu_mul_problem, std::string> silu_mul_problem_of(const predict_silu_mul_options& o) {
    family::silu_mul_impl impl = family::silu_mul_impl::vllm_scalar;
    if (o.kernel == "flashinfer") impl = family::silu_mul_impl::flashinfer;
    else if (o.kernel != "vllm_scalar")
        throw invalid_argument("synperf: silu_mul: unknown --kernel '" + o.kernel + "'; known: vllm_scalar, flashinfer");
    return {{o.tokens, o.d, element_bytes(o.dtype, "silu_mul"), impl}, o.framework.empty() ? "vllm" : o.framework};
}

void run_predict_silu_mul(const predict_silu_mul_options& o) {
    if (!o.csv.empty())
        return predict_csv_rows<family::silu_mul>(
            o, {size_column("tokens", &predict_silu_mul_options::tokens), size_column("d", &predict_silu_mul_options::d)},
            silu_mul_problem_of, SYNPERF_CLI_EMBEDDED_SILU_MUL);
    const auto [p, fw] = silu_mul_problem_of(o);
    predict_and_print<family::silu_mul>(
        o, p, fw, SYNPERF_CLI_EMBEDDED_SILU_MUL,
        fmt::format("silu_and_mul tokens={} d={} (input [{}, {}]) {} ({})", p.tokens, p.d, p.tokens, 2 * p.d, o.dtype, o.kernel),
        {{"tokens", p.tokens}, {"d", p.d}, {"dtype", o.dtype}, {"implementation", o.kernel}});
}

// --- elementwise -----------------------------------------------------------------------------------------------

struct predict_elementwise_options : memory_bound_options {
    std::string op;
    std::string gather = "index_select";
    std::int64_t rows = 0, cols = 0, vocab = 0;
    int heads = 0, kv_heads = 0, head_dim = 0, rotary_dim = 0;
};

family::elementwise_kind parse_elementwise_op(const std::string& s) {
    for (auto k : {family::elementwise_kind::fp8_quantize, family::elementwise_kind::residual_add, family::elementwise_kind::rope,
                   family::elementwise_kind::embedding})
        if (s == family::to_string(k)) return k;
    throw invalid_argument("synperf: elementwise: unknown --op '" + s + "'; known: fp8_quantize, residual_add, rope, embedding");
}

std::pair<family::elementwise_problem, std::string> elementwise_problem_of(const predict_elementwise_options& o) {
    family::elementwise_problem p;
    p.kind = parse_elementwise_op(o.op);
    p.rows = o.rows;
    p.cols = o.cols;
    p.heads = o.heads;
    p.kv_heads = o.kv_heads == 0 && p.kind == family::elementwise_kind::rope ? o.heads : o.kv_heads;  // 0: not given
    p.head_dim = o.head_dim;
    p.rotary_dim = o.rotary_dim;
    p.vocab = o.vocab;
    p.gather = o.gather == "vectorized" ? family::gather_kernel::vectorized : family::gather_kernel::index_select;
    if (p.gather != family::gather_kernel::index_select && p.kind != family::elementwise_kind::embedding)
        throw invalid_argument("synperf: elementwise: --gather applies to --op embedding only");
    // The activation dtype (FP8 quantize reads a 16-bit one: the family refuses 4-byte elements for it).
    p.element_bytes = element_bytes(o.dtype, "elementwise");
    // Each op's measurements come from one collector: TensorRT-LLM's for the quantize, Vidur's for the rest.
    std::string fw = !o.framework.empty() ? o.framework : p.kind == family::elementwise_kind::fp8_quantize ? "trtllm" : "vidur";
    return {p, fw};
}

void run_predict_elementwise(const predict_elementwise_options& o) {
    using O = predict_elementwise_options;
    if (!o.csv.empty()) {
        // Only the op's own sizes are columns: another op's (a vocab for a residual add) is an unknown column.
        std::vector<csv_size<O>> sizes{size_column("rows", &O::rows, "tokens")};
        switch (parse_elementwise_op(o.op)) {
            case family::elementwise_kind::rope:
                for (auto&& c : {size_column("heads", &O::heads), size_column("kv_heads", &O::kv_heads),
                                 size_column("head_dim", &O::head_dim), size_column("rotary_dim", &O::rotary_dim)})
                    sizes.push_back(c);
                break;
            case family::elementwise_kind::embedding:
                sizes.push_back(size_column("cols", &O::cols, "hidden"));
                sizes.push_back(size_column("vocab", &O::vocab));
                break;
            default: sizes.push_back(size_column("cols", &O::cols, "hidden")); break;
        }
        return predict_csv_rows<family::elementwise>(o, sizes, elementwise_problem_of, SYNPERF_CLI_EMBEDDED_ELEMENTWISE);
    }
    const auto [p, fw] = elementwise_problem_of(o);
    std::string what = fmt::format("elementwise {} rows={}", family::to_string(p.kind), p.rows);
    nlohmann::json fields{{"op", std::string(family::to_string(p.kind))}, {"rows", p.rows}};
    if (p.kind == family::elementwise_kind::rope) {
        what += fmt::format(" heads={} kv_heads={} head_dim={} rotary_dim={}", p.heads, p.kv_heads, p.head_dim,
                            family::elementwise_detail::rot(p));
        fields.update(nlohmann::json{{"heads", p.heads}, {"kv_heads", p.kv_heads}, {"head_dim", p.head_dim},
                                     {"rotary_dim", family::elementwise_detail::rot(p)}});
    } else {
        what += fmt::format(" cols={}", p.cols);
        fields["cols"] = p.cols;
    }
    if (p.kind == family::elementwise_kind::embedding) {
        // A vectorized gather asked for where PyTorch runs index_select's kernels says so.
        const bool fallback = p.gather == family::gather_kernel::vectorized && !family::runs_vectorized_gather(p);
        what += fmt::format(" vocab={} gather={}{}", p.vocab, family::to_string(p.gather),
                            fallback ? (p.rows <= 16 ? " (16 rows or fewer: PyTorch's small-index kernel runs)"
                                                     : " (rows not whole 16-byte vectors: index_select runs)")
                                     : "");
        fields["vocab"] = p.vocab;
        fields["gather"] = std::string(family::to_string(p.gather));
        fields["gather_kernel_runs"] = family::runs_vectorized_gather(p) ? "vectorized" : "index_select";
    }
    what += " " + o.dtype + (p.kind == family::elementwise_kind::fp8_quantize ? " -> e4m3" : "");
    fields["dtype"] = o.dtype;
    predict_and_print<family::elementwise>(o, p, fw, SYNPERF_CLI_EMBEDDED_ELEMENTWISE, what, fields);
}

}  // namespace

void add_predict_memory_bound_commands(CLI::App& predict) {
    static predict_rmsnorm_options rn;
    auto* rms = predict.add_subcommand("rmsnorm", "RMSNorm, plain or fused with the residual add: one CTA per token");
    rn.add_to(*rms, "vllm (also vidur, sarathi: the collector the model mimics; default vllm)", "tokens, hidden");
    rms->add_option("--tokens", rn.tokens, "rows (tokens)");
    rms->add_option("--hidden", rn.hidden, "row length (hidden size)");
    rms->add_flag("--fused-add", rn.fused_add, "fused residual add + norm (reads and writes the residual too)");
    rms->add_option("--kernel", rn.kernel, "vllm_scalar, vllm_vectorized or flashinfer")
        ->check(CLI::IsMember({"vllm_scalar", "vllm_vectorized", "flashinfer"}))
        ->capture_default_str();
    rms->final_callback([rms] {
        require_sizes(*rms, {"--tokens", "--hidden"});
        for_each_listed_gpu(rn, run_predict_rmsnorm);
    });

    static predict_silu_mul_options sm;
    auto* silu = predict.add_subcommand("silu_mul", "SiLU-and-mul of the gated MLP: out = silu(x[:, :d]) * x[:, d:], one CTA per token");
    sm.add_to(*silu, "vllm (also vidur, sarathi: the collector the model mimics; default vllm)", "tokens, d");
    silu->add_option("--tokens", sm.tokens, "rows (tokens)");
    silu->add_option("--d,--intermediate", sm.d, "output columns: the intermediate size per tensor-parallel rank (input has 2 d)");
    silu->add_option("--kernel", sm.kernel, "vllm_scalar or flashinfer")->check(CLI::IsMember({"vllm_scalar", "flashinfer"}))->capture_default_str();
    silu->final_callback([silu] {
        require_sizes(*silu, {"--tokens", "--d"});
        for_each_listed_gpu(sm, run_predict_silu_mul);
    });

    static predict_elementwise_options ew;
    auto* elem = predict.add_subcommand("elementwise", "FP8 quantize, residual add, RoPE or the embedding gather");
    ew.add_to(*elem, "trtllm or vidur (also vllm, sarathi, torch; default: fp8_quantize trtllm, the others vidur)",
              "rows (or tokens), cols (or hidden), heads, kv_heads, head_dim, rotary_dim, vocab");
    elem->add_option("--op", ew.op, "fp8_quantize, residual_add, rope or embedding")
        ->check(CLI::IsMember({"fp8_quantize", "residual_add", "rope", "embedding"}))
        ->required();
    elem->add_option("--rows,--tokens", ew.rows, "rows (tokens)");
    elem->add_option("--cols,--hidden", ew.cols, "elements per row (fp8_quantize: k; residual_add, embedding: hidden)");
    elem->add_option("--heads", ew.heads, "rope: query heads per tensor-parallel rank");
    elem->add_option("--kv-heads", ew.kv_heads, "rope: key heads per rank (default: --heads)")->check(positive_number());
    elem->add_option("--head-dim", ew.head_dim, "rope: head size");
    elem->add_option("--rotary-dim", ew.rotary_dim, "rope: rotated dimensions (default: head size)")
        ->check(positive_number());
    elem->add_option("--vocab", ew.vocab, "embedding: table rows per rank");
    elem->add_option("--gather", ew.gather,
                     "embedding: PyTorch's kernel for more than 16 rows: index_select (indexSelectLargeIndex, the PyTorch Vidur "
                     "measured) or vectorized (vectorized_gather_kernel, current PyTorch)")
        ->check(CLI::IsMember({"index_select", "vectorized"}))
        ->capture_default_str();
    elem->final_callback([elem] {
        const std::string variant = "--op " + ew.op;
        switch (parse_elementwise_op(ew.op)) {
            case family::elementwise_kind::rope:
                require_sizes(*elem, {"--rows", "--heads", "--head-dim"});
                refuse_options(*elem, {"--cols", "--vocab", "--gather"}, variant);
                break;
            case family::elementwise_kind::embedding:
                require_sizes(*elem, {"--rows", "--cols", "--vocab"});
                refuse_options(*elem, {"--heads", "--kv-heads", "--head-dim", "--rotary-dim"}, variant);
                break;
            default:
                require_sizes(*elem, {"--rows", "--cols"});
                refuse_options(*elem, {"--heads", "--kv-heads", "--head-dim", "--rotary-dim", "--vocab", "--gather"}, variant);
                break;
        }
        for_each_listed_gpu(ew, run_predict_elementwise);
    });
}

}  // namespace synperf::cli
