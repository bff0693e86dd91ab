// SPDX-License-Identifier: Apache-2.0
// End-to-end model: configs, workload generator, memory fit, execution semantics.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <limits>
#include <memory>
#include <numeric>
#include <optional>
#include <string>
#include <vector>

#include <synperf/e2e.hpp>
#include <synperf/gpu/registry.hpp>
#include <synperf/gpu/spec_file.hpp>
#include <synperf/predictor/analyze.hpp>
#include <synperf/system/catalogue.hpp>

#include "constant_network.hpp"

namespace {

using namespace synperf;
namespace at = synperf::family::attention;

const std::string data_dir = SYNPERF_TEST_DATA_DIR "/e2e/";

e2e::model_config fixture(const std::string& file) { return e2e::load_model_config(data_dir + file); }

/// Every MLP family with a constant efficiency of 0.5: predictions = 2 x the decompositions' bounds.
e2e::family_models constant_models() {
    e2e::family_models m;
    builtin_families::for_each([&m](auto f) {
        using F = typename decltype(f)::type;
        m.get<F>() = synperf::test::constant_network<F>(0.5);
    });
    return m;
}

const e2e::op* find_op(const e2e::iteration& it, std::string_view name) {
    for (const auto& o : it.ops)
        if (o.name == name) return &o;
    return nullptr;
}

template <class F>
std::int64_t count_of(const e2e::iteration& it) {
    std::int64_t n = 0;
    for (const auto& o : it.ops)
        if (o.is<F>()) n += o.count;
    return n;
}

/// The shape of a GEMM op of any of the three GEMM families, and its bytes per weight.
struct gemm_shape {
    std::int64_t m = 0, n = 0, k = 0;
    double weight_bytes = 2;
};
template <class F>
gemm_shape shape_of(const e2e::op& o, double weight_bytes) {
    const auto& p = o.as<F>();
    return {p.m, p.n, p.k, weight_bytes};
}
std::optional<gemm_shape> gemm_of(const e2e::op& o) {
    if (o.is<family::gemm>()) return shape_of<family::gemm>(o, 2);
    if (o.is<family::gemm_fp8>()) return shape_of<family::gemm_fp8>(o, 1);
    if (o.is<family::fp8_linear>()) return shape_of<family::fp8_linear>(o, 1);
    return std::nullopt;
}

double gemm_flop(const e2e::iteration& it) {
    double flop = 0;
    for (const auto& o : it.ops)
        if (const auto g = gemm_of(o)) flop += 2.0 * double(g->m) * double(g->n) * double(g->k) * double(o.count);
    return flop;
}

}  // namespace

TEST_CASE("e2e model config: head_dim absent, given, and different from hidden / heads") {
    // Qwen3-32B: 64 heads x 128 = 8192 query width, hidden 5120.
    const e2e::model_config q = e2e::find_model("Qwen3-32B");
    CHECK(q.head_dim == 128);
    CHECK(q.hidden / q.heads == 80);
    CHECK(q.q_width() == 8192);
    CHECK(q.qk_norm);
    // Absent: hidden / heads.
    const e2e::model_config n = fixture("no_head_dim.json");
    CHECK(n.head_dim == 3072 / 24);
    CHECK(n.tie_embeddings);
    CHECK(n.name == "no_head_dim");
    // Given and different: the config's value wins.
    const e2e::model_config g = e2e::parse_model_config(
        R"({"model_type":"qwen3","hidden_size":5120,"num_attention_heads":64,"num_key_value_heads":8,"head_dim":128,
            "num_hidden_layers":64,"intermediate_size":25600,"vocab_size":151936})",
        "inline");
    CHECK(g.head_dim == 128);
    CHECK(g.qk_norm);
    // Null head_dim is treated as absent.
    const e2e::model_config z = e2e::parse_model_config(
        R"({"hidden_size":4096,"num_attention_heads":32,"head_dim":null,"num_hidden_layers":2,"intermediate_size":11008,"vocab_size":32000})",
        "inline");
    CHECK(z.head_dim == 128);
    CHECK(z.kv_heads == 32);  // absent: MHA
}

TEST_CASE("e2e model config: the built-in models match the Hugging Face configs shipped with the data") {
    const std::filesystem::path models = std::filesystem::path(SYNPERF_SOURCE_DIR) / ".." / "shared" / "data" / "pipeweave" / "models";
    if (!std::filesystem::is_directory(models)) return;  // no data on this machine
    int checked = 0;
    for (const auto& entry : std::filesystem::directory_iterator(models)) {
        const e2e::model_config f = e2e::load_model_config(entry.path().string());
        const e2e::model_config b = e2e::find_model(f.name);
        CAPTURE(f.name);
        CHECK(b.hidden == f.hidden);
        CHECK(b.intermediate == f.intermediate);
        CHECK(b.vocab == f.vocab);
        CHECK(b.layers == f.layers);
        CHECK(b.heads == f.heads);
        CHECK(b.kv_heads == f.kv_heads);
        CHECK(b.head_dim == f.head_dim);
        CHECK(b.qk_norm == f.qk_norm);
        CHECK(b.qkv_bias == f.qkv_bias);
        CHECK(b.tie_embeddings == f.tie_embeddings);
        ++checked;
    }
    CHECK(checked >= 9);
}

