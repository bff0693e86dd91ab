// SPDX-License-Identifier: Apache-2.0
#pragma once
/// \file Memory-bound elementwise kernels of an LLM layer: static per-tensor FP8 quantize, residual add,
/// rotary embedding (RoPE) and the embedding gather, each with the launch of the library that runs it.
///
/// - `fp8_quantize` (TensorRT-LLM static_quantize_e4m3_per_tensor, common/cudaFp8Utils.cu
///   scaleMatrixPerTensorVec): bf16 [rows, cols] -> e4m3; 256 threads, 8 elements (16 B) per access,
///   grid = min(ceil(n / 2048), 65536), grid-stride loop. Per element: a divide by the scale (MUFU.RCP +
///   2 FFMA) and the conversion; 2 B read, 1 B written.
/// - `residual_add` (PyTorch vectorized_elementwise_kernel): 128 threads x 4 elements, grid = ceil(n / 512);
///   reads two tensors, writes one.
/// - `rope` (vLLM / sarathi-serve rotary_embedding_kernel, GPT-NeoX style, in place on q and k): grid =
///   tokens, block = min(heads x rotary_dim / 2, 512); per rotated pair 2 loads and 2 stores of q / k
///   elements, a cos and a sin from the cache row of the token's position, 4 FMA.
/// - `embedding` (PyTorch F.embedding -> index_select): at most 16 indices: indexSelectSmallIndex, grid =
///   min(ceil(cols / 128), 8 x SMs), each thread loops over every index; more: indexSelectLargeIndex,
///   grid = min(ceil(rows x cols / 128), 8 x SMs), 128 threads, one element per access, grid-stride (the
///   PyTorch Vidur profiled), or, with `gather_kernel::vectorized`, vectorized_gather_kernel
///   (ATen/native/cuda/IndexKernelUtils.cu; what torch 2.11 runs, bench/measure/h200_sxm/
///   elementwise_kernels.csv): grid (rows, ceil(row bytes / 4096)), min(256, row bytes / 16 rounded up to a
///   warp) threads, 16 bytes per access; each CTA loads its index, then copies its part of the row.
/// The compulsory work is the unique footprint (split at L2 capacity) and the useful FMA. RoPE and the
/// embedding gather (a CTA per token or a capped grid, one element per access) also state their memory
/// rounds, for the latency floor; FP8 quantize and residual add size their grid to the data with 16-byte
/// accesses, so they keep enough bytes in flight and have none.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "synperf/detail/hash.hpp"
#include "synperf/error.hpp"
#include "synperf/family/concept.hpp"
#include "synperf/family/memory_bound.hpp"
#include "synperf/features/analysis.hpp"
#include "synperf/gpu/numbers.hpp"
#include "synperf/work/launch.hpp"

namespace synperf::family {

/// Which elementwise op.
enum class elementwise_kind { fp8_quantize, residual_add, rope, embedding };

/// PyTorch's kernel for an embedding gather of more than 16 rows: `index_select` (indexSelectLargeIndex,
/// one element per access: the PyTorch of Vidur's measurements) or `vectorized` (vectorized_gather_kernel,
/// 16 bytes per access, when a row is a multiple of 16 bytes: current PyTorch).
enum class gather_kernel { index_select, vectorized };

[[nodiscard]] constexpr std::string_view to_string(gather_kernel k) noexcept {
    return k == gather_kernel::vectorized ? "vectorized" : "index_select";
}

[[nodiscard]] constexpr std::string_view to_string(elementwise_kind k) noexcept {
    switch (k) {
        case elementwise_kind::fp8_quantize: return "fp8_quantize";
        case elementwise_kind::residual_add: return "residual_add";
        case elementwise_kind::rope: return "rope";
        case elementwise_kind::embedding: return "embedding";
    }
    return "?";
}

/// One elementwise op. `rows` is the token count (the quantized matrix's m); `cols` the elements per row
/// (k, hidden). RoPE takes its row from heads, kv_heads and head_dim; the embedding gathers `rows` rows of
/// `cols` elements from a table of `vocab` rows.
struct elementwise_problem {
    elementwise_kind kind = elementwise_kind::fp8_quantize;
    std::int64_t rows = 0;
    std::int64_t cols = 0;       ///< elements per row (not used by rope)
    int heads = 0;               ///< rope: query heads (per tensor-parallel rank)
    int kv_heads = 0;            ///< rope: key heads (per rank)
    int head_dim = 0;            ///< rope: head size
    int rotary_dim = 0;          ///< rope: rotated dimensions (0 = head_dim)
    std::int64_t vocab = 0;      ///< embedding: table rows (per rank)
    gather_kernel gather = gather_kernel::index_select;  ///< embedding: PyTorch's kernel for more than 16 rows
    int element_bytes = 2;       ///< activation element size; fp8_quantize reads bf16 (2)

