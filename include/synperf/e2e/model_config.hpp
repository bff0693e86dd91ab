// SPDX-License-Identifier: Apache-2.0
#pragma once
/// \file A decoder-only LLM's architecture: built-in configs of common models, and a reader for any
/// Hugging Face config.json of the supported architectures (dense Llama / Qwen2 / Qwen3, MoE Mixtral /
/// Qwen3-MoE).
///
/// Facts a workload depends on and configs get wrong easily: `head_dim` may be absent (then it is
/// hidden / heads) or differ from it (Qwen3-32B: 64 heads x 128 = 8192 != hidden 5120); Qwen3 (and
/// Qwen3-MoE) normalise each head's q and k (q_norm / k_norm); Qwen2 has a QKV bias.
#include <algorithm>
#include <array>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <limits>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "synperf/detail/regular_file.hpp"
#include "synperf/e2e/json_document.hpp"
#include "synperf/error.hpp"

namespace synperf::e2e {

/// The architecture of one decoder-only model, as far as its kernels depend on it.
struct model_config {
    std::string name;                ///< short id, e.g. "qwen2.5-14b"
    std::string source;              ///< where the numbers come from (Hugging Face repo id or file path)
    std::string model_type;          ///< llama, qwen2, qwen3, mixtral, qwen3_moe
    std::int64_t hidden = 0;         ///< hidden_size
    std::int64_t intermediate = 0;   ///< intermediate_size of a dense MLP (Mixtral: of each expert)
    std::int64_t vocab = 0;          ///< vocab_size
    int layers = 0;                  ///< num_hidden_layers
    int heads = 0;                   ///< num_attention_heads
    int kv_heads = 0;                ///< num_key_value_heads
    int head_dim = 0;                ///< head_dim (hidden / heads when the config omits it)
    bool qk_norm = false;            ///< per-head RMSNorm of q and k (Qwen3)
    bool qkv_bias = false;           ///< bias on the QKV projection (Qwen2)
    bool tie_embeddings = false;     ///< LM head shares the embedding matrix
    int experts = 0;                 ///< routed experts (0: dense MLP)
    int experts_per_token = 0;       ///< top-k
    std::int64_t expert_intermediate = 0;  ///< each expert's intermediate size
    std::int64_t max_position = 0;   ///< max_position_embeddings (0: unknown)
    std::string quantization;        ///< quantization_config's quant_method ("" if none; "fp8": a deployment with FP8 weights)
    /// What the config asks for that a prediction leaves out (quantized weights, a sliding attention window), one
    /// sentence each; a config.json with such fields still loads, and the CLI prints these as notes.
    std::vector<std::string> unmodelled;