TEST_CASE("e2e model config: fields the workload does not model are named, not ignored") {
    const std::string dense =
        R"("hidden_size":4096,"num_attention_heads":32,"num_key_value_heads":8,"num_hidden_layers":32,"intermediate_size":14336,
           "vocab_size":32000,"max_position_embeddings":32768)";
    // Mistral's sliding window is on whenever it is set; an AWQ checkpoint's weights are not modelled.
    const e2e::model_config m = e2e::parse_model_config(
        "{" + dense + R"(,"model_type":"mistral","sliding_window":4096,"quantization_config":{"quant_method":"awq","bits":4}})", "m");
    REQUIRE(m.unmodelled.size() == 2);
    CHECK(m.quantization == "awq");
    CHECK(m.unmodelled[0].find("quant_method 'awq'") != std::string::npos);
    CHECK(m.unmodelled[1].find("sliding_window 4096:") != std::string::npos);
    // An FP8 checkpoint is a deployment with FP8 weights (the CLI says so); Qwen2's window is off unless
    // use_sliding_window is true; a window as long as the context changes nothing.
    const e2e::model_config q = e2e::parse_model_config(
        "{" + dense + R"(,"model_type":"qwen2","sliding_window":4096,"use_sliding_window":false,"quantization_config":{"quant_method":"fp8"}})",
        "q");
    CHECK(q.quantization == "fp8");
    CHECK(q.unmodelled.empty());
    const std::string llama = dense + R"(,"model_type":"llama")";
    CHECK(e2e::parse_model_config("{" + llama + R"(,"sliding_window":32768})", "w").unmodelled.empty());
    CHECK(e2e::parse_model_config("{" + llama + R"(,"sliding_window":null})", "n").unmodelled.empty());
    CHECK(e2e::parse_model_config("{" + llama + R"(,"sliding_window":0})", "z").unmodelled.empty());
    // Per-layer attention kinds (newer configs) without a window field.
    std::string kinds = R"("sliding_attention","sliding_attention")";
    for (int i = 2; i < 32; ++i) kinds += R"(,"full_attention")";
    const e2e::model_config l = e2e::parse_model_config("{" + llama + R"(,"layer_types":[)" + kinds + "]}", "l");
    REQUIRE(l.unmodelled.size() == 1);
    CHECK(l.unmodelled[0].find("2 layers use an attention other than full_attention") != std::string::npos);
    // A config without model_type is read by its fields, and says so.
    const e2e::model_config untyped = e2e::parse_model_config("{" + dense + "}", "u");
    REQUIRE(untyped.unmodelled.size() == 1);
    CHECK(untyped.unmodelled[0] == "model_type: absent; read by its fields as a llama model (no experts)");
    // A 16-bit checkpoint is what is modelled; another dtype is said to be predicted in bf16.
    CHECK(e2e::parse_model_config("{" + llama + R"(,"torch_dtype":"float16"})", "h").unmodelled.empty());
    for (const char* dtype : {R"("torch_dtype":"float32")", R"("dtype":"float8")"}) {
        const e2e::model_config f = e2e::parse_model_config("{" + llama + "," + dtype + "}", "f");
        REQUIRE(f.unmodelled.size() == 1);
        CHECK(f.unmodelled[0].find("only 16-bit weights and activations are modelled") != std::string::npos);
    }
    CHECK_THROWS_WITH_AS((void)e2e::parse_model_config("{" + llama + R"(,"torch_dtype":16})", "cfg"),
                         doctest::Contains("cfg:2: expected \"torch_dtype\" a dtype name"), load_error);
    // The built-in models have none.
    for (const auto& b : e2e::builtin_models()) CHECK(b.unmodelled.empty());
}

TEST_CASE("e2e model config: a byte-order mark is skipped, and an odd head size names the file") {
    const std::string dense =
        R"("model_type":"llama","hidden_size":4096,"num_attention_heads":32,"num_hidden_layers":32,"intermediate_size":14336,
           "vocab_size":32000)";
    CHECK(e2e::parse_model_config("\xEF\xBB\xBF{" + dense + "}", "bom").hidden == 4096);
    // A hidden size past the range is named itself, not through the head size it would imply.
    CHECK_THROWS_WITH_AS((void)e2e::parse_model_config(R"({"model_type":"llama","hidden_size":9007199254740992,"num_attention_heads":32,
                                                          "num_hidden_layers":32,"intermediate_size":14336,"vocab_size":32000})",
                                                       "big.json"),
                         doctest::Contains("hidden_size must be in 1..2^20"), load_error);
    CHECK_THROWS_WITH_AS((void)e2e::parse_model_config("{" + dense + R"(,"head_dim":7})", "cfg.json"),
                         doctest::Contains("cfg.json: expected a consistent config, got: head_dim must be an even number in 2..1024, got 7"),
                         load_error);
}