    friend bool operator==(const elementwise_problem&, const elementwise_problem&) = default;
    friend std::size_t hash_value(const elementwise_problem& p) noexcept {
        return synperf::detail::hash_fields(p.kind, p.rows, p.cols, p.heads, p.kv_heads, p.head_dim, p.rotary_dim, p.vocab, p.gather,
                                            p.element_bytes);
    }
};

/// Whether an embedding runs PyTorch's vectorized gather: asked for (`gather`), more than 16 rows (PyTorch keeps its
/// small-index kernel up to 16) and rows a whole number of 16-byte vectors; otherwise index_select's kernels run.
[[nodiscard]] inline bool runs_vectorized_gather(const elementwise_problem& p) noexcept {
    return p.kind == elementwise_kind::embedding && p.gather == gather_kernel::vectorized && p.rows > 16 &&
           (p.cols % 16) * p.element_bytes % 16 == 0;  // no overflow before validation
}

namespace elementwise_detail {

using memory_bound::ceil_div;

inline int rot(const elementwise_problem& p) { return p.rotary_dim > 0 ? p.rotary_dim : p.head_dim; }

/// Elements per row: cols, or for RoPE the rotated elements of q and k.
inline double row_elements(const elementwise_problem& p) {
    if (p.kind == elementwise_kind::rope) return double(p.heads + p.kv_heads) * rot(p);
    return double(p.cols);
}

/// Unique bytes read + written, once each.
inline double footprint(const elementwise_problem& p) {
    const double n = double(p.rows) * row_elements(p), e = p.element_bytes;
    switch (p.kind) {
        case elementwise_kind::fp8_quantize: return n * 3.0;
        case elementwise_kind::residual_add: return n * 3.0 * e;
        case elementwise_kind::rope: return 2.0 * n * e + double(p.rows) * rot(p) * e;  // q, k in place + cos/sin rows
        case elementwise_kind::embedding: return 2.0 * n * e + double(p.rows) * 8.0;  // gathered rows, output, int64 ids
    }
    return 0;
}

/// Useful FP32 work per element.
inline double fma_per_element(elementwise_kind k) {
    switch (k) {
        case elementwise_kind::fp8_quantize: return 1.0;  // one scaling multiply
        case elementwise_kind::residual_add: return 1.0;
        case elementwise_kind::rope: return 2.0;          // 4 FMA per pair of elements
        case elementwise_kind::embedding: return 0.0;
    }
    return 0;
}

inline memory_bound::launch_shape shape(const elementwise_problem& p, const gpu::gpu_numbers& g) {
    memory_bound::launch_shape s;
    const double e = p.element_bytes;
    const double n = double(p.rows) * row_elements(p);
    switch (p.kind) {
        case elementwise_kind::fp8_quantize: {
            s.threads = 256;
            s.ctas = std::clamp<std::int64_t>(ceil_div(p.rows * p.cols / 8, 256), 1, 65536);
            s.vector_bytes = 16;
            const double per_thread = n / (double(s.ctas) * s.threads * 8.0);
            s.accesses_per_thread = 2.0 * std::max(1.0, std::ceil(per_thread));
            s.cta.l2_bytes = n * 3.0 / double(s.ctas);
            s.cta.fma_ops = n * 2.0 / double(s.ctas);
            s.cta.xu_ops = n / double(s.ctas);
            s.name = "scaleMatrixPerTensorVec";
            break;
        }
        case elementwise_kind::residual_add: {
            s.threads = 128;
            s.ctas = ceil_div(p.rows * p.cols, 512);
            s.vector_bytes = int(4 * e);
            s.accesses_per_thread = 3.0;
            s.cta.l2_bytes = n * 3.0 * e / double(s.ctas);
            s.cta.fma_ops = n / double(s.ctas);
            s.name = "vectorized_elementwise_kernel_add";
            break;
        }
        case elementwise_kind::rope: {
            const std::int64_t pairs_q = std::int64_t(p.heads) * rot(p) / 2, pairs = std::int64_t(p.heads + p.kv_heads) * rot(p) / 2;
            s.threads = int(std::clamp<std::int64_t>(pairs_q, 1, 512));
            s.ctas = p.rows;
            s.vector_bytes = int(e);
            s.accesses_per_thread = 6.0 * double(ceil_div(pairs, s.threads));
            s.memory_rounds = 2.0 * double(ceil_div(pairs, s.threads));  // a pair's loads overlap, then its stores
            s.cta.l2_bytes = double(pairs) * 4.0 * e + rot(p) * e;
            s.cta.fma_ops = double(pairs) * 4.0;
            s.name = "rotary_embedding_kernel_neox";
            break;
        }
        case elementwise_kind::embedding: {
            const std::int64_t cap = std::int64_t(g.sm_count) * 8;
            const bool small = p.rows <= 16;
            const auto row_bytes = std::int64_t(double(p.cols) * e);
            if (runs_vectorized_gather(p)) {
                const std::int64_t vectors = row_bytes / 16;
                const std::int64_t grid_y = ceil_div(row_bytes, 256 * 16);
                s.threads = int(std::min<std::int64_t>(256, ceil_div(vectors, 32) * 32));
                s.ctas = p.rows * grid_y;
                s.vector_bytes = 16;
                // grid_y x threads covers the row's vectors, so each thread copies one: the index, then the
                // vector's load (its address waits for the index) and store.
                s.accesses_per_thread = 3.0;
                s.memory_rounds = 3.0;
                s.cta.l2_bytes = (2.0 * double(row_bytes) + 8.0 * double(grid_y)) / double(grid_y);
                // CTAs of one 16-byte copy per thread: like the row kernels of RMSNorm and SiLU&Mul, each wave
                // pays its rounds and its CTA dispatches on top of the transfer.
                s.rounds_then_stream = true;
                s.name = "vectorized_gather_kernel";
                break;
            }
            s.threads = int(std::min<std::int64_t>(small ? p.cols : p.rows * p.cols, 128));
            s.ctas = std::min(ceil_div(small ? p.cols : p.rows * p.cols, 128), cap);
            s.vector_bytes = int(e);
            s.accesses_per_thread = 2.0 * std::ceil(n / (double(s.ctas) * s.threads));
            s.memory_rounds = s.accesses_per_thread;  // the row load, then the store (the index load hits L1)
            s.cta.l2_bytes = (2.0 * n * e + double(p.rows) * 8.0) / double(s.ctas);
            s.name = small ? "indexSelectSmallIndex" : "indexSelectLargeIndex";
            break;
        }
    }
    s.regs = 32;
    return s;
}

}  // namespace elementwise_detail

/// The elementwise family policy.
struct elementwise {
    using problem_type = elementwise_problem;
    using plan_type = memory_bound::plan;
    static constexpr std::string_view name = "elementwise";