    [[nodiscard]] bool is_moe() const noexcept { return experts > 0; }
    /// Query width: heads x head_dim (not necessarily hidden).
    [[nodiscard]] std::int64_t q_width() const noexcept { return std::int64_t(heads) * head_dim; }
    /// Parameters of the whole model (embedding, LM head unless tied, layers, norms).
    [[nodiscard]] double parameters() const noexcept {
        const double h = double(hidden), d = double(head_dim);
        const double attn = h * (double(heads) + 2.0 * kv_heads) * d + double(heads) * d * h +
                            (qkv_bias ? (double(heads) + 2.0 * kv_heads) * d : 0.0) + (qk_norm ? 2.0 * d : 0.0);
        const double mlp = is_moe() ? double(experts) * 3.0 * h * double(expert_intermediate) + h * experts
                                    : 3.0 * h * double(intermediate);
        const double layer = attn + mlp + 2.0 * h;
        return double(layers) * layer + double(vocab) * h * (tie_embeddings ? 1.0 : 2.0) + h;
    }
};

/// Checks a config's numbers; throws `invalid_argument` naming the bad field and the source.
inline void validate(const model_config& m) {
    const auto fail = [&](const std::string& what) { synperf::detail::report_error("model " + m.source + ": " + what); };
    if (m.hidden <= 0 || m.hidden > (1 << 20)) fail("hidden_size must be in 1..2^20, got " + std::to_string(m.hidden));
    if (m.layers <= 0 || m.layers > 4096) fail("num_hidden_layers must be in 1..4096, got " + std::to_string(m.layers));
    if (m.heads <= 0 || m.heads > 4096) fail("num_attention_heads must be in 1..4096, got " + std::to_string(m.heads));
    if (m.kv_heads <= 0 || m.heads % m.kv_heads != 0)
        fail("num_key_value_heads must divide num_attention_heads (" + std::to_string(m.heads) + "), got " + std::to_string(m.kv_heads));
    // Rotary embeddings turn pairs of a head's dimensions, so a head has an even size.
    if (m.head_dim <= 0 || m.head_dim > 1024 || m.head_dim % 2 != 0)
        fail("head_dim must be an even number in 2..1024, got " + std::to_string(m.head_dim));
    if (m.vocab <= 0 || m.vocab > (1 << 24)) fail("vocab_size must be in 1..2^24, got " + std::to_string(m.vocab));
    if (m.is_moe()) {
        if (m.experts > 4096) fail("the expert count must be in 1..4096, got " + std::to_string(m.experts));
        if (m.experts_per_token <= 0 || m.experts_per_token > m.experts)
            fail("num_experts_per_tok must be in 1.." + std::to_string(m.experts) + ", got " + std::to_string(m.experts_per_token));
        if (m.expert_intermediate <= 0 || m.expert_intermediate > (1 << 20))
            fail("the expert intermediate size must be in 1..2^20, got " + std::to_string(m.expert_intermediate));
    } else if (m.intermediate <= 0 || m.intermediate > (1 << 22)) {
        fail("intermediate_size must be in 1..2^22, got " + std::to_string(m.intermediate));
    }
}

namespace model_detail {

/// A JSON number as text, without a fraction when it holds an integer ("4096", not "4096.000000").
inline std::string number_text(double number) {
    return number == std::floor(number) && std::abs(number) < 0x1p53 ? std::to_string(std::int64_t(number)) : std::to_string(number);
}

inline std::string lower(std::string_view s) {
    std::string out(s);
    for (char& c : out) c = char(std::tolower(static_cast<unsigned char>(c)));
    return out;
}

/// A dense model row of the built-in table.
inline model_config dense(std::string name, std::string source, std::string type, std::int64_t hidden, std::int64_t inter,
                          std::int64_t vocab, int layers, int heads, int kv, int head_dim, std::int64_t max_pos) {
    model_config m;
    m.name = std::move(name);
    m.source = std::move(source);
    m.model_type = std::move(type);
    m.hidden = hidden;
    m.intermediate = inter;
    m.vocab = vocab;
    m.layers = layers;
    m.heads = heads;
    m.kv_heads = kv;
    m.head_dim = head_dim;
    m.qk_norm = m.model_type == "qwen3" || m.model_type == "qwen3_moe";
    m.qkv_bias = m.model_type == "qwen2";
    m.max_position = max_pos;
    return m;
}

inline model_config moe(model_config m, int experts, int top_k, std::int64_t expert_inter) {
    m.experts = experts;
    m.experts_per_token = top_k;
    m.expert_intermediate = expert_inter;
    return m;
}

}  // namespace model_detail

/// The built-in models: numbers copied from each model's config.json on Hugging Face (the source field
/// names the repository), so no file is needed at run time.
[[nodiscard]] inline const std::vector<model_config>& builtin_models() {
    using model_detail::dense;
    using model_detail::moe;
    static const std::vector<model_config> models{
        dense("llama-3-8b", "hf:meta-llama/Meta-Llama-3-8B/config.json", "llama", 4096, 14336, 128256, 32, 32, 8, 128, 8192),
        dense("llama-3-70b", "hf:meta-llama/Meta-Llama-3-70B/config.json", "llama", 8192, 28672, 128256, 80, 64, 8, 128, 8192),
        dense("llama-3.1-8b", "hf:meta-llama/Llama-3.1-8B/config.json", "llama", 4096, 14336, 128256, 32, 32, 8, 128, 131072),
        dense("llama-3.1-70b", "hf:meta-llama/Llama-3.1-70B/config.json", "llama", 8192, 28672, 128256, 80, 64, 8, 128, 131072),
        dense("llama-3.1-405b", "hf:meta-llama/Llama-3.1-405B/config.json", "llama", 16384, 53248, 128256, 126, 128, 8, 128, 131072),
        dense("qwen2-72b", "hf:Qwen/Qwen2-72B/config.json", "qwen2", 8192, 29568, 152064, 80, 64, 8, 128, 32768),
        dense("qwen2.5-7b", "hf:Qwen/Qwen2.5-7B/config.json", "qwen2", 3584, 18944, 152064, 28, 28, 4, 128, 131072),
        dense("qwen2.5-14b", "hf:Qwen/Qwen2.5-14B/config.json", "qwen2", 5120, 13824, 152064, 48, 40, 8, 128, 32768),
        dense("qwen2.5-32b", "hf:Qwen/Qwen2.5-32B/config.json", "qwen2", 5120, 27648, 152064, 64, 40, 8, 128, 32768),
        dense("qwen2.5-72b", "hf:Qwen/Qwen2.5-72B/config.json", "qwen2", 8192, 29568, 152064, 80, 64, 8, 128, 131072),
        dense("qwen3-8b", "hf:Qwen/Qwen3-8B/config.json", "qwen3", 4096, 12288, 151936, 36, 32, 8, 128, 40960),
        dense("qwen3-14b", "hf:Qwen/Qwen3-14B/config.json", "qwen3", 5120, 17408, 151936, 40, 40, 8, 128, 40960),
        dense("qwen3-32b", "hf:Qwen/Qwen3-32B/config.json", "qwen3", 5120, 25600, 151936, 64, 64, 8, 128, 40960),
        moe(dense("mixtral-8x7b", "hf:mistralai/Mixtral-8x7B-v0.1/config.json", "mixtral", 4096, 14336, 32000, 32, 32, 8, 128, 32768),
            8, 2, 14336),
        moe(dense("qwen3-30b-a3b", "hf:Qwen/Qwen3-30B-A3B/config.json", "qwen3_moe", 2048, 6144, 151936, 48, 32, 4, 128, 40960),
            128, 8, 768),
        moe(dense("qwen3-235b-a22b", "hf:Qwen/Qwen3-235B-A22B/config.json", "qwen3_moe", 4096, 12288, 151936, 94, 64, 4, 128, 40960),
            128, 8, 1536),
    };
    return models;
}

/// "llama-3-8b, llama-3-70b, ..." for messages.
[[nodiscard]] inline std::string known_model_list() {
    std::string s;
    for (const auto& m : builtin_models()) s += (s.empty() ? "" : ", ") + m.name;
    return s;
}

/// The built-in model of that name (case-insensitive; "Meta-Llama-3-8B" finds llama-3-8b), else throws
/// `invalid_argument` listing the known names.
[[nodiscard]] inline model_config find_model(std::string_view name) {
    std::string key = model_detail::lower(name);
    if (key.rfind("meta-", 0) == 0) key = key.substr(5);
    for (const auto& m : builtin_models())
        if (m.name == key) return m;
    synperf::detail::report_error("unknown model '" + std::string(name) + "'; known: " + known_model_list() +
                                  " (or give the path of a config.json)");
}

namespace model_detail {

/// The top-level member `key`, or null when absent or null (a config's "head_dim": null means none).
inline const nlohmann::json* member(const json::document& doc, std::string_view key) {
    const auto it = doc.root.find(key);
    return it == doc.root.end() || it->is_null() ? nullptr : &*it;
}

/// A load error at the line of the top-level member `key` (no line when the config has none).
inline load_error field_error(const json::document& doc, std::string_view key, const std::string& what) {
    return load_error(doc.source, doc.line_of_member(std::string(key)), 0, what);
}

/// A JSON number as a double, whichever of nlohmann's integer or floating types holds it: either way the nearest
/// double to the number the file writes.
inline double number(const nlohmann::json& v) { return v.get<double>(); }

inline std::int64_t integer(const json::document& doc, std::string_view key, bool required, std::int64_t fallback = 0) {
    const nlohmann::json* v = member(doc, key);
    if (v == nullptr) {
        if (required) throw load_error(doc.source, 0, 0, "expected the field \"" + std::string(key) + "\", got none");
        return fallback;
    }
    if (!v->is_number() || number(*v) != std::floor(number(*v)) || number(*v) < 0 || number(*v) > 0x1p53)
        throw field_error(doc, key,
                          "expected a non-negative integer for \"" + std::string(key) + "\", got " +
                              (v->is_number() ? synperf::detail::value_text(number(*v)) : std::string("a non-number")));
    return std::int64_t(number(*v));
}

/// An integer field the model holds as `int` (layers, heads, experts): at most 2^31 - 1.
inline int small_integer(const json::document& doc, std::string_view key, bool required, std::int64_t fallback = 0) {
    const std::int64_t v = integer(doc, key, required, fallback);
    if (v > std::numeric_limits<int>::max())
        throw field_error(doc, key, "expected at most 2147483647 for \"" + std::string(key) + "\", got " + std::to_string(v));
    return int(v);
}

/// A true/false field; absent (or null) gives `fallback`, any other value is an error.
inline bool boolean(const json::document& doc, std::string_view key, bool fallback) {
    const nlohmann::json* v = member(doc, key);
    if (v == nullptr) return fallback;
    if (!v->is_boolean()) throw field_error(doc, key, "expected true or false for \"" + std::string(key) + "\", got another value");
    return v->get<bool>();
}

/// A string field; absent (or null) gives "", any other value is an error.
inline std::string text(const json::document& doc, std::string_view key) {
    const nlohmann::json* v = member(doc, key);
    if (v == nullptr) return {};
    if (!v->is_string()) throw field_error(doc, key, "expected a string for \"" + std::string(key) + "\", got another value");
    return v->get<std::string>();
}

/// Records the fields of the config that change a model's kernels but that the workload does not model, so that a
/// prediction for such a model says what it assumed instead of silently predicting another model.
inline void note_unmodelled_fields(const json::document& doc, model_config& m) {
    if (const nlohmann::json* q = member(doc, "quantization_config"); q != nullptr) {
        const auto method = q->find("quant_method");  // end() when quantization_config is not an object
        m.quantization = method != q->end() && method->is_string() ? method->get<std::string>() : "unknown";
        // FP8 checkpoints are modelled (a deployment with FP8 weights); other formats (AWQ, GPTQ, …) are not.
        if (m.quantization != "fp8")
            m.unmodelled.push_back("quantization_config (quant_method '" + m.quantization +
                                   "'): these quantized weights are not modelled; the linear layers are predicted in bf16, "
                                   "or in FP8 when the deployment asks for FP8 weights");
    }
    // The serving dtype: bf16 (or fp16, the same bytes and tensor rate); FP8 weights are a deployment choice.
    for (const char* key : {"torch_dtype", "dtype"}) {
        const nlohmann::json* d = member(doc, key);
        if (d == nullptr) continue;
        if (!d->is_string()) throw field_error(doc, key, std::string("expected \"") + key + "\" a dtype name, got another value");
        const std::string& dtype = d->get_ref<const std::string&>();
        if (dtype != "bfloat16" && dtype != "float16")
            m.unmodelled.push_back(std::string(key) + " '" + dtype +
                                   "': only 16-bit weights and activations are modelled (FP8 weights when the deployment asks "
                                   "for them); the model is predicted in bf16");
    }
    // The gated MLP is priced as SiLU-and-mul; another activation moves the same bytes but is another kernel.
    for (const char* key : {"hidden_act", "hidden_activation"}) {
        const nlohmann::json* act = member(doc, key);
        if (act == nullptr || act->is_null()) continue;
        if (!act->is_string()) throw field_error(doc, key, std::string("expected \"") + key + "\" an activation name, got another value");
        const std::string& name = act->get_ref<const std::string&>();
        if (name != "silu" && name != "swish")
            m.unmodelled.push_back(std::string(key) + " '" + name +
                                   "': only SiLU is modelled; the MLP's activation is predicted as SiLU-and-mul (the same bytes "
                                   "moved, other arithmetic)");
    }
    // Qwen2 configs carry a sliding_window with use_sliding_window false; Mistral's is on whenever it is set.
    const nlohmann::json* window = member(doc, "sliding_window");
    if (window != nullptr && !(window->is_number() && number(*window) >= 0 && number(*window) == std::floor(number(*window))))
        throw field_error(doc, "sliding_window",
                          "expected sliding_window a whole number of tokens (0 or null: none), got " +
                              (window->is_number() ? number_text(number(*window)) : std::string("another value")));
    const nlohmann::json* use_window = member(doc, "use_sliding_window");
    if (use_window != nullptr && !use_window->is_boolean())
        throw field_error(doc, "use_sliding_window", "expected true or false for \"use_sliding_window\", got another value");
    const bool window_on = window != nullptr && number(*window) > 0 && (use_window == nullptr || use_window->get<bool>());
    if (window_on && (m.max_position == 0 || number(*window) < double(m.max_position)))
        m.unmodelled.push_back("sliding_window " + number_text(number(*window)) +
                               ": attention over a sliding window is not modelled; contexts longer than the window are "
                               "predicted with full attention");
    if (const nlohmann::json* types = member(doc, "layer_types"); types != nullptr) {
        if (!types->is_array() || std::any_of(types->begin(), types->end(), [](const nlohmann::json& t) { return !t.is_string(); }))
            throw field_error(doc, "layer_types", "expected layer_types a list of strings, one per layer, got another value");
        if (std::int64_t(types->size()) != m.layers)
            throw field_error(doc, "layer_types", "expected layer_types to name num_hidden_layers (" + std::to_string(m.layers) +
                                                      ") layers, got " + std::to_string(types->size()));
        const auto sliding = std::count_if(types->begin(), types->end(),
                                           [](const nlohmann::json& t) { return t.get_ref<const std::string&>() != "full_attention"; });
        if (sliding > 0 && !window_on)
            m.unmodelled.push_back("layer_types: " + std::to_string(sliding) +
                                   " layers use an attention other than full_attention, which is not modelled; every layer is "
                                   "predicted with full attention");
    }
}

}  // namespace model_detail

/// Reads a Hugging Face config.json (its text; `source` names it in messages). Supported model_type:
/// llama, mistral (dense), qwen2, qwen3, mixtral, qwen3_moe; a config without model_type is read by its
/// fields. Throws `load_error` for malformed JSON, missing fields or unsupported architectures.
[[nodiscard]] inline model_config parse_model_config(std::string_view text, std::string_view source) {
    using namespace model_detail;
    const json::document doc = json::parse(text, source);
    if (!doc.root.is_object()) throw load_error(std::string(source), 1, 0, "expected a JSON object, got another value");
    model_config m;
    m.source = std::string(source);
    m.model_type = model_detail::text(doc, "model_type");
    const bool typed = !m.model_type.empty();
    static constexpr std::array<std::string_view, 6> supported{"llama", "mistral", "qwen2", "qwen3", "mixtral", "qwen3_moe"};
    if (!m.model_type.empty() && std::find(supported.begin(), supported.end(), m.model_type) == supported.end())
        throw field_error(doc, "model_type",
                          "expected model_type llama, mistral, qwen2, qwen3, mixtral or qwen3_moe, got '" + m.model_type + "'");
    m.hidden = integer(doc, "hidden_size", true);
    m.layers = small_integer(doc, "num_hidden_layers", true);
    m.heads = small_integer(doc, "num_attention_heads", true);
    m.kv_heads = small_integer(doc, "num_key_value_heads", false, m.heads);
    m.vocab = integer(doc, "vocab_size", true);
    m.max_position = integer(doc, "max_position_embeddings", false);
    if (member(doc, "max_position_embeddings") != nullptr && m.max_position == 0)
        throw field_error(doc, "max_position_embeddings", "expected max_position_embeddings > 0 (leave it out when unknown), got 0");
    // head_dim: absent (or null) means hidden / heads; it may differ from that (Qwen3-32B).
    // (A hidden size beyond what validate allows leaves no fallback, so validate names hidden_size, not head_dim.)
    m.head_dim = small_integer(doc, "head_dim", false, m.heads > 0 && m.hidden <= (1 << 20) ? m.hidden / m.heads : 0);
    if (m.heads > 0 && member(doc, "head_dim") == nullptr && m.hidden % m.heads != 0)
        throw load_error(std::string(source), 0, 0,
                         "expected hidden_size (" + std::to_string(m.hidden) + ") divisible by num_attention_heads (" +
                             std::to_string(m.heads) + ") when head_dim is absent, got a remainder");
    m.qk_norm = m.model_type == "qwen3" || m.model_type == "qwen3_moe";
    m.qkv_bias = m.model_type == "qwen2";
    m.qkv_bias = m.qkv_bias || boolean(doc, "attention_bias", false);
    m.tie_embeddings = boolean(doc, "tie_word_embeddings", m.tie_embeddings);
    // Experts: Mixtral names them num_local_experts (expert size = intermediate_size); Qwen3-MoE num_experts
    // with moe_intermediate_size. A typed config is read by its type's names, as Hugging Face reads it (a dense
    // type has no experts whatever fields it carries); an untyped one by whichever names it has.
    const bool dense_type = m.model_type == "llama" || m.model_type == "mistral" || m.model_type == "qwen2" || m.model_type == "qwen3";
    const std::int64_t local = m.model_type == "qwen3_moe" || dense_type ? 0 : integer(doc, "num_local_experts", false);
    m.experts = dense_type ? 0 : small_integer(doc, local > 0 || m.model_type == "mixtral" ? "num_local_experts" : "num_experts", false);
    if (dense_type && (member(doc, "num_local_experts") != nullptr || member(doc, "num_experts") != nullptr))
        m.unmodelled.push_back("num_experts / num_local_experts: model_type " + m.model_type +
                               " has no experts, so these fields are ignored (as Hugging Face ignores them)");
    if (m.experts > 0) {
        m.experts_per_token = small_integer(doc, "num_experts_per_tok", true);
        m.expert_intermediate = local > 0 ? integer(doc, "intermediate_size", true)
                                          : integer(doc, "moe_intermediate_size", true);
        m.intermediate = integer(doc, "intermediate_size", false);
        const std::int64_t step = integer(doc, "decoder_sparse_step", false, 1);
        if (step == 0)
            throw field_error(doc, "decoder_sparse_step",
                              "expected decoder_sparse_step >= 1 (every how many layers one is a MoE layer), got 0");
        const nlohmann::json* dense_layers = member(doc, "mlp_only_layers");
        if (dense_layers != nullptr && !dense_layers->is_array())
            throw field_error(doc, "mlp_only_layers", "expected mlp_only_layers a list of layer indices, got another value");
        if (step > 1 || (dense_layers != nullptr && !dense_layers->empty()))
            throw load_error(std::string(source), 0, 0,
                             "expected every layer to be a MoE layer (decoder_sparse_step 1, no mlp_only_layers), got "
                             "a mixed dense/MoE model, which is not supported");
        if (m.model_type.empty()) m.model_type = local > 0 ? "mixtral" : "qwen3_moe";
    } else {
        m.intermediate = integer(doc, "intermediate_size", true);
        if (m.model_type.empty()) m.model_type = "llama";
        if (m.model_type == "mixtral" || m.model_type == "qwen3_moe")
            throw load_error(std::string(source), 0, 0, "expected expert counts for model_type " + m.model_type + ", got none");
    }
    if (!typed)
        m.unmodelled.push_back("model_type: absent; read by its fields as a " + m.model_type +
                               " model (" + (m.is_moe() ? "experts" : "no experts") + ")");
    note_unmodelled_fields(doc, m);
    // A short name from the file name: "/x/Qwen3-32B.json" or ".../Qwen3-32B/config.json".
    std::string_view path = source;
    const std::size_t slash = path.find_last_of("/\\");
    std::string file(slash == std::string_view::npos ? path : path.substr(slash + 1));
    if (file == "config.json" && slash != std::string_view::npos) {
        const std::string_view dir = path.substr(0, slash);
        const std::size_t s2 = dir.find_last_of("/\\");
        file = std::string(s2 == std::string_view::npos ? dir : dir.substr(s2 + 1));
    }
    if (file.size() > 5 && file.substr(file.size() - 5) == ".json") file.resize(file.size() - 5);
    m.name = lower(file);
    try {
        validate(m);
    } catch (const invalid_argument& e) {
        // validate names the source itself; the load error adds it again, so quote the cause alone.
        std::string cause = synperf::detail::message_of(e);
        if (const std::string prefix = "model " + m.source + ": "; cause.starts_with(prefix)) cause.erase(0, prefix.size());
        throw load_error(std::string(source), 0, 0, "expected a consistent config, got: " + cause);
    }
    return m;
}

/// Reads a config.json from disk; I/O errors name the path and the system's reason.
[[nodiscard]] inline model_config load_model_config(const std::string& path) {
    synperf::detail::require_regular_file(path, "model config.json");
    std::ifstream in(path, std::ios::binary);
    if (!in) throw load_error(path, 0, 0, std::string("expected a readable config.json, got: ") + std::strerror(errno));
    std::ostringstream text;
    text << in.rdbuf();
    return parse_model_config(text.str(), path);
}

/// A built-in name, or a path (anything ending in .json or containing a '/') to a config.json.
[[nodiscard]] inline model_config resolve_model(const std::string& name_or_path) {
    const bool path = name_or_path.find('/') != std::string::npos ||
                      (name_or_path.size() > 5 && name_or_path.substr(name_or_path.size() - 5) == ".json");
    return path ? load_model_config(name_or_path) : find_model(name_or_path);
}

}  // namespace synperf::e2e