TEST_CASE("e2e model config: MoE fixtures and malformed files") {
    const e2e::model_config mx = fixture("mixtral-8x7b.json");
    CHECK(mx.is_moe());
    CHECK(mx.experts == 8);
    CHECK(mx.experts_per_token == 2);
    CHECK(mx.expert_intermediate == 14336);
    CHECK(mx.head_dim == 128);
    const e2e::model_config qm = fixture("qwen3-30b-a3b.json");
    CHECK(qm.experts == 128);
    CHECK(qm.experts_per_token == 8);
    CHECK(qm.expert_intermediate == 768);
    CHECK(qm.qk_norm);
    CHECK(qm.kv_heads == 4);
    // Mixtral-8x7B has ~46.7 B parameters.
    CHECK(mx.parameters() == doctest::Approx(46.7e9).epsilon(0.01));
    CHECK_THROWS_WITH_AS((void)fixture("bad_syntax.json"),
                         doctest::Contains("bad_syntax.json:5:21: syntax error while parsing object - unexpected string literal; expected '}'"),
                         load_error);
    CHECK_THROWS_WITH_AS((void)fixture("unsupported_type.json"), doctest::Contains("got 'deepseek_v3'"), load_error);
    CHECK_THROWS_WITH_AS((void)fixture("missing.json"), doctest::Contains("missing.json"), load_error);
    CHECK_THROWS_WITH_AS((void)e2e::parse_model_config(R"({"hidden_size":4096})", "cfg"), doctest::Contains("num_hidden_layers"), load_error);
    // Malformed values are errors, not silently different models.
    const std::string dense = R"("hidden_size": 4096, "num_attention_heads": 32, "vocab_size": 32000, "intermediate_size": 14336)";
    CHECK_THROWS_WITH_AS((void)e2e::parse_model_config("{" + dense + R"(, "num_hidden_layers": 4294967297})", "cfg"),
                         doctest::Contains("cfg:1: expected at most 2147483647 for \"num_hidden_layers\", got 4294967297"), load_error);
    CHECK_THROWS_WITH_AS((void)e2e::parse_model_config("{" + dense + R"(, "num_hidden_layers": 32, "num_hidden_layers": 1})", "cfg"),
                         doctest::Contains("expected member names once per object, got \"num_hidden_layers\" twice"), load_error);
    CHECK_THROWS_WITH_AS((void)e2e::parse_model_config("{" + dense + R"(, "num_hidden_layers": 32, "tie_word_embeddings": "yes"})", "cfg"),
                         doctest::Contains("expected true or false for \"tie_word_embeddings\""), load_error);
    for (const char* not_a_string : {"0", "[]", "{}", "true"})  // not read as "absent": that would mean llama
        CHECK_THROWS_WITH_AS((void)e2e::parse_model_config("{" + dense + R"(, "num_hidden_layers": 32, "model_type": )" + not_a_string + "}", "cfg"),
                             doctest::Contains("cfg:1: expected a string for \"model_type\", got another value"), load_error);
    // A window or a list of layer kinds that cannot be what the file means is an error, not a model without them.
    const std::string layers = dense + R"(, "num_hidden_layers": 32, "model_type": "mistral")";
    for (const char* window : {"-5", "4096.5", "\"4096\"", "true"})
        CHECK_THROWS_WITH_AS((void)e2e::parse_model_config("{" + layers + R"(, "sliding_window": )" + window + "}", "cfg"),
                             doctest::Contains("cfg:1: expected sliding_window a whole number of tokens (0 or null: none)"), load_error);
    CHECK_THROWS_WITH_AS((void)e2e::parse_model_config("{" + layers + R"(, "layer_types": 5})", "cfg"),
                         doctest::Contains("cfg:1: expected layer_types a list of strings, one per layer, got another value"), load_error);
    CHECK_THROWS_WITH_AS((void)e2e::parse_model_config("{" + layers + R"(, "layer_types": ["full_attention", 3]})", "cfg"),
                         doctest::Contains("expected layer_types a list of strings"), load_error);
    CHECK_THROWS_WITH_AS((void)e2e::parse_model_config("{" + layers + R"(, "layer_types": ["full_attention"]})", "cfg"),
                         doctest::Contains("cfg:1: expected layer_types to name num_hidden_layers (32) layers, got 1"), load_error);
    CHECK_THROWS_WITH_AS((void)e2e::parse_model_config("{" + layers + R"(, "sliding_window": 512, "use_sliding_window": "yes"})", "cfg"),
                         doctest::Contains("cfg:1: expected true or false for \"use_sliding_window\", got another value"), load_error);
    CHECK_THROWS_WITH_AS((void)e2e::parse_model_config("{" + layers + R"(, "max_position_embeddings": 0})", "cfg"),
                         doctest::Contains("expected max_position_embeddings > 0 (leave it out when unknown), got 0"), load_error);
    // Experts are read by the config's type, as Hugging Face reads them: a dense type ignores expert fields (and says so),
    // a Qwen3-MoE config keeps its num_experts whatever else it carries.
    const e2e::model_config llama_with_experts = e2e::parse_model_config(
        "{" + dense + R"(, "num_hidden_layers": 32, "model_type": "llama", "num_experts": 8, "num_experts_per_tok": 2})", "cfg");
    CHECK_FALSE(llama_with_experts.is_moe());
    CHECK(std::any_of(llama_with_experts.unmodelled.begin(), llama_with_experts.unmodelled.end(),
                      [](const std::string& n) { return n.find("model_type llama has no experts") != std::string::npos; }));
    const std::string qwen_moe = R"("hidden_size": 2048, "num_attention_heads": 32, "num_key_value_heads": 4, "vocab_size": 151936,
        "num_hidden_layers": 48, "model_type": "qwen3_moe", "num_experts": 128, "num_experts_per_tok": 8,
        "moe_intermediate_size": 768, "intermediate_size": 6144)";
    const e2e::model_config both = e2e::parse_model_config("{" + qwen_moe + R"(, "num_local_experts": 8})", "cfg");
    CHECK(both.experts == 128);
    CHECK(both.expert_intermediate == 768);
    CHECK_THROWS_WITH_AS((void)e2e::parse_model_config("{" + qwen_moe + R"(, "decoder_sparse_step": 0})", "cfg"),
                         doctest::Contains("expected decoder_sparse_step >= 1"), load_error);
    CHECK_THROWS_WITH_AS((void)e2e::parse_model_config("{" + qwen_moe + R"(, "mlp_only_layers": "x"})", "cfg"),
                         doctest::Contains("expected mlp_only_layers a list of layer indices, got another value"), load_error);
    CHECK_THROWS_WITH_AS((void)e2e::find_model("gpt-5"), doctest::Contains("unknown model 'gpt-5'; known: llama-3-8b"), invalid_argument);
}

