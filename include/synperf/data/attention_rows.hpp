// SPDX-License-Identifier: Apache-2.0
#pragma once
/// \file Measured attention latencies (prefill and decode) from the aiconfigurator-format tables.
///
/// TensorRT-LLM rows (`aiconfigurator/<gpu>/`, kernel_source `torch_flow`) time the whole TRT-LLM attention
/// op: fused QKV pre-processing (RoPE + paged KV write) and the context FMHA or XQA/MMHA decode kernel.
/// SGLang rows (`aiconfigurator_sglang/<gpu>/`) time the backend's kernel plus the KV-cache store:
/// `flash_attention` is the FA3 code base, `trtllm_mha` TRT-LLM's gen kernels, `triton` SGLang's Triton path.
///
/// Also the families' training sources, `train::source<family::attention_prefill>` and
/// `train::source<family::attention_decode>` (synperf/train/source.hpp): their rows as samples.
#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "synperf/data/csv.hpp"
#include "synperf/data/gpu_folder.hpp"
#include "synperf/data/protocol.hpp"
#include "synperf/family/attention.hpp"
#include "synperf/family/attention/problem.hpp"
#include "synperf/gpu/numbers.hpp"
#include "synperf/gpu/registry.hpp"
#include "synperf/predictor/analyze.hpp"
#include "synperf/predictor/prediction.hpp"
#include "synperf/train/analyze_rows.hpp"
#include "synperf/train/sample.hpp"
#include "synperf/train/source.hpp"
#include "synperf/work/kernel_kinds.hpp"

