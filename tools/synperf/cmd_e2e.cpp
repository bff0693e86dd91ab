// SPDX-License-Identifier: Apache-2.0
// `synperf e2e`: end-to-end latency of a static batch (prefill, every decode step, total) of an LLM on a
// GPU under a serving framework; `--dev-set FILE` compares against measured runs (e2e_dev.json).
#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <numeric>
#include <optional>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include <unistd.h>

#include <fmt/core.h>
#include <nlohmann/json.hpp>

#include <synperf/detail/regular_file.hpp>
#include <synperf/e2e.hpp>
#include <synperf/e2e/shipped_models.hpp>
#include <synperf/mlp/format.hpp>
#include <synperf/system/catalogue.hpp>

#include "synperf/common.hpp"

namespace synperf::cli {
namespace {

namespace at = family::attention;

struct e2e_options {
    gpu_choice gpu;
    std::string model;
    int tp = 1, ep = 1;
    std::string framework = "sglang";
    std::string attention = "auto";
    std::vector<std::int64_t> prompt_lens;
    std::int64_t batch = 0, prompt_len = 0;
    std::int64_t decode_steps = 0;
    bool fp8_weights = false, fp8_kv = false, no_cuda_graph = false, no_memory_check = false;
    std::optional<double> iteration_overhead_us;
    std::string dev_set;
    bool json = false;
};

/// The shipped models, completed by models/<family>.mlp files for families whose weights are not embedded.
e2e::family_models load_models() {
    e2e::family_models m = e2e::shipped_models();
    for (std::size_t i = 0; i < e2e::op_family_count; ++i) {
        const std::string family(e2e::to_string(e2e::op_family(i)));
        std::shared_ptr<const mlp::network>& slot = *m.slot(family);
        if (slot) continue;
        const std::filesystem::path p = model_path(family, false);
        if (std::filesystem::exists(p)) slot = std::make_shared<const mlp::network>(mlp::load_mlp(p.string()));
    }
    return m;
}

/// The node collectives run on: the built-in system of catalogue GPU `catalogue_id` (with `g`'s links after any
/// `--set`), or, for a spec file (`catalogue_id` empty), an 8-GPU NVSwitch (NVLink) / PCIe node built from its numbers.
system::system_spec node_for(const gpu::runtime_gpu& g, const std::string& catalogue_id) {
    if (!catalogue_id.empty()) return system::builtin_system_for(catalogue_id, g);
    return system::make_system(g.name, g.numbers, 8, g.numbers.nvlink_gbps > 0 ? system::topology::nvswitch : system::topology::pcie);
}

at::kernel_impl parse_attention(const std::string& s) {
    if (s == "auto") return at::kernel_impl::automatic;
    if (s == "fa2") return at::kernel_impl::flashinfer;  // the dev set's name for FlashInfer's FA2-style path
    return at::parse_kernel(s);
}

const char* family_label(e2e::op_family f) { return e2e::to_string(f).data(); }

nlohmann::json breakdown_json(const e2e::iteration_time& t) {
    nlohmann::json fam = nlohmann::json::object();
    for (std::size_t i = 0; i < e2e::op_family_count; ++i)
        if (t.family_launches[i] > 0) fam[family_label(e2e::op_family(i))] = t.family_us[i] * 1e-3;
    nlohmann::json ops = nlohmann::json::array();
    for (const auto& o : t.ops)
        ops.push_back({{"op", std::string(o.name)}, {"family", family_label(o.family)}, {"count", o.count},
                       {"latency_us", o.latency_us}, {"total_ms", o.total_us() * 1e-3}});
    return {{"total_ms", t.total_us() * 1e-3}, {"kernels_ms", t.kernel_us * 1e-3}, {"overhead_ms", t.overhead_us * 1e-3},
            {"launches", t.launches}, {"families_ms", fam}, {"ops", ops}};
}

nlohmann::json memory_json(const e2e::memory_estimate& m) {
    return {{"total_gb", m.total / 1e9},       {"weights_gb", m.weights / 1e9},   {"kv_cache_gb", m.kv_cache / 1e9},
            {"activations_gb", m.activations / 1e9}, {"reserve_gb", m.reserve / 1e9}, {"capacity_gb", m.capacity / 1e9},
            {"kv_tokens", m.kv_tokens},        {"max_kv_tokens", m.max_kv_tokens}, {"max_batch", m.max_batch}};
}

void print_breakdown(const char* title, const e2e::iteration_time& t) {
    fmt::print("\n{} ({:.3f} ms: kernels {:.3f} ms, overheads {:.3f} ms, {} launches)\n", title, t.total_us() * 1e-3,
               t.kernel_us * 1e-3, t.overhead_us * 1e-3, t.launches);
    fmt::print("  {:<22} {:<18} {:>6} {:>12} {:>11} {:>6}\n", "op", "family", "count", "each (us)", "total (ms)", "share");
    for (const auto& o : t.ops)
        fmt::print("  {:<22} {:<18} {:>6} {:>12.2f} {:>11.3f} {:>5.1f}%\n", o.name, family_label(o.family), o.count, o.latency_us,
                   o.total_us() * 1e-3, 100.0 * o.total_us() / t.total_us());
    fmt::print("  {:<22} {:<18} {:>6} {:>12} {:>11.3f} {:>5.1f}%\n", "(overheads)", "", "", "", t.overhead_us * 1e-3,
               100.0 * t.overhead_us / t.total_us());
}

struct prepared {
    gpu::runtime_gpu gpu;
    e2e::run_request request;
    std::string catalogue_id;  ///< the catalogue GPU it was taken from; empty for a spec file (its node is built from its numbers)
};

/// On a terminal, a run that takes more than two seconds shows its decode steps on stderr, once a second, and
/// clears the line when it is done; piped or redirected, it prints nothing.
class decode_progress {
public:
    explicit decode_progress(std::string gpu) : gpu_(std::move(gpu)), next_(clock::now() + std::chrono::seconds(2)) {}
    decode_progress(const decode_progress&) = delete;
    decode_progress& operator=(const decode_progress&) = delete;
    ~decode_progress() {
        if (shown_) fmt::print(stderr, "\r\033[K");
    }
    void operator()(std::int64_t done, std::int64_t total) {
        if (!terminal_ || (done & 63) != 0) return;  // the clock is read every 64 steps
        const auto now = clock::now();
        if (now < next_) return;
        next_ = now + std::chrono::seconds(1);
        shown_ = true;
        fmt::print(stderr, "\re2e on {}: decode step {} of {} ({:.0f} %)", gpu_, done, total, 100.0 * double(done) / double(total));
        std::fflush(stderr);
    }

private:
    using clock = std::chrono::steady_clock;
    std::string gpu_;
    clock::time_point next_;
    bool terminal_ = ::isatty(STDERR_FILENO) == 1;
    bool shown_ = false;
};

e2e::run_result predict(const prepared& p, const e2e::family_models& models) {
    std::optional<system::system_spec> node;
    if (p.request.deploy.tp > 1) node = node_for(p.gpu, p.catalogue_id);
    e2e::kernel_estimator est(p.gpu.numbers, p.request.deploy.fw, models, node);
    decode_progress progress(p.gpu.name);
    e2e::run_request request = p.request;
    request.on_decode_step = [&progress](std::int64_t done, std::int64_t total) { progress(done, total); };
    return e2e::run(request, est);
}

/// " (EP n)" after the TP degree when the MoE layers are expert-parallel.
std::string ep_suffix(const e2e::deployment& d) { return d.ep > 1 ? fmt::format(" (EP {})", d.ep) : std::string(); }

/// The run the options describe, on `gpu`, taken from catalogue GPU `catalogue_id` (empty: a spec file).
prepared make_request(const e2e_options& o, gpu::runtime_gpu gpu, std::string catalogue_id) {
    if (o.model.empty()) throw invalid_argument("synperf: e2e: --model is required (a built-in name or a config.json path)");
    prepared p{std::move(gpu), {}, std::move(catalogue_id)};
    e2e::run_request& r = p.request;
    r.model = e2e::resolve_model(o.model);
    r.deploy.tp = o.tp;
    r.deploy.ep = o.ep;
    r.deploy.fw = e2e::parse_framework(o.framework);
    r.deploy.attention = parse_attention(o.attention);
    // TensorRT-LLM's attention op runs its own kernels (context FMHA, XQA / MMHA); it has no other backend.
    if (r.deploy.fw == e2e::framework::trtllm && r.deploy.attention != at::kernel_impl::automatic &&
        r.deploy.attention != at::kernel_impl::trtllm)
        throw invalid_argument("synperf: e2e: --framework trtllm runs TensorRT-LLM's own attention kernels; --attention " + o.attention +
                               " is another framework's backend (leave it out, or give trtllm)");
    r.deploy.fp8_weights = o.fp8_weights;
    r.deploy.fp8_kv = o.fp8_kv;
    r.deploy.cuda_graph_decode = !o.no_cuda_graph;
    r.check_memory = !o.no_memory_check;
    if (o.iteration_overhead_us) r.per_iteration_us = *o.iteration_overhead_us;
    if (!o.prompt_lens.empty() && (o.batch != 0 || o.prompt_len != 0))
        throw invalid_argument("synperf: e2e: give either --prompt-lens or --batch/--prompt-len, not both");
    if (!o.prompt_lens.empty()) {
        r.prompt_lens = o.prompt_lens;
    } else {
        if (o.batch <= 0 || o.prompt_len <= 0)
            throw invalid_argument("synperf: e2e: give --prompt-lens, or --batch and --prompt-len > 0 (got " + std::to_string(o.batch) +
                                   " and " + std::to_string(o.prompt_len) + ")");
        if (o.batch > e2e::max_requests)
            throw invalid_argument(fmt::format("synperf: e2e: --batch must be at most {}, got {}", e2e::max_requests, o.batch));
        r.prompt_lens.assign(std::size_t(o.batch), o.prompt_len);
    }
    r.decode_steps = o.decode_steps;
    return p;
}

/// The attention implementation the run's decode steps use on its GPU (the first step's KV lengths); `automatic`
/// when the model or the GPU cannot run it, which the prediction itself reports.
at::kernel_impl attention_of(const prepared& p) {
    const e2e::run_request& r = p.request;
    std::vector<std::int64_t> kv_lens(r.prompt_lens);
    for (std::int64_t& kv : kv_lens) ++kv;
    try {
        return e2e::decode_attention_kernel(r.model, r.deploy, p.gpu.numbers, kv_lens);
    } catch (const synperf::error&) {
        return at::kernel_impl::automatic;
    }
}

/// Says on stderr what the model's config.json asks for that the prediction leaves out (quantized weights, a
/// sliding window), so the numbers are not read as that model's.
void print_unmodelled(const e2e::run_request& r) {
    for (const std::string& what : r.model.unmodelled) fmt::print(stderr, "note: {}: {}\n", r.model.source, what);
    if (r.model.quantization == "fp8" && !r.deploy.fp8_weights)
        fmt::print(stderr, "note: {} is an FP8 checkpoint (quantization_config); --fp8-weights predicts its FP8 linear layers, "
                           "this run predicts bf16 ones\n", r.model.source);
}

/// The families the run used whose models had no measurement of `gpu` in their training data: those ops are
/// predicted from the GPU's spec alone.
std::vector<std::string> spec_only_families(const e2e::family_models& models, const e2e::run_result& res, std::string_view gpu) {
    std::vector<std::string> out;
    for (std::size_t i = 0; i < e2e::op_family_count; ++i) {
        if (res.prefill.family_launches[i] == 0 && res.first_decode.family_launches[i] == 0) continue;
        const auto& net = models.of(e2e::op_family(i));
        const auto trained = net ? net->trained_gpus() : std::nullopt;
        if (trained && std::ranges::find(*trained, gpu) == trained->end()) out.emplace_back(e2e::to_string(e2e::op_family(i)));
    }
    return out;
}

/// Says them on stderr: one line per distinct list of families, naming the GPUs it holds for (in `runs` order).
void note_spec_only(const std::vector<std::pair<std::string, std::vector<std::string>>>& runs) {
    std::vector<std::pair<std::vector<std::string>, std::vector<std::string>>> groups;  // families -> GPUs
    for (const auto& run : runs) {
        const std::string& gpu = run.first;
        const std::vector<std::string>& families = run.second;  // a reference the lambda below can capture
        if (families.empty()) continue;
        auto it = std::ranges::find_if(groups, [&](const auto& g) { return g.first == families; });
        if (it == groups.end()) it = groups.insert(groups.end(), {families, {}});
        it->second.push_back(gpu);
    }
    for (const auto& [families, gpus] : groups)
        fmt::print(stderr,
                   "note: no measurement of {} trained the {} model{}: those ops are predicted from the spec alone; "
                   "'synperf eval <family>' shows the accuracy on GPUs held out of training\n",
                   comma_list(gpus), comma_list(families), families.size() > 1 ? "s" : "");
}

void run_single(const e2e_options& o) {
    const prepared p = make_request(o, o.gpu.resolve(), o.gpu.catalogue_id());
    const e2e::run_request& r = p.request;
    print_unmodelled(r);
    const e2e::family_models models = load_models();
    const e2e::run_result res = predict(p, models);
    const std::vector<std::string> spec_only = spec_only_families(models, res, p.gpu.name);
    note_spec_only({{p.gpu.name, spec_only}});
    const at::kernel_impl attn = attention_of(p);
    if (o.json) {
        const nlohmann::json out{{"model", r.model.name},
                                 {"model_source", r.model.source},
                                 {"gpu", p.gpu.name},
                                 {"tp", r.deploy.tp},
                                 {"ep", r.deploy.ep},
                                 {"framework", o.framework},
                                 {"attention", std::string(at::to_string(attn))},
                                 {"fp8_weights", r.deploy.fp8_weights},
                                 {"fp8_kv", r.deploy.fp8_kv},
                                 {"cuda_graph_decode", r.deploy.cuda_graph_decode},
                                 {"requests", r.prompt_lens.size()},
                                 {"prompt_tokens", std::accumulate(r.prompt_lens.begin(), r.prompt_lens.end(), std::int64_t{0})},
                                 {"decode_steps", r.decode_steps},
                                 {"prefill_ms", res.prefill_ms},
                                 {"decode_median_ms", r.decode_steps > 0 ? nlohmann::json(res.decode_median_ms) : nlohmann::json()},
                                 {"decode_step_ms", res.decode_step_ms},
                                 {"total_ms", res.total_ms},
                                 {"memory_gb", res.memory.total / 1e9},
                                 {"memory", memory_json(res.memory)},
                                 {"breakdown", {{"prefill", breakdown_json(res.prefill)},
                                                {"decode_step", r.decode_steps > 0 ? breakdown_json(res.first_decode) : nlohmann::json()}}},
                                 {"distinct_ops_predicted", res.evaluations},
                                 {"spec_only_families", spec_only},
                                 {"unmodelled", r.model.unmodelled}};
        fmt::print("{}\n", out.dump(2));
        return;
    }
    std::int64_t tokens = 0;
    for (auto x : r.prompt_lens) tokens += x;
    fmt::print("{} on {} ({}), TP {}{}, {} (attention {}){}{}{}\n", r.model.name, p.gpu.name, p.gpu.display_name, r.deploy.tp,
               ep_suffix(r.deploy), o.framework, at::to_string(attn), r.deploy.fp8_weights ? ", FP8 weights" : "",
               r.deploy.fp8_kv ? ", FP8 KV cache" : "",
               r.deploy.cuda_graph_decode ? "" : ", decode without CUDA graphs");
    fmt::print("batch of {} requests, {} prompt tokens, {} decode steps\n\n", r.prompt_lens.size(), tokens, r.decode_steps);
    fmt::print("  prefill            {:>10.3f} ms\n", res.prefill_ms);
    if (!res.decode_step_ms.empty()) {
        fmt::print("  decode step median {:>10.3f} ms  (first {:.3f} ms, last {:.3f} ms)\n", res.decode_median_ms, res.decode_step_ms.front(),
                   res.decode_step_ms.back());
    }
    fmt::print("  total              {:>10.3f} ms\n", res.total_ms);
    const auto& m = res.memory;
    fmt::print("  memory per GPU     {:>10.2f} GB of {:.2f} GB (weights {:.2f}, KV cache {:.2f}, activations {:.2f}, reserve {:.2f}); "
               "fits up to {} KV tokens\n",
               m.total / 1e9, m.capacity / 1e9, m.weights / 1e9, m.kv_cache / 1e9, m.activations / 1e9, m.reserve / 1e9, m.max_kv_tokens);
    print_breakdown("prefill", res.prefill);
    if (r.decode_steps > 0) print_breakdown("first decode step", res.first_decode);
}

/// The same run on several GPUs, one row each. A GPU the run cannot use (it does not fit in memory, the node
/// has too few GPUs for the TP degree, no FP8 tensor cores) gets its reason instead of numbers; an unknown
/// name fails the whole command before anything runs.
void run_compare(const e2e_options& o) {
    std::vector<prepared> runs;
    for (const std::string& name : o.gpu.listed_names()) {
        gpu_choice one = o.gpu;
        one.name = name;
        runs.push_back(make_request(o, one.resolve(), one.catalogue_id()));
    }
    const e2e::family_models models = load_models();
    const e2e::run_request& r0 = runs.front().request;
    print_unmodelled(r0);
    const std::int64_t tokens = std::accumulate(r0.prompt_lens.begin(), r0.prompt_lens.end(), std::int64_t{0});
    nlohmann::json rows = nlohmann::json::array();
    if (!o.json) {
        fmt::print("{}, TP {}{}, {}{}{}: batch of {} requests, {} prompt tokens, {} decode steps\n\n", r0.model.name, r0.deploy.tp,
                   ep_suffix(r0.deploy), o.framework, r0.deploy.fp8_weights ? ", FP8 weights" : "",
                   r0.deploy.fp8_kv ? ", FP8 KV cache" : "",
                   r0.prompt_lens.size(), tokens, r0.decode_steps);
        fmt::print("  {:<20} {:<10} {:>11} {:>14} {:>11} {:>13} {:>18}\n", "gpu", "attention", "prefill ms", "decode step ms",
                   "total ms", "decode tok/s", "memory GB / GPU");
    }
    std::size_t ran = 0;
    std::vector<std::pair<std::string, std::vector<std::string>>> spec_only_runs;  // said after the table
    for (const prepared& p : runs) {
        const std::string attn(at::to_string(attention_of(p)));
        try {
            const e2e::run_result res = predict(p, models);
            const std::vector<std::string> spec_only = spec_only_families(models, res, p.gpu.name);
            spec_only_runs.emplace_back(p.gpu.name, spec_only);
            // Every request emits one token per decode step; a run without decode steps has neither (null, "-").
            const bool decodes = p.request.decode_steps > 0;
            const double tok_s = decodes ? double(p.request.prompt_lens.size()) / res.decode_median_ms * 1e3 : 0.0;
            rows.push_back({{"gpu", p.gpu.name},
                            {"attention", attn},
                            {"prefill_ms", res.prefill_ms},
                            {"decode_median_ms", decodes ? nlohmann::json(res.decode_median_ms) : nlohmann::json()},
                            {"total_ms", res.total_ms},
                            {"decode_tokens_per_s", decodes ? nlohmann::json(tok_s) : nlohmann::json()},
                            {"memory_gb", res.memory.total / 1e9},
                            {"capacity_gb", res.memory.capacity / 1e9},
                            {"spec_only_families", spec_only}});
            if (!o.json)
                fmt::print("  {:<20} {:<10} {:>11.3f} {:>14} {:>11.3f} {:>13} {:>8.1f} / {:>7.1f}\n", p.gpu.name, attn, res.prefill_ms,
                           decodes ? fmt::format("{:.3f}", res.decode_median_ms) : "-", res.total_ms,
                           decodes ? fmt::format("{:.0f}", tok_s) : "-", res.memory.total / 1e9, res.memory.capacity / 1e9);
            ++ran;
        } catch (const synperf::error& e) {
            const std::string why = synperf::detail::message_of(e);
            rows.push_back({{"gpu", p.gpu.name}, {"attention", attn}, {"error", why}});
            if (!o.json) fmt::print("  {:<20} {:<10} cannot run: {}\n", p.gpu.name, attn, why);
        }
    }
    if (o.json) {
        const nlohmann::json out{{"model", r0.model.name}, {"tp", r0.deploy.tp}, {"ep", r0.deploy.ep},
                                 {"framework", o.framework}, {"gpus", rows}, {"unmodelled", r0.model.unmodelled}};
        fmt::print("{}\n", out.dump(2));
    }
    std::fflush(stdout);  // the table and the reasons above come before the notes and the error
    note_spec_only(spec_only_runs);
    if (ran == 0) throw invalid_argument(fmt::format("synperf: e2e: none of the {} listed GPUs can run this", runs.size()));
}

/// One case of e2e_dev.json as a request; throws `invalid_argument` (or a JSON exception) for a malformed case.
/// Every field is checked for its type and range, so that nothing is truncated (`"tp": 1.5`) or ignored.
prepared dev_case(const nlohmann::json& c) {
    if (!c.is_object()) throw invalid_argument("expected an object, got " + std::string(c.type_name()));
    const auto field = [](const nlohmann::json& obj, const char* key) -> const nlohmann::json& {
        if (!obj.contains(key)) throw invalid_argument(std::string("expected field \"") + key + "\", got none");
        return obj.at(key);
    };
    const auto text = [&](const nlohmann::json& obj, const char* key) {
        const nlohmann::json& v = field(obj, key);
        if (!v.is_string()) throw invalid_argument(std::string("expected field \"") + key + "\" to be a string, got " + v.dump());
        return v.get<std::string>();
    };
    const auto integer = [](const nlohmann::json& v, const std::string& key) {
        if (!v.is_number_integer()) throw invalid_argument("expected field \"" + key + "\" to be an integer, got " + v.dump());
        return v.get<std::int64_t>();
    };
    gpu::runtime_gpu g = gpu::find_gpu(text(c, "gpu"));
    const std::string catalogue_id = g.name;
    prepared p{std::move(g), {}, catalogue_id};
    e2e::run_request& r = p.request;
    const std::string name = text(c, "model");
    r.model = e2e::find_model(name);
    // The case's own architecture numbers must agree with the built-in model.
    const nlohmann::json& mp = field(c, "model_params");
    if (!mp.is_object()) throw invalid_argument("expected field \"model_params\" to be an object, got " + mp.dump());
    const std::pair<const char*, std::int64_t> params[] = {
        {"hidden_size", r.model.hidden},         {"num_hidden_layers", r.model.layers}, {"num_attention_heads", r.model.heads},
        {"num_key_value_heads", r.model.kv_heads}, {"intermediate_size", r.model.intermediate}, {"vocab_size", r.model.vocab},
        {"head_dim", r.model.head_dim}};
    for (const auto& [key, builtin] : params) {
        const std::int64_t given = integer(field(mp, key), std::string("model_params.") + key);
        if (given != builtin)
            throw invalid_argument(fmt::format("expected model_params.{} of {} to match the built-in {} ({}), got {}", key, name,
                                               r.model.name, builtin, given));
    }
    const std::int64_t tp = integer(field(c, "tp"), "tp");
    if (tp < 1 || tp > 1024) throw invalid_argument("expected \"tp\" in 1..1024, got " + std::to_string(tp));
    r.deploy.tp = int(tp);
    if (c.contains("pp") && integer(c.at("pp"), "pp") != 1)
        throw invalid_argument("expected \"pp\": 1 (pipeline parallelism is not modelled), got " + c.at("pp").dump());
    r.deploy.fw = e2e::parse_framework(text(c, "framework"));
    // Every run of the set used SGLang's FlashInfer backend ("fa2" / "fa3" name its two paths).
    if (c.contains("attention")) {
        const std::string attention = text(c, "attention");
        if (attention != "fa2" && attention != "fa3")
            throw invalid_argument("expected \"attention\" \"fa2\" or \"fa3\" (SGLang's FlashInfer paths), got \"" + attention + "\"");
    }
    r.deploy.attention = at::kernel_impl::flashinfer;
    const nlohmann::json& lens = field(c, "prompt_lengths");
    if (!lens.is_array()) throw invalid_argument("expected field \"prompt_lengths\" to be an array, got " + lens.dump());
    for (std::size_t i = 0; i < lens.size(); ++i) r.prompt_lens.push_back(integer(lens[i], fmt::format("prompt_lengths[{}]", i)));
    r.decode_steps = integer(field(c, "decode_steps"), "decode_steps");
    e2e::validate(r);
    // Every case is fitted on its measured decode step, so it needs one.
    if (r.decode_steps < 1) throw invalid_argument("expected \"decode_steps\" >= 1 (a measured decode step), got " + std::to_string(r.decode_steps));
    // output_len counts the prefill's token too: one more than the decode steps.
    if (c.contains("output_len") && integer(c.at("output_len"), "output_len") != r.decode_steps + 1)
        throw invalid_argument(fmt::format("expected \"output_len\" to be decode_steps + 1 = {}, got {}", r.decode_steps + 1,
                                           c.at("output_len").dump()));
    // The measured times: every error is relative to them. Between a microsecond and a day, so that an error stays a
    // percentage one can print.
    const nlohmann::json& real = field(c, "real");
    if (!real.is_object()) throw invalid_argument("expected field \"real\" to be an object, got " + real.dump());
    for (const char* key : {"prefill_ms", "decode_median_ms", "total_ms"}) {
        const nlohmann::json& v = field(real, key);
        if (!v.is_number()) throw invalid_argument(std::string("expected real.") + key + " to be a number, got " + v.dump());
        const double ms = v.get<double>();
        if (!(ms >= 1e-3 && ms <= 86.4e6))
            throw invalid_argument(fmt::format("expected real.{} in 0.001 .. 8.64e7 ms (a microsecond to a day), got {}", key, v.dump()));
    }
    const double prefill_ms = real.at("prefill_ms").get<double>(), decode_ms = real.at("decode_median_ms").get<double>();
    if (real.at("total_ms").get<double>() < prefill_ms + decode_ms)
        throw invalid_argument(fmt::format("expected real.total_ms ({}) to be at least real.prefill_ms + real.decode_median_ms ({})",
                                           real.at("total_ms").dump(), prefill_ms + decode_ms));
    if (real.contains("batch_size") && integer(real.at("batch_size"), "real.batch_size") != std::int64_t(r.prompt_lens.size()))
        throw invalid_argument(fmt::format("expected real.batch_size to equal the {} prompt_lengths, got {}", r.prompt_lens.size(),
                                           real.at("batch_size").dump()));
    const std::int64_t prompt_tokens = std::accumulate(r.prompt_lens.begin(), r.prompt_lens.end(), std::int64_t{0});
    if (real.contains("total_prefill_tokens") && integer(real.at("total_prefill_tokens"), "real.total_prefill_tokens") != prompt_tokens)
        throw invalid_argument(fmt::format("expected real.total_prefill_tokens to equal the sum of prompt_lengths, {}, got {}",
                                           prompt_tokens, real.at("total_prefill_tokens").dump()));
    return p;
}

double rel(double pred, double real) { return 100.0 * (pred - real) / real; }

/// Host work per iteration that best fits the measured median decode steps of `cases` (least squares of
/// relative error; the prediction is linear in it).
double fit_iteration_us(const std::vector<double>& kernel_ms, const std::vector<double>& real_ms, const std::vector<std::size_t>& use) {
    double num = 0, den = 0;
    for (std::size_t i : use) {
        num += (real_ms[i] - kernel_ms[i]) / (real_ms[i] * real_ms[i]);
        den += 1.0 / (real_ms[i] * real_ms[i]);
    }
    return den > 0 ? std::max(0.0, num / den) * 1e3 : 0.0;
}

void run_dev_set(const e2e_options& o) {
    if (o.iteration_overhead_us) e2e::validate_iteration_us(*o.iteration_overhead_us);  // before any output
    synperf::detail::require_regular_file(o.dev_set, "e2e dev set JSON");
    std::ifstream in(o.dev_set);
    if (!in) throw load_error(o.dev_set, 0, 0, std::string("cannot open the e2e dev set: ") + std::strerror(errno));
    nlohmann::json doc;
    try {
        doc = nlohmann::json::parse(in);
    } catch (const nlohmann::json::exception& e) {
        // "[json.exception.parse_error.101] parse error at line 3, column 1: ..." without the library's tag.
        std::string why = e.what();
        if (const auto tag_end = why.find("] "); why.starts_with("[json.exception.") && tag_end != std::string::npos)
            why.erase(0, tag_end + 2);
        throw load_error(o.dev_set, 0, 0, "expected JSON, got: " + why);
    }
    if (!doc.contains("cases") || !doc["cases"].is_array()) throw load_error(o.dev_set, 0, 0, "expected a \"cases\" array, got none");
    const e2e::family_models models = load_models();
    std::vector<prepared> cases;
    std::vector<nlohmann::json> real;
    if (doc["cases"].empty()) throw load_error(o.dev_set, 0, 0, "expected at least one case, got an empty \"cases\" array");
    for (std::size_t i = 0; i < doc["cases"].size(); ++i) {
        const nlohmann::json& c = doc["cases"][i];
        // Any error names the case (1-based, as listed), whatever layer found it.
        const auto at_case = [&](std::string_view why) {
            std::string label = "case " + std::to_string(i + 1);
            if (c.is_object() && c.contains("gpu") && c.contains("model") && c["gpu"].is_string() && c["model"].is_string())
                label += " (" + c["gpu"].get<std::string>() + ", " + c["model"].get<std::string>() + ")";
            return load_error(o.dev_set, 0, 0, label + ": " + std::string(why));
        };
        try {
            cases.push_back(dev_case(c));
            real.push_back(c.at("real"));
        } catch (const nlohmann::json::exception& e) {
            throw at_case(e.what());
        } catch (const synperf::error& e) {
            throw at_case(synperf::detail::message_of(e));
        }
    }
    if (doc["cases"].size() < 2 && !o.iteration_overhead_us)
        throw load_error(o.dev_set, 0, 0, "expected at least two cases (each case's host work is fitted on the others), got one; "
                                          "give --iteration-overhead-us to evaluate a single case");
    // Per case: the run without per-iteration host work gives each term's dependence on it.
    std::vector<double> base_decode, real_decode;
    for (auto& p : cases) {
        p.request.per_iteration_us = 0;
        base_decode.push_back(predict(p, models).decode_median_ms);
    }
    for (const auto& r : real) real_decode.push_back(r.at("decode_median_ms").get<double>());
    nlohmann::json rows = nlohmann::json::array();
    if (!o.json)
        fmt::print("{:<6} {:<15} {:>3} {:<11} | {:>21} | {:>21} | {:>21} | {:>8}\n", "gpu", "model", "tp", "attention", "prefill ms (err)",
                   "decode median ms (err)", "total ms (err)", "LOO host");
    for (std::size_t i = 0; i < cases.size(); ++i) {
        std::vector<std::size_t> others;
        for (std::size_t j = 0; j < cases.size(); ++j)
            if (j != i) others.push_back(j);
        const double loo_us = o.iteration_overhead_us ? *o.iteration_overhead_us : fit_iteration_us(base_decode, real_decode, others);
        prepared p = cases[i];
        p.request.per_iteration_us = loo_us;
        const e2e::run_result res = predict(p, models);
        const double rp = real[i].at("prefill_ms"), rd = real[i].at("decode_median_ms"), rt = real[i].at("total_ms");
        const nlohmann::json& c = doc["cases"][i];
        rows.push_back({{"gpu", p.gpu.name},
                        {"model", c.at("model")},
                        {"tp", p.request.deploy.tp},
                        {"attention", c.value("attention", "")},
                        {"iteration_overhead_us", loo_us},
                        {"prefill_ms", res.prefill_ms},
                        {"real_prefill_ms", rp},
                        {"prefill_error_pct", rel(res.prefill_ms, rp)},
                        {"decode_median_ms", res.decode_median_ms},
                        {"real_decode_median_ms", rd},
                        {"decode_error_pct", rel(res.decode_median_ms, rd)},
                        {"total_ms", res.total_ms},
                        {"real_total_ms", rt},
                        {"total_error_pct", rel(res.total_ms, rt)}});
        if (!o.json)
            fmt::print("{:<6} {:<15} {:>3} {:<11} | {:>9.1f} / {:>7.1f} {:>+5.1f}% | {:>8.2f} / {:>6.2f} {:>+5.1f}% | {:>8.1f} / {:>8.1f} {:>+5.1f}% | {:>6.0f}us\n",
                       c.at("gpu").get<std::string>(), c.at("model").get<std::string>(), p.request.deploy.tp,
                       "flashinfer/" + c.value("attention", std::string("?")), res.prefill_ms, rp, rel(res.prefill_ms, rp),
                       res.decode_median_ms, rd, rel(res.decode_median_ms, rd), res.total_ms, rt, rel(res.total_ms, rt), loo_us);
    }
    std::vector<std::size_t> all(cases.size());
    for (std::size_t i = 0; i < all.size(); ++i) all[i] = i;
    const double fit_all = fit_iteration_us(base_decode, real_decode, all);
    if (o.json) {
        fmt::print("{}\n", nlohmann::json{{"cases", rows},
                                          {"leave_one_case_out", !o.iteration_overhead_us},
                                          {"iteration_overhead_fit_all_us", fit_all},
                                          {"shipped_iteration_overhead_us", e2e::fitted_iteration_us}}
                               .dump(2));
        return;
    }
    fmt::print("\npredicted / measured (error). Host work per iteration: {} (fit on all cases: {:.0f} us; shipped: {:.0f} us)\n",
               o.iteration_overhead_us ? "as given" : "fitted on the other cases (leave-one-case-out)", fit_all, e2e::fitted_iteration_us);
}

}  // namespace

void add_e2e_command(CLI::App& app) {
    static e2e_options o;
    auto* cmd = app.add_subcommand("e2e", "end-to-end latency of a static batch: prefill, every decode step, total");
    o.gpu.add_to(*cmd, false);
    cmd->add_option("--model", o.model, "built-in model (e.g. qwen2.5-14b, llama-3.1-70b) or the path of a config.json");
    cmd->add_option("--tp", o.tp, "tensor-parallel degree")->capture_default_str();
    cmd->add_option("--ep", o.ep,
                    "expert-parallel degree of the MoE layers, dividing --tp (SGLang --ep-size: each GPU holds experts / ep "
                    "whole experts and the TP all-reduce combines them)")
        ->capture_default_str();
    cmd->add_option("--framework", o.framework, "sglang, vllm or trtllm")
        ->check(CLI::IsMember({"sglang", "vllm", "trtllm"}))
        ->capture_default_str();
    cmd->add_option("--attention", o.attention, "attention backend: flashinfer, fa3, fa2 (= flashinfer), trtllm, triton (default: the framework's)")
        ->check(CLI::IsMember({"auto", "flashinfer", "fa3", "fa2", "trtllm", "triton"}))
        ->capture_default_str();
    add_integer_list_option(*cmd, "--prompt-lens", o.prompt_lens, "prompt length of each request, comma separated");
    cmd->add_option("--batch", o.batch, "uniform batch: requests");
    cmd->add_option("--prompt-len", o.prompt_len, "uniform batch: prompt length");
    cmd->add_option("--decode-steps", o.decode_steps, "decode iterations after the prefill")->capture_default_str();
    cmd->add_flag("--fp8-weights", o.fp8_weights, "FP8 (per-tensor e4m3) linear layers");
    cmd->add_flag("--fp8-kv", o.fp8_kv, "FP8 KV cache");
    cmd->add_flag("--no-cuda-graph", o.no_cuda_graph, "run decode eagerly (no CUDA graphs)");
    cmd->add_flag("--no-memory-check", o.no_memory_check, "predict even when the run does not fit in GPU memory");
    cmd->add_option("--iteration-overhead-us", o.iteration_overhead_us, "host work per iteration (default: the fitted value)");
    cmd->add_option("--dev-set", o.dev_set, "compare with measured runs (e2e_dev.json); the other options are ignored");
    cmd->add_flag("--json", o.json, "print JSON");
    cmd->final_callback([] {
        if (!o.dev_set.empty()) return run_dev_set(o);
        if (o.gpu.name.empty() && o.gpu.spec_file.empty()) throw invalid_argument("synperf: e2e: --gpu or --gpu-spec is required");
        if (o.gpu.is_list()) return run_compare(o);
        run_single(o);
    });
}

}  // namespace synperf::cli