TEST_CASE("e2e workload: the ops of a dense prefill and decode, in framework order") {
    const auto g = gpu::find_gpu("h100_sxm").numbers;
    const e2e::model_config m = e2e::find_model("qwen2.5-14b");
    e2e::deployment d;
    const std::vector<std::int64_t> prompts{100, 200, 200};
    const e2e::iteration pre = e2e::prefill_iteration(m, d, g, prompts);
    CHECK(pre.tokens == 500);
    std::vector<std::string_view> names;
    for (const auto& o : pre.ops) names.push_back(o.name);
    const std::vector<std::string_view> expected{"embedding", "input_norm",   "input_norm_fused", "qkv_proj",  "rope",
                                                 "attention", "o_proj",       "post_attention_norm", "gate_up_proj",
                                                 "silu_mul",  "down_proj",    "final_norm",       "lm_head"};
    CHECK(names == expected);
    CHECK(find_op(pre, "input_norm")->count == 1);
    CHECK(find_op(pre, "input_norm_fused")->count == m.layers - 1);
    CHECK(find_op(pre, "input_norm_fused")->as<family::rmsnorm>().fused_add);
    CHECK(count_of<family::allreduce>(pre) == 0);
    const auto& qkv = find_op(pre, "qkv_proj")->as<family::gemm>();
    CHECK(qkv.m == 500);
    CHECK(qkv.n == (40 + 2 * 8) * 128);
    CHECK(qkv.k == 5120);
    // LM head: prefill samples only the last token of each request.
    CHECK(find_op(pre, "lm_head")->as<family::gemm>().m == 3);
    const auto& attn = find_op(pre, "attention")->as<family::attention_prefill>();
    CHECK(attn.stage == at::phase::prefill);
    CHECK(attn.causal);
    CHECK(attn.q_tokens() == 500);
    CHECK(attn.requests.size() == 2);  // the two 200-token prompts are one group
    CHECK(attn.kernel == at::kernel_impl::fa3);  // SGLang's default on Hopper

    const std::vector<std::int64_t> kv{101, 201, 201};
    const e2e::iteration dec = e2e::decode_iteration(m, d, g, kv);
    CHECK(dec.tokens == 3);
    const auto& da = find_op(dec, "attention")->as<family::attention_decode>();
    CHECK(da.stage == at::phase::decode);
    CHECK(da.kv_tokens() == 503);
    CHECK(find_op(dec, "qkv_proj")->as<family::gemm>().m == 3);
    // TensorRT-LLM applies RoPE inside its attention op.
    d.fw = e2e::framework::trtllm;
    CHECK(find_op(e2e::decode_iteration(m, d, g, kv), "rope") == nullptr);
}

TEST_CASE("e2e workload: TP 2 halves the GEMM work per GPU, adds two all-reduces per layer and gathers the logits") {
    const auto g = gpu::find_gpu("h100_sxm").numbers;
    const e2e::model_config m = e2e::find_model("llama-3.1-8b");
    const std::vector<std::int64_t> prompts{512, 1024};
    e2e::deployment d1, d2;
    d2.tp = 2;
    d2.node = system::builtin_system("h100_sxm");
    for (bool decode : {false, true}) {
        CAPTURE(decode);
        const std::vector<std::int64_t> kv{513, 1025};
        const e2e::iteration a = decode ? e2e::decode_iteration(m, d1, g, kv) : e2e::prefill_iteration(m, d1, g, prompts);
        const e2e::iteration b = decode ? e2e::decode_iteration(m, d2, g, kv) : e2e::prefill_iteration(m, d2, g, prompts);
        CHECK(gemm_flop(b) == doctest::Approx(gemm_flop(a) / 2).epsilon(1e-9));
        CHECK(count_of<family::allreduce>(a) == 0);
        // Two per layer (after attention and after the MLP), the vocab-parallel embedding's, and the logits' all-gather.
        CHECK(count_of<family::allreduce>(b) == 2 * m.layers + 2);
        const auto& ar = find_op(b, "allreduce")->as<family::allreduce>();
        CHECK(ar.gpus == 2);
        CHECK(ar.bytes == (decode ? 2 : 1536) * m.hidden * 2);  // bf16
        CHECK(ar.op == family::collective_op::all_reduce);
        CHECK(ar.implementation == (decode ? family::collective_impl::sglang : family::collective_impl::sglang_eager));
        // The LM head's rows (one per request, prefill and decode alike) over both GPUs' vocab shards.
        const auto& logits = find_op(b, "logits_all_gather")->as<family::allreduce>();
        CHECK(logits.op == family::collective_op::all_gather);
        CHECK(logits.implementation == family::collective_impl::nccl);
        CHECK(logits.gpus == 2);
        CHECK(logits.bytes == 2 * ((m.vocab + 1) / 2) * 2 * 2);
        CHECK(find_op(a, "logits_all_gather") == nullptr);
        const auto& attn = decode ? find_op(b, "attention")->as<family::attention_decode>()
                                  : find_op(b, "attention")->as<family::attention_prefill>();
        CHECK(attn.heads == 16);
        CHECK(attn.kv_heads == 4);
    }
}