    /// Collector semantics: TensorRT-LLM's collector (five calls on the same input in one CUDA graph, replayed;
    /// time per call) and Vidur's (eager PyTorch, profiler device time of the op's kernels).
    static constexpr std::array<std::string_view, 2> framework_levels{"trtllm", "vidur"};
    static std::size_t framework_level(std::string_view framework) {
        if (framework == "trtllm") return 0;
        if (framework == "vidur" || framework == "vllm" || framework == "sarathi" || framework == "torch") return 1;
        synperf::detail::report_error("elementwise: unknown framework '" + std::string(framework) +
                                      "'; known: trtllm, vidur (vllm, sarathi, torch)");
    }

    static constexpr auto feature_names = memory_bound::join_names(
        memory_bound::common_feature_names,
        std::array<std::string_view, 6>{"rows", "row_elements", "kind_quantize", "kind_add", "kind_rope", "kind_embedding"});
    static constexpr std::size_t feature_count = feature_names.size();

    /// Every op here is a grid of independent CTAs: the hardware block scheduler.
    static constexpr work::dispatch_kind main_dispatch(const gpu::gpu_numbers&) noexcept {
        return work::dispatch_kind::hardware;
    }

    /// Bytes the op's tensors take in device memory: what it reads and writes, and the whole embedding table.
    [[nodiscard]] static double device_bytes(const elementwise_problem& p) noexcept {
        const double table = p.kind == elementwise_kind::embedding ? double(p.vocab) * double(p.cols) * p.element_bytes : 0.0;
        return elementwise_detail::footprint(p) + table;
    }