namespace synperf::data {

/// One measured attention op.
struct measured_attention {
    std::string gpu;            ///< canonical GPU id
    std::string framework;      ///< trtllm or sglang (the collector)
    std::string kernel_source;  ///< the table's kernel_source
    family::attention::attention_problem problem;
    double latency_us = 0;
    std::uint64_t shape_hash = 0;  ///< hash of (heads, kv heads, head dim, dtypes): the seen split key
};

/// Rows left out or reinterpreted (reported by the tools; see docs/families/attention.md).
struct attention_exclusions {
    std::size_t flashinfer_wrapper = 0;  ///< TRT-LLM `torch_flow_flashinfer`: another op composition (RoPE excluded)
    std::size_t b200_sglang_window_zero = 0;  ///< B200 SGLang prefill rows with window_size 0, read as a one-token window
};

namespace attention_rows_detail {

inline family::attention::kernel_impl sglang_kernel(std::string_view source, const std::string& file, std::size_t line) {
    if (source == "flash_attention") return family::attention::kernel_impl::fa3;
    if (source == "trtllm_mha") return family::attention::kernel_impl::trtllm;
    if (source == "triton") return family::attention::kernel_impl::triton;
    throw load_error(file, line, 0, "column 'kernel_source': expected flash_attention, trtllm_mha or triton, got '" +
                                        std::string(source) + "'");
}

/// Whether the SGLang collector that timed `gpu`'s tables casts q, k and v to FP8 whenever the KV cache is
/// FP8, not only for `attn_dtype` fp8. The SGLang 0.5.10 tables were timed by aiconfigurator's
/// collect_attn.py of that release (commit cb4d907c7: `if use_fp8_context_fmha or use_fp8_kv_cache`); two
/// were collected again by a later one that casts only for FP8 context FMHA (`is_context_phase and
/// use_fp8_context_fmha`): B200's re-collection, the one that added `window_size`, and RTX PRO 6000's
/// (commit 37826f10a). The prefill data agree: on the first group the bf16 and fp8 `attn_dtype` rows of an
/// FP8 cache time alike (median ratio 1.000), on B200 and RTX PRO 6000 they differ by 1.2-2x. The decode
/// data too: on H100 and H200 (FA3, whose backend would cast q, k and v in three kernels) the smallest
/// FP8-cache ops time like the bf16-cache ones.
[[nodiscard]] inline bool sglang_collector_casts_with_fp8_cache(std::string_view gpu, bool has_window_column) {
    return !has_window_column && gpu != "rtx_pro_6000_server";
}

/// Whether the TensorRT-LLM collector that timed `gpu`'s tables allocated a K-only cache. Until the
/// 1.3.0rc20 upgrade (aiconfigurator commit dec5f4cd2) collect_attn.py built its KVCacheManager with
/// CacheType::SELFKONLY, the MLA layout, for every attention op; that commit switched dense attention to
/// CacheType::SELF ("Regular GQA/MHA has separate K and V tensors"). A100's tables are the only ones of an
/// older TensorRT-LLM (1.0.0, MANIFEST.md). Their decode kernels read V from K's blocks, which the caches
/// then serve: long-KV rows run up to 1.7x faster than reading K and V once from DRAM allows.
[[nodiscard]] inline bool trtllm_collector_k_only_cache(std::string_view gpu) { return gpu == "a100_sxm"; }

}  // namespace attention_rows_detail

/// Reads one `context_attention_perf.csv` (prefill) or `generation_attention_perf.csv` (decode).
inline void read_attention_file(const std::filesystem::path& file, const std::string& gpu, bool sglang,
                                family::attention::phase stage, std::vector<measured_attention>& out,
                                attention_exclusions& skipped) {
    namespace at = family::attention;
    const csv_table t = csv_table::load(file.string());
    const std::string src = file.string();
    const std::size_t c_src = t.column("kernel_source"), c_batch = t.column("batch_size"), c_heads = t.column("num_heads"),
                      c_kv = t.column("num_key_value_heads"), c_dim = t.column("head_dim"),
                      c_kvdt = t.column("kv_cache_dtype"), c_lat = t.column("latency");
    const bool prefill = stage == at::phase::prefill;
    const std::size_t c_isl = prefill || sglang ? t.column("isl") : 0;
    const std::size_t c_step = (!prefill || sglang) ? t.column("step") : 0;
    const bool has_window = t.has_column("window_size");
    const std::size_t c_window = has_window ? t.column("window_size") : 0;
    const bool has_attn_dtype = t.has_column("attn_dtype");
    const std::size_t c_attn = has_attn_dtype ? t.column("attn_dtype") : 0;
    const bool casts_with_fp8_cache = sglang && attention_rows_detail::sglang_collector_casts_with_fp8_cache(gpu, has_window);
    for (std::size_t r = 0; r < t.rows(); ++r) {
        const std::string_view source = t.field(r, c_src);
        measured_attention m;
        m.gpu = gpu;
        m.kernel_source = std::string(source);
        at::attention_problem& p = m.problem;
        p.stage = stage;
        if (sglang) {
            m.framework = "sglang";
            p.backend = at::framework::sglang;
            p.kernel = attention_rows_detail::sglang_kernel(source, src, t.line(r));
        } else {
            if (source == "torch_flow_flashinfer") {
                ++skipped.flashinfer_wrapper;
                continue;
            }
            if (source != "torch_flow")
                throw load_error(src, t.line(r), 0, "column 'kernel_source': expected torch_flow or torch_flow_flashinfer, got '" +
                                                        std::string(source) + "'");
            m.framework = "trtllm";
            p.backend = at::framework::trtllm;
            p.kernel = at::kernel_impl::trtllm;
        }
        const std::int64_t batch = t.positive_integer(r, c_batch);
        p.heads = t.positive_int(r, c_heads);
        p.kv_heads = t.positive_int(r, c_kv);
        p.head_dim = t.positive_int(r, c_dim);
        p.window = has_window ? t.non_negative_integer(r, c_window) : 0;
        const std::string_view kvdt = t.field(r, c_kvdt);
        if (kvdt == "fp8") p.kv_type = at::kv_dtype::fp8;
        else if (kvdt != "bfloat16" && kvdt != "float16")
            throw load_error(src, t.line(r), 0, "column 'kv_cache_dtype': expected bfloat16 or fp8, got '" + std::string(kvdt) + "'");
        // attn_dtype fp8: TRT-LLM's collector runs the FP8 context FMHA; SGLang's casts q, k and v to FP8
        // before the timed op (collect_attn.py use_fp8_context_fmha), and the backend picks the math itself
        // (with an FP8 cache: FP8 in trtllm_mha and FA3, the query's type in Triton). The collector that
        // timed most SGLang tables casts them whenever the cache is FP8, in both phases
        // (`sglang_collector_casts_with_fp8_cache`).
        const std::string_view attn_dtype = has_attn_dtype ? t.field(r, c_attn) : std::string_view("bfloat16");
        if (attn_dtype != "bfloat16" && attn_dtype != "float16" && attn_dtype != "fp8")
            throw load_error(src, t.line(r), 0, "column 'attn_dtype': expected bfloat16, float16 or fp8, got '" + std::string(attn_dtype) + "'");
        const bool fp8_attn = attn_dtype == "fp8";
        p.fp8_compute = !sglang && fp8_attn;
        p.fp8_inputs = sglang && (fp8_attn || (casts_with_fp8_cache && kvdt == "fp8"));
        // Decode reads the cache; context reads the new K and V from the packed QKV input.
        p.v_aliases_k = !sglang && !prefill && attention_rows_detail::trtllm_collector_k_only_cache(gpu);
        if (fp8_attn && p.kv_type != at::kv_dtype::fp8) p.kv_type = at::kv_dtype::fp8;
        if (prefill) {
            const std::int64_t isl = t.positive_integer(r, c_isl);
            const std::int64_t prefix = sglang ? t.non_negative_integer(r, c_step) : 0;
            // B200's window_size 0 rows time a one-token window: taken as full causal, the long prompts would
            // run up to 14.6x the tensor peak (MANIFEST.md, known anomalies); as a one-token window they sit
            // below the bound like every other row. Likely cause: that collector passed 0 to SGLang as
            // sliding_window_size, i.e. window_left 0 (the current one maps 0 to no window).
            if (sglang && gpu == "b200_sxm" && p.window == 0) {
                ++skipped.b200_sglang_window_zero;
                p.window = 1;
            }
            p.causal = true;
            p.requests = at::uniform_batch(batch, isl, isl + prefix);
        } else {
            // `step` = cached tokens; the new token is appended and attended too.
            const std::int64_t cached = t.non_negative_integer(r, c_step);
            p.causal = false;
            p.requests = at::uniform_batch(batch, 1, cached + 1);
        }
        m.latency_us = t.time_us(r, c_lat, 1e3);
        t.check_row(r, [&] { at::validate(p); });
        m.shape_hash = shape_hash({p.heads, p.kv_heads, p.head_dim, static_cast<std::int64_t>(p.kv_type),
                                   p.fp8_compute ? 1 : 0, p.window});
        out.push_back(std::move(m));
    }
}

/// Every attention row of one phase under `data_dir`, in a stable order (collections, then GPUs).
[[nodiscard]] inline std::vector<measured_attention> read_attention_rows(const std::filesystem::path& data_dir,
                                                                         family::attention::phase stage,
                                                                         attention_exclusions* skipped = nullptr) {
    namespace fs = std::filesystem;
    const char* table = stage == family::attention::phase::prefill ? "context_attention_perf.csv" : "generation_attention_perf.csv";
    struct entry {
        fs::path file;
        bool sglang;
    };
    std::vector<entry> files;
    for (const char* collection : {"aiconfigurator", "aiconfigurator_sglang"}) {
        const fs::path root = data_dir / collection;
        std::error_code ec;
        if (!fs::is_directory(root, ec)) continue;
        std::vector<fs::path> found;
        for (const auto& e : fs::directory_iterator(root))
            if (e.is_directory() && synperf::detail::entry_present(e.path() / table)) found.push_back(e.path() / table);
        std::sort(found.begin(), found.end());
        for (auto& f : found) files.push_back({std::move(f), std::string_view(collection) == "aiconfigurator_sglang"});
    }
    if (files.empty())
        throw load_error(data_dir.string(), 0, 0, std::string("expected aiconfigurator*/<gpu>/") + table + " files, found none");
    attention_exclusions local;
    std::vector<measured_attention> rows;
    for (const entry& e : files) {
        const std::string gpu = gpu_of_folder(e.file.parent_path());
        read_attention_file(e.file, gpu, e.sglang, stage, rows, skipped != nullptr ? *skipped : local);
    }
    return rows;
}

}  // namespace synperf::data