TEST_CASE("e2e workload: query heads must divide by TP, TP above the KV heads replicates them") {
    const auto g = gpu::find_gpu("h100_sxm").numbers;
    const e2e::model_config m = e2e::find_model("qwen3-32b");  // 64 query heads, 8 KV heads
    e2e::deployment d;
    d.tp = 16;
    d.node = system::builtin_system("h100_sxm");
    const std::vector<std::int64_t> prompts{64};
    const e2e::iteration it = e2e::prefill_iteration(m, d, g, prompts);
    const auto& attn = find_op(it, "attention")->as<family::attention_prefill>();
    CHECK(attn.heads == 4);
    CHECK(attn.kv_heads == 1);
    // QKV width uses head_dim (128), not hidden / heads (80), and one replicated KV head per GPU.
    CHECK(find_op(it, "qkv_proj")->as<family::gemm>().n == (4 + 2) * 128);
    CHECK(find_op(it, "o_proj")->as<family::gemm>().k == 4 * 128);
    // Qwen3's per-head q / k RMSNorm: one row per token and head.
    const auto& qn = find_op(it, "q_norm")->as<family::rmsnorm>();
    CHECK(qn.tokens == 64 * 4);
    CHECK(qn.hidden == 128);
    CHECK(find_op(it, "k_norm")->as<family::rmsnorm>().tokens == 64);
    d.tp = 3;
    CHECK_THROWS_WITH_AS((void)e2e::prefill_iteration(m, d, g, prompts), doctest::Contains("64 query heads, which do not split over TP 3"),
                         invalid_argument);
    d.tp = 12;  // divides 64? no
    CHECK_THROWS_AS((void)e2e::prefill_iteration(m, d, g, prompts), invalid_argument);
    const e2e::model_config q14 = e2e::find_model("qwen2.5-14b");  // 40 heads, 8 KV heads
    d.tp = 20;  // 40 / 20 = 2 heads, 20 > 8 KV heads but not a multiple of them
    CHECK_THROWS_WITH_AS((void)e2e::prefill_iteration(q14, d, g, prompts), doctest::Contains("not a multiple"), invalid_argument);
}

TEST_CASE("e2e workload: MoE layers and FP8") {
    const auto g = gpu::find_gpu("h100_sxm").numbers;
    const e2e::model_config m = fixture("qwen3-30b-a3b.json");
    e2e::deployment d;
    d.tp = 2;
    d.node = system::builtin_system("h100_sxm");
    const std::vector<std::int64_t> prompts{256};
    const e2e::iteration it = e2e::prefill_iteration(m, d, g, prompts);
    const auto& moe = find_op(it, "moe")->as<family::moe>();
    CHECK(moe.experts == 128);
    CHECK(moe.topk == 8);
    CHECK(moe.inter == 384);
    CHECK(moe.tuned_configs_gpu == "h100_sxm");  // the node's GPU picks SGLang's tuned configs
    CHECK(find_op(it, "router")->as<family::gemm>().n == 128);
    CHECK(find_op(it, "gate_up_proj") == nullptr);
    // The block is predicted by the moe family; without its model the run is refused, naming it.
    e2e::kernel_estimator est(g, constant_models());
    CHECK_NOTHROW(est.require(it));
    CHECK(est.latency_us(*find_op(it, "moe")) > 0);
    CHECK(est.latency_us(*find_op(it, "logits_all_gather")) > 0);  // an NCCL all-gather, by the allreduce family
    e2e::family_models no_moe = constant_models();
    no_moe.get<family::moe>().reset();
    e2e::kernel_estimator refusing(g, no_moe);
    CHECK_THROWS_WITH_AS(refusing.require(it), doctest::Contains("moe (needed by moe)"), invalid_argument);

    // Expert parallelism (SGLang --ep-size): EP 2 of TP 2 keeps whole experts, 64 per GPU, the other GPU's slots
    // dropped; the TP all-reduce still combines the MoE outputs.
    d.ep = 2;
    const e2e::iteration ep_it = e2e::prefill_iteration(m, d, g, prompts);
    const auto& ep_moe = find_op(ep_it, "moe")->as<family::moe>();
    CHECK(ep_moe.ep == 2);
    CHECK(ep_moe.inter == 768);
    CHECK(ep_moe.experts == 128);
    CHECK(find_op(ep_it, "allreduce") != nullptr);
    CHECK(est.latency_us(*find_op(ep_it, "moe")) > 0);
    // The same weight bytes per GPU, whole experts or split ones.
    e2e::deployment tp_only = d;
    tp_only.ep = 1;
    CHECK(e2e::estimate_memory(m, d, g, prompts, 0).weights == doctest::Approx(e2e::estimate_memory(m, tp_only, g, prompts, 0).weights));
    d.ep = 3;
    CHECK_THROWS_WITH_AS((void)e2e::prefill_iteration(m, d, g, prompts), doctest::Contains("expert-parallel degree must be in 1..TP (2), got 3"),
                         invalid_argument);
    d.tp = 6;
    d.ep = 4;
    CHECK_THROWS_WITH_AS((void)e2e::moe_tensor_parallel(m, d), doctest::Contains("expert-parallel degree (4) must divide TP (6)"),
                         invalid_argument);
    d.tp = 8;
    d.ep = 8;
    CHECK(e2e::moe_tensor_parallel(m, d) == 1);
    e2e::model_config odd = m;
    odd.experts = 60;
    CHECK_THROWS_WITH_AS((void)e2e::moe_tensor_parallel(odd, d), doctest::Contains("60 experts"), invalid_argument);
    d.tp = 2;
    d.ep = 2;
    CHECK_THROWS_WITH_AS((void)e2e::moe_tensor_parallel(e2e::find_model("llama-3.1-8b"), d), doctest::Contains("needs a MoE model"),
                         invalid_argument);
    d.ep = 1;

    const e2e::model_config dense = e2e::find_model("llama-3.1-8b");
    d.tp = 1;
    d.fp8_weights = true;
    d.fp8_kv = true;
    // SGLang (and TensorRT-LLM): each linear layer is one fp8_linear op, its quantization inside.
    const e2e::iteration f = e2e::prefill_iteration(dense, d, g, prompts);
    CHECK(find_op(f, "qkv_proj")->is<family::fp8_linear>());
    CHECK(find_op(f, "lm_head")->is<family::gemm>());  // the LM head stays bf16
    CHECK(count_of<family::elementwise>(f) == 1 + dense.layers);  // embedding, rope
    CHECK(find_op(f, "attention")->as<family::attention_prefill>().kv_type == at::kv_dtype::fp8);
    e2e::kernel_estimator sglang_fp8(g, constant_models());
    const auto& qkv = find_op(f, "qkv_proj")->as<family::fp8_linear>();
    CHECK(qkv.framework == family::fp8_linear_framework::sglang);
    const auto alone = synperf::analyze<family::fp8_linear>(qkv, g);
    CHECK(sglang_fp8.latency_us(*find_op(f, "qkv_proj")) == doctest::Approx(2.0 * alone.theoretical_us));
    // vLLM: its CUTLASS scaled_mm after a separate FP8 quantize of the input.
    d.fw = e2e::framework::vllm;
    const e2e::iteration v = e2e::prefill_iteration(dense, d, g, prompts);
    CHECK(find_op(v, "qkv_proj")->is<family::gemm_fp8>());
    CHECK(count_of<family::elementwise>(v) == 1 + dense.layers + 4 * dense.layers);  // embedding, rope, 4 quantizes
}

