// SPDX-License-Identifier: Apache-2.0
#pragma once
/// \file Vidur's per-op timings of one transformer layer (vidur/compute/<gpu>/<org>__<model>__mlp.csv):
/// fp16, sarathi-serve (vLLM-derived) kernels, median device time per op in milliseconds.
#include <algorithm>
#include <array>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "synperf/data/csv.hpp"
#include "synperf/data/gpu_folder.hpp"
#include "synperf/data/protocol.hpp"
#include "synperf/error.hpp"
#include "synperf/gpu/registry.hpp"

namespace synperf::data {

/// The Vidur ops the memory-bound families use, in the order of `vidur_row::median_us`.
inline constexpr std::array<std::string_view, 6> vidur_ops{"input_layernorm", "post_attention_layernorm", "mlp_act",
                                                           "add", "attn_rope", "emb"};

/// One row of a Vidur mlp table: the model, the token count, the tensor-parallel degree and the op medians.
struct vidur_row {
    std::string gpu;    ///< canonical GPU id
    std::string model;  ///< <org>__<model>
    std::string source;     ///< the file it was read from
    std::size_t line = 0;   ///< its line there (for errors about the problems built from it)
    std::int64_t tokens = 0;
    std::int64_t tp = 1;  ///< num_tensor_parallel_workers
    std::int64_t n_head = 0, n_kv_head = 0, n_embd = 0, n_expanded_embd = 0, vocab = 0;
    bool gated = true;                             ///< use_gated_mlp (SiLU-and-mul; false: GELU, LayerNorm)
    std::array<double, vidur_ops.size()> median_us{};  ///< time_stats.<op>.median in µs (0: missing)
};

/// What the Vidur readers left out.
struct vidur_exclusions {
    std::size_t non_gated = 0;  ///< rows of non-gated models (phi-2: LayerNorm and GELU, not RMSNorm / SiLU)
};

/// The families trained on Vidur's rows: Vidur has three GPUs, evaluated leave-one-GPU-out (`loo`, docs/method.md#leave-one-gpu-out).
[[nodiscard]] inline protocol vidur_protocol() { return protocol{{"a100_sxm", "a40", "h100_sxm"}, {}}; }

/// Reads one Vidur mlp table; `gpu` is the folder's GPU.
inline void read_vidur_file(const std::filesystem::path& file, const std::string& gpu, std::vector<vidur_row>& out,
                            vidur_exclusions* skipped) {
    const csv_table t = csv_table::load(file.string());
    const std::size_t c_tokens = t.column("num_tokens"), c_tp = t.column("num_tensor_parallel_workers"),
                      c_head = t.column("n_head"), c_kv = t.column("n_kv_head"), c_embd = t.column("n_embd"),
                      c_exp = t.column("n_expanded_embd"), c_vocab = t.column("vocab_size"), c_gated = t.column("use_gated_mlp");
    // Non-gated models have no post-attention norm column; their rows are left out before it is needed.
    const auto op_column = [&](std::size_t i) { return t.column("time_stats." + std::string(vidur_ops[i]) + ".median"); };
    std::string model = file.filename().string();
    if (model.ends_with("__mlp.csv")) model.resize(model.size() - 9);
    for (std::size_t r = 0; r < t.rows(); ++r) {
        const std::string_view gated = t.field(r, c_gated);
        if (gated != "True" && gated != "False")
            throw load_error(file.string(), t.line(r), 0, "column 'use_gated_mlp': expected True or False, got " + std::string(gated));
        if (gated == "False") {
            if (skipped != nullptr) ++skipped->non_gated;
            continue;
        }
        vidur_row v;
        v.gpu = gpu;
        v.model = model;
        v.source = file.string();
        v.line = t.line(r);
        v.tokens = t.positive_integer(r, c_tokens);
        v.tp = t.positive_int(r, c_tp);
        v.n_head = t.positive_int(r, c_head);
        v.n_kv_head = t.positive_int(r, c_kv);
        v.n_embd = t.positive_int(r, c_embd);
        v.n_expanded_embd = t.positive_integer(r, c_exp);
        v.vocab = t.positive_integer(r, c_vocab);
        if (v.n_head % v.tp != 0 || v.n_kv_head % v.tp != 0 || v.n_expanded_embd % v.tp != 0 || v.vocab % v.tp != 0 ||
            v.n_embd % v.n_head != 0)
            throw load_error(file.string(), t.line(r), 0,
                             "expected heads, kv heads, n_expanded_embd and vocab_size divisible by num_tensor_parallel_workers = " +
                                 std::to_string(v.tp) + " and n_embd divisible by n_head");
        for (std::size_t i = 0; i < vidur_ops.size(); ++i) v.median_us[i] = t.time_us(r, op_column(i), 1e3);
        v.gated = true;
        out.push_back(std::move(v));
    }
}

/// Every gated-model row under `data_dir`/vidur/compute, in a stable order (GPU folder, then file).
[[nodiscard]] inline std::vector<vidur_row> read_vidur_rows(const std::filesystem::path& data_dir,
                                                            vidur_exclusions* skipped = nullptr) {
    namespace fs = std::filesystem;
    const fs::path root = data_dir / "vidur" / "compute";
    std::error_code ec;
    if (!fs::is_directory(root, ec)) throw load_error(root.string(), 0, 0, "expected the vidur/compute/<gpu>/ folders, found none");
    std::vector<fs::path> files;
    for (const auto& gpu_dir : fs::directory_iterator(root)) {
        if (!gpu_dir.is_directory()) continue;
        for (const auto& f : fs::directory_iterator(gpu_dir.path()))
            if (f.path().filename().string().ends_with("__mlp.csv")) files.push_back(f.path());
    }
    std::sort(files.begin(), files.end());
    if (files.empty()) throw load_error(root.string(), 0, 0, "expected vidur/compute/<gpu>/*__mlp.csv files, found none");
    std::vector<vidur_row> rows;
    for (const fs::path& f : files) read_vidur_file(f, gpu_of_folder(f.parent_path()), rows, skipped);
    return rows;
}

/// Median of op `name` in a row, µs.
[[nodiscard]] inline double vidur_median_us(const vidur_row& r, std::string_view name) {
    for (std::size_t i = 0; i < vidur_ops.size(); ++i)
        if (vidur_ops[i] == name) return r.median_us[i];
    throw invalid_argument("synperf: unknown Vidur op '" + std::string(name) + "'");
}

}  // namespace synperf::data