namespace synperf::train {

/// What the two attention families' training sources share: the rows of one phase of
/// aiconfigurator*/<gpu>/{context,generation}_attention_perf.csv and the GEMM split.
template <class F, family::attention::phase Stage>
struct attention_source {
    static data::protocol protocol() { return data::gemm_protocol(); }  // attention uses the GEMM split (docs/method.md#splits)

    /// Datasheet roofline: max of the useful MMA flop at the dense tensor peak and Q + K + V + O bytes at DRAM
    /// bandwidth.
    static double roofline_us(const family::attention::attention_problem& p, const gpu::gpu_numbers& g) {
        const double flop = 2.0 * double(p.head_dim + p.dv()) * p.attended_pairs() * double(p.heads);
        const gpu::tensor_dtype t = p.fp8_compute ? gpu::tensor_dtype::fp8 : gpu::tensor_dtype::bf16;
        const double tflops = g.tensor_tflops(t) > 0 ? g.tensor_tflops(t) : g.tensor_tflops(gpu::tensor_dtype::bf16);
        const double q_o = double(p.q_tokens()) * double(p.heads) * double(p.head_dim + p.dv()) * 2.0;
        const double kv = double(p.kv_tokens()) * double(p.kv_heads) * double(p.head_dim + p.dv()) * p.kv_bytes_per_element();
        return std::max(flop / (tflops * 1e6), (q_o + kv) / (g.dram_gbps * 1e3));
    }