TEST_CASE("e2e memory: weights, KV cache, and a clear error with what would fit") {
    const auto h100 = gpu::find_gpu("h100_sxm").numbers;
    const e2e::model_config m = e2e::find_model("llama-3.1-70b");
    e2e::deployment d;
    const std::vector<std::int64_t> prompts(8, 2048);
    d.tp = 8;
    const e2e::memory_estimate e = e2e::estimate_memory(m, d, h100, prompts, 128);
    CHECK(e.fits());
    CHECK(e.weights == doctest::Approx(m.parameters() * 2 / 8).epsilon(0.02));  // ~17.6 GB per GPU
    // KV per token per GPU: 80 layers x K,V x 1 KV head x 128 x 2 B.
    CHECK(e.kv_bytes_per_token == doctest::Approx(80.0 * 2 * 1 * 128 * 2));
    CHECK(e.kv_tokens == 8 * (2048 + 128));
    CHECK(e.max_kv_tokens > e.kv_tokens);
    CHECK(e.max_batch >= 8);
    d.fp8_kv = true;
    CHECK(e2e::estimate_memory(m, d, h100, prompts, 128).kv_cache == doctest::Approx(e.kv_cache / 2));
    d.fp8_kv = false;
    d.tp = 1;
    const e2e::memory_estimate one = e2e::estimate_memory(m, d, h100, prompts, 128);
    CHECK_FALSE(one.fits());
    CHECK_THROWS_WITH_AS(e2e::require_fit(one, "llama"), doctest::Contains("does not fit in GPU memory"), invalid_argument);
    CHECK_THROWS_WITH_AS(e2e::require_fit(one, "llama"), doctest::Contains("use more tensor-parallel GPUs"), invalid_argument);
    // A batch too large for 8 H100s: the error gives the largest batch that fits.
    d.tp = 8;
    d.node = system::builtin_system("h100_sxm");
    const std::vector<std::int64_t> many(400, 8192);
    const e2e::memory_estimate big = e2e::estimate_memory(m, d, h100, many, 128);
    CHECK_FALSE(big.fits());
    CHECK(big.max_batch > 0);
    CHECK(big.max_batch < 400);
    const std::string at_most = "a batch of at most " + std::to_string(big.max_batch);
    CHECK_THROWS_WITH_AS(e2e::require_fit(big, "llama"), doctest::Contains(at_most.c_str()), invalid_argument);
    // The run refuses it too.
    e2e::kernel_estimator est(h100, constant_models());
    e2e::run_request r{m, d, many, 16, true, 0.0};
    CHECK_THROWS_WITH_AS((void)e2e::run(r, est), doctest::Contains("does not fit"), invalid_argument);
}

TEST_CASE("e2e run: decode steps never get faster, identical ops are predicted once, overheads add up") {
    for (const std::string name : {"a100_sxm", "h100_sxm", "l40s", "b200_sxm"}) {
        CAPTURE(name);
        const auto g = gpu::find_gpu(name).numbers;
        e2e::run_request r;
        r.model = e2e::find_model("qwen2.5-7b");
        r.deploy.tp = 2;
        r.deploy.node = system::builtin_system(name);
        // Prompts long enough that each decode attention's KV read outweighs its kernels' launch floors.
        r.prompt_lens = {7200, 12000, 2488, 16384};
        r.decode_steps = 40;
        r.per_iteration_us = 0;
        e2e::kernel_estimator est(g, constant_models());
        std::vector<std::int64_t> progress;  // the progress hook sees every step, in order, and the total
        r.on_decode_step = [&progress](std::int64_t done, std::int64_t total) {
            CHECK(total == 40);
            progress.push_back(done);
        };
        const e2e::run_result res = e2e::run(r, est);
        r.on_decode_step = {};
        REQUIRE(progress.size() == 40);
        for (std::size_t s = 0; s < progress.size(); ++s) CHECK(progress[s] == std::int64_t(s) + 1);
        REQUIRE(res.decode_step_ms.size() == 40);
        for (std::size_t s = 1; s < res.decode_step_ms.size(); ++s) CHECK(res.decode_step_ms[s] >= res.decode_step_ms[s - 1]);
        CHECK(res.decode_step_ms.back() > res.decode_step_ms.front());  // the KV grew by 40 tokens per request
        const double sum = std::accumulate(res.decode_step_ms.begin(), res.decode_step_ms.end(), 0.0);
        CHECK(res.total_ms == doctest::Approx(res.prefill_ms + sum));
        CHECK(res.decode_median_ms >= res.decode_step_ms.front());
        CHECK(res.decode_median_ms <= res.decode_step_ms.back());
        // Per decode step only the attention is new (plus nothing else): about 2 x ops + 40 distinct attentions.
        CHECK(res.evaluations <= 2 * res.prefill.ops.size() + 40);
        CHECK(res.memo_hits > 0);
        // Overheads: per-iteration host work (0 here) plus launch gaps.
        CHECK(res.prefill.overhead_us > 0);
        CHECK(res.prefill.launches == std::accumulate(res.prefill.ops.begin(), res.prefill.ops.end(), std::int64_t{0},
                                                      [](std::int64_t a, const e2e::op_time& o) { return a + o.count; }));
        double fam = 0;
        for (double x : res.prefill.family_us) fam += x;
        CHECK(fam == doctest::Approx(res.prefill.kernel_us));
        // With host work per iteration, each iteration grows by exactly that.
        e2e::run_request r2 = r;
        r2.per_iteration_us = 1500;
        e2e::kernel_estimator est2(g, constant_models());
        const e2e::run_result res2 = e2e::run(r2, est2);
        CHECK(res2.decode_median_ms == doctest::Approx(res.decode_median_ms + 1.5));
        CHECK(res2.prefill_ms == doctest::Approx(res.prefill_ms + 1.5));
    }
}