    /// Rejects empty, overflowing and inconsistent shapes.
    static void validate(const elementwise_problem& p) {
        synperf::detail::require_enum(p.kind, elementwise_kind::embedding, "elementwise: unknown kind");
        synperf::detail::require_enum(p.gather, gather_kernel::vectorized, "elementwise: unknown gather kernel");
        const std::string kind(to_string(p.kind));
        const auto fail = [&](const std::string& what) { synperf::detail::report_error("elementwise " + kind + ": " + what); };
        if (p.rows <= 0) fail("rows must be > 0, got " + std::to_string(p.rows));
        if (p.element_bytes != 2 && p.element_bytes != 4)
            fail("element_bytes must be 2 (fp16/bf16) or 4 (fp32), got " + std::to_string(p.element_bytes));
        if (p.kind == elementwise_kind::rope) {
            if (p.heads <= 0 || p.heads > 65536) fail("heads must be in 1..65536, got " + std::to_string(p.heads));
            if (p.kv_heads < 0 || p.kv_heads > p.heads)
                fail("kv_heads must be in 0..heads (" + std::to_string(p.heads) + "), got " + std::to_string(p.kv_heads));
            // Grouped-query attention: each KV head serves the same number of query heads, as the attention family requires.
            if (p.kv_heads > 0 && p.heads % p.kv_heads != 0)
                fail("kv_heads must divide heads (" + std::to_string(p.heads) + " query heads), got " + std::to_string(p.kv_heads));
            if (p.head_dim <= 0 || p.head_dim % 2 != 0) fail("head_dim must be even and > 0, got " + std::to_string(p.head_dim));
            if (p.rotary_dim < 0 || p.rotary_dim % 2 != 0 || p.rotary_dim > p.head_dim)
                fail("rotary_dim must be even and in [0, head_dim], got " + std::to_string(p.rotary_dim));
            if (p.rows > 0x7fffffff) fail("rows must be <= 2^31 - 1 (one CTA per token), got " + std::to_string(p.rows));
        } else if (p.cols <= 0) {
            fail("cols must be > 0, got " + std::to_string(p.cols));
        }
        if (p.kind == elementwise_kind::fp8_quantize && p.element_bytes != 2)
            fail("the FP8 quantize kernel reads a 16-bit input, bf16 or fp16 (element_bytes 2), got " + std::to_string(p.element_bytes));
        if (p.kind == elementwise_kind::fp8_quantize && p.cols % 8 != 0)
            fail("cols must be a multiple of 8 (16-byte vector accesses), got " + std::to_string(p.cols));
        if (p.kind == elementwise_kind::embedding && p.vocab <= 0) fail("vocab must be > 0, got " + std::to_string(p.vocab));
        if (p.kind == elementwise_kind::embedding && p.vocab > 0x7fffffff) fail("vocab must be <= 2^31 - 1, got " + std::to_string(p.vocab));
        if (p.kind == elementwise_kind::embedding && double(p.vocab) * double(p.cols) > 0x1p40)
            fail("the table of vocab x cols = " + synperf::detail::approx(double(p.vocab) * double(p.cols)) + " elements exceeds 2^40 (no GPU holds it)");
        const double n = double(p.rows) * elementwise_detail::row_elements(p);
        if (n > 0x1p40) fail("rows x elements per row = " + synperf::detail::approx(n) + " exceeds 2^40 (no GPU holds it)");
    }

    /// One launch.
    static memory_bound::plan plan(const elementwise_problem& p, const gpu::gpu_numbers& g) {
        validate(p);
        // The e4m3 conversion instructions (cvt.*.e4m3x2) exist from sm_89: TensorRT-LLM's FP8 path needs them.
        if (p.kind == elementwise_kind::fp8_quantize && g.sm_version() < 89)
            synperf::detail::report_error("elementwise fp8_quantize: converting to e4m3 needs compute capability 8.9 or newer; this GPU is sm_" +
                                          std::to_string(g.sm_version()));
        memory_bound::compulsory_work c;
        c.footprint_bytes = elementwise_detail::footprint(p);
        c.fma_ops = elementwise_detail::fma_per_element(p.kind) * double(p.rows) * elementwise_detail::row_elements(p);
        memory_bound::plan out;
        out.shapes.push_back(elementwise_detail::shape(p, g));
        out.kernels.push_back(memory_bound::make_launch(out.shapes[0], c, g));
        out.footprint_bytes = c.footprint_bytes;
        return out;
    }

    /// Model inputs: the common memory-bound features, the shape and the kind (one-hot).
    static std::array<double, feature_count> features(const elementwise_problem& p, const memory_bound::plan& pl,
                                                      std::span<const features::kernel_features> kf,
                                                      const gpu::gpu_numbers& g) {
        const auto is = [&](elementwise_kind k) { return p.kind == k ? 1.0 : 0.0; };
        return memory_bound::join(memory_bound::common_features(pl, kf, g),
                                  std::array<double, 6>{double(p.rows), elementwise_detail::row_elements(p),
                                                        is(elementwise_kind::fp8_quantize), is(elementwise_kind::residual_add),
                                                        is(elementwise_kind::rope), is(elementwise_kind::embedding)});
    }
};

static_assert(KernelFamily<elementwise>);

}  // namespace synperf::family