    static std::vector<sample> load(const std::filesystem::path& dir, const data::protocol& proto,
                                    const work::kernel_kind_set& priced, std::vector<std::string>& notes) {
        namespace at = family::attention;
        data::attention_exclusions skipped;
        const std::vector<data::measured_attention> rows = data::read_attention_rows(dir, Stage, &skipped);
        if (skipped.flashinfer_wrapper > 0)
            notes.push_back(std::to_string(skipped.flashinfer_wrapper) +
                            " TRT-LLM torch_flow_flashinfer rows left out: a FlashInfer wrapper around the gen "
                            "kernels with RoPE excluded, a different op composition");
        if (skipped.b200_sglang_window_zero > 0)
            notes.push_back(std::to_string(skipped.b200_sglang_window_zero) +
                            " B200 SGLang prefill rows with window_size 0 read as a one-token window (likely "
                            "passed to SGLang as window_left 0): as full causal they would run up to 14.6x the "
                            "tensor peak (MANIFEST.md, known anomalies)");
        return analyze_rows(rows, [&](const data::measured_attention& r, const gpu::gpu_numbers& g, sample& s) {
            prediction p = synperf::analyze<F>(r.problem, g, priced);
            s.gpu = r.gpu;
            s.framework = r.framework;
            s.kernel = r.kernel_source;
            s.take_analysis(std::move(p));
            s.level = F::framework_level(r.framework);
            s.latency_us = r.latency_us;
            s.roofline_us = roofline_us(at::effective_problem(r.problem, g), g);
            s.label = proto.label(r.gpu);
            s.part = data::part_of(r.shape_hash);
            const at::request_group& q = r.problem.requests.front();
            s.key = {q.count, q.q_len, q.kv_len, r.problem.heads, r.problem.kv_heads, r.problem.head_dim,
                     r.problem.window * 4 + static_cast<std::int64_t>(r.problem.kv_type) * 2 + (r.problem.fp8_compute ? 1 : 0),
                     static_cast<std::int64_t>(r.latency_us * 1e3)};
            s.key_size = 8;
        });
    }

    // SGLang on an unseen architecture runs a kernel path no training GPU ran (Triton on sm_120, FA3's Sm80
    // path on A100 next to L40S's sm_89 tiles): the looser target applies to these rows.
    static bool flag(const sample& s) { return s.label == data::split::unseen_arch && s.framework == "sglang"; }
    static constexpr std::string_view flag_meaning =
        "the GPU runs a kernel path not seen in training (SGLang's Triton path on sm_120, FA3's Sm80 path on A100)";
};

/// The prefill attention family's training source: aiconfigurator*/<gpu>/context_attention_perf.csv.
template <>
struct source<family::attention_prefill> : attention_source<family::attention_prefill, family::attention::phase::prefill> {
    static constexpr std::string_view summary = "prefill attention (aiconfigurator*/<gpu>/context_attention_perf.csv)";
    static constexpr std::string_view data_credit = "data=aiconfigurator(Apache-2.0) context_attention_perf";
};

/// The decode attention family's training source: aiconfigurator*/<gpu>/generation_attention_perf.csv.
template <>
struct source<family::attention_decode> : attention_source<family::attention_decode, family::attention::phase::decode> {
    static constexpr std::string_view summary = "decode attention (aiconfigurator*/<gpu>/generation_attention_perf.csv)";
    static constexpr std::string_view data_credit = "data=aiconfigurator(Apache-2.0) generation_attention_perf";
};

}  // namespace synperf::train