TEST_CASE("e2e run: no GEMM of a serving iteration beats streaming its weights from DRAM") {
    // A decode step reads every layer's weights once, far more than L2 holds: each GEMM is at least its weights at DRAM
    // bandwidth, even where a family's bound would keep them in L2 (a GPU with a tenth of its bandwidth; vLLM's FP8
    // CUTLASS GEMM on Ada, whose weights of up to 96 MB its bound reads from L2).
    for (const std::string name : {"h100_sxm", "l40s"}) {
        for (const bool fp8 : {false, true}) {
            CAPTURE(name);
            CAPTURE(fp8);
            gpu::runtime_gpu g = gpu::find_gpu(name);
            if (name == "h100_sxm") gpu::apply_override(g, "dram_gbps=335");
            e2e::deployment d;
            d.fw = e2e::framework::vllm;
            d.fp8_weights = fp8;
            const e2e::model_config m = e2e::find_model("qwen2.5-7b");
            const e2e::iteration it = e2e::decode_iteration(m, d, g.numbers, std::vector<std::int64_t>{128, 128});
            e2e::kernel_estimator est(g.numbers, constant_models());
            int gemms = 0;
            for (const e2e::op& o : it.ops) {
                const auto p = gemm_of(o);
                if (!p) continue;
                const double weights = double(p->n) * double(p->k) * p->weight_bytes;
                CAPTURE(o.name);
                CHECK(est.latency_us(o) >= weights / (g.numbers.dram_gbps * 1e3) * (1 - 1e-12));
                ++gemms;
            }
            CHECK(gemms >= 4);  // qkv, o, gate_up, down (and the LM head)
        }
    }
}

TEST_CASE("e2e run: every catalogue GPU runs from its spec alone") {
    for (const auto& g : gpu::all_gpus()) {
        CAPTURE(g.name);
        e2e::run_request r;
        r.model = e2e::find_model("llama-3.1-8b");
        r.prompt_lens = {700, 1200};
        r.decode_steps = 3;
        r.check_memory = false;  // small boards (L4) hold the model but not necessarily the reserve
        e2e::kernel_estimator est(g.numbers, constant_models());
        const e2e::run_result res = e2e::run(r, est);
        CHECK(res.prefill_ms > 0);
        CHECK(std::isfinite(res.total_ms));
        CHECK(res.decode_median_ms > 0);
    }
}

TEST_CASE("e2e run: a family without a model is refused with its name, never guessed") {
    const auto g = gpu::find_gpu("h100_sxm").numbers;
    e2e::family_models m = constant_models();
    m.get<family::rmsnorm>().reset();
    e2e::kernel_estimator est(g, m);
    e2e::run_request r;
    r.model = e2e::find_model("llama-3.1-8b");
    r.prompt_lens = {128};
    r.decode_steps = 2;
    CHECK_THROWS_WITH_AS((void)e2e::run(r, est), doctest::Contains("rmsnorm (needed by input_norm, input_norm_fused"), invalid_argument);
    // TP > 1 without the node the all-reduce runs on.
    r.deploy.tp = 2;
    e2e::kernel_estimator all_models(g, constant_models());
    CHECK_THROWS_WITH_AS((void)e2e::run(r, all_models), doctest::Contains("needs the node its GPUs share (deployment.node) for its allreduce ops"),
                         invalid_argument);
    // Bad input.
    r.deploy.tp = 1;
    r.prompt_lens = {128, 0};
    CHECK_THROWS_WITH_AS((void)e2e::run(r, est), doctest::Contains("prompt length of request 1 must be in 1..2^24, got 0"), invalid_argument);
    r.prompt_lens = {200000};
    CHECK_THROWS_WITH_AS((void)e2e::run(r, est), doctest::Contains("beyond the 131072 positions"), invalid_argument);
    r.prompt_lens = {128};
    for (const double host_us : {-1.0, std::numeric_limits<double>::quiet_NaN(), std::numeric_limits<double>::infinity()}) {
        r.per_iteration_us = host_us;
        CHECK_THROWS_WITH_AS((void)e2e::run(r, est), doctest::Contains("host work per iteration must be a finite"), invalid_argument);
    }
    CHECK_THROWS_WITH_AS((void)e2e::parse_framework("tgi"), doctest::Contains("unknown framework 'tgi'"), invalid_argument);
}

TEST_CASE("e2e median") {
    CHECK(e2e::median({}) == 0.0);
    CHECK(e2e::median({3.0, 1.0, 2.0}) == 2.0);
    CHECK(e2e::median({4.0, 1.0, 3.0, 2.0}) == 2.5);
}

TEST_CASE("e2e json document: RFC 8259 strings and numbers, the line of every member, errors at line and column") {
    namespace json = synperf::e2e::json;
    // \u escapes decode to UTF-8, surrogate pairs to one code point; the short escapes to their characters.
    const json::document v = json::parse(R"({"t": "\u006c\u006cama", "e": "\u00e9\ud83d\ude00", "s": "a\"b\\c\/d\n"})", "cfg");
    CHECK(v.root["t"] == "llama");
    CHECK(v.root["e"] == "\xC3\xA9\xF0\x9F\x98\x80");
    CHECK(v.root["s"] == "a\"b\\c/d\n");
    const json::document n = json::parse(R"([0, -0.5, 1e3, 2.5E-2, 4096])", "cfg");
    CHECK(n.root[2].get<double>() == 1000.0);
    CHECK(n.root[3].get<double>() == 0.025);
    // Each member's name has its line, nested ones (in arrays too) by their JSON pointer; a byte-order mark is skipped.
    const json::document d = json::parse("\xEF\xBB\xBF{\"a\": 1,\n \"b\": {\"c\": [1,\n {\"d\": 2}]},\n \"e\": 3\n}", "cfg");
    CHECK(d.line_of_member("a") == 1);
    CHECK(d.line_of("/b/c") == 2);
    CHECK(d.line_of("/b/c/1/d") == 3);
    CHECK(d.line_of_member("e") == 4);
    CHECK(d.line_of_member("z") == 0);
    struct bad_case {
        std::string text;
        const char* message;
    };
    const bad_case cases[] = {
        {"{\"a\": 04096}", "cfg:1:11: syntax error while parsing object - unexpected number literal; expected '}'"},
        {"{\"a\":\n 1.}", "cfg:2:4: syntax error while parsing value - invalid number; expected digit after '.'"},
        {"{\"a\": -}", "cfg:1:8: syntax error while parsing value - invalid number; expected digit after '-'"},
        {"{\"a\": 1e}", "cfg:1:9: syntax error while parsing value - invalid number; expected '+', '-', or digit after exponent"},
        {"{\"a\": \"\\x\"}", "cfg:1:9: syntax error while parsing value - invalid string: forbidden character after backslash"},
        {"{\"a\": \"\\u12g4\"}", "cfg:1:12: syntax error while parsing value - invalid string: '\\u' must be followed by 4 hex digits"},
        {"{\"a\": \"\\ud83d\"}", "invalid string: surrogate U+D800..U+DBFF must be followed by U+DC00..U+DFFF"},
        {"{\"a\": \"\\ude00\"}", "invalid string: surrogate U+DC00..U+DFFF must follow U+D800..U+DBFF"},
        {"{\"a\": \"x\ty\"}", "cfg:1:9: syntax error while parsing value - invalid string: control character U+0009 (HT) must be escaped"},
        {std::string("{\"a\": \"x\0y\"}", 12), "cfg:1:9: syntax error while parsing value - invalid string: control character U+0000 (NUL)"},
        {"{\"a\": \"abc\n\"}", "cfg:1:11: syntax error while parsing value - invalid string: control character U+000A (LF)"},
        // Not UTF-8: the byte is named, not printed.
        {"{\"a\": \"\xff\"}", "cfg:1:8: syntax error while parsing value - invalid string: ill-formed UTF-8 byte; last read: '\"\\xff'"},
        {"", "cfg:1:1: syntax error while parsing value - unexpected end of input"},
        {"\n  ", "cfg:2:3: syntax error while parsing value - unexpected end of input"},
        {"{\"a\": 1} {}", "cfg:1:10: syntax error while parsing value - unexpected '{'; expected end of input"},
        {"{\"a\":\n NaN}", "cfg:2:2: syntax error while parsing value - invalid literal"},
        {"{\"a\": Infinity}", "cfg:1:7: syntax error while parsing value - invalid literal"},
        {"{\"a\": 1e400}", "cfg:1:11: number overflow parsing '1e400'"},
        // A number below the smallest double would read as 0.
        {"{\"a\":\n -1e-400\n}", "cfg:2:8: number underflow parsing '-1e-400'"},
        {"\xEF\xBB{}", "cfg:1:3: syntax error while parsing value - invalid BOM"},
        // nlohmann would keep the last of two members of one name.
        {"{\"a\": 1,\n \"b\": {\"a\": 2,\n \"a\": 3}}", "cfg:3: expected member names once per object, got \"a\" twice"},
        {std::string(65, '[') + std::string(65, ']'), "cfg:1: expected at most 64 nested levels, got deeper nesting"},
        {std::string(1000000, '['), "cfg:1: expected at most 64 nested levels, got deeper nesting"},
    };
    for (const auto& c : cases) {
        CAPTURE(c.text);
        CHECK_THROWS_WITH_AS((void)json::parse(c.text, "cfg"), doctest::Contains(c.message), synperf::load_error);
    }
    // Numbers past 2^64 and past double's precision are doubles, as the text says; 64 levels are allowed.
    CHECK(json::parse("[99999999999999999999999]", "cfg").root[0].get<double>() == 1e23);
    CHECK(json::parse("[0e-400, 0.000]", "cfg").root[0].get<double>() == 0.0);
    CHECK(json::parse(std::string(64, '[') + std::string(64, ']'), "cfg").root.is_array());
}
