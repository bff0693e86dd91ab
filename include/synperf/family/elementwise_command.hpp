// SPDX-License-Identifier: Apache-2.0
#pragma once
/// \file `synperf predict elementwise`: the elementwise family's predict command (`family::predict_command`). `--op`
/// picks the variant: each op takes its own sizes, and a size of another op is refused.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include "synperf/error.hpp"
#include "synperf/family/command.hpp"
#include "synperf/family/elementwise.hpp"
#include "synperf/family/memory_bound_command.hpp"
#include "synperf/family/report.hpp"

namespace synperf::family {

template <>
struct predict_command<elementwise> {
    static constexpr std::string_view summary = "FP8 quantize, residual add, RoPE or the embedding gather";

    struct inputs : memory_bound::common_inputs {
        std::string op;
        std::string gather = "index_select";
        std::int64_t rows = 0, cols = 0, vocab = 0;
        int heads = 0, kv_heads = 0, head_dim = 0, rotary_dim = 0;
    };

    static elementwise_kind parse_op(std::string_view s) {
        for (auto k : {elementwise_kind::fp8_quantize, elementwise_kind::residual_add, elementwise_kind::rope, elementwise_kind::embedding})
            if (s == to_string(k)) return k;
        synperf::detail::report_error("elementwise: unknown --op '" + std::string(s) + "'; known: fp8_quantize, residual_add, rope, embedding");
    }
    /// The variant is the op (`elementwise_kind`).
    static std::size_t variant(const inputs& in) { return static_cast<std::size_t>(parse_op(in.op)); }
    static std::string variant_name(const inputs& in) { return "--op " + in.op; }

    static constexpr variant_mask rope = variant_bit(std::size_t(elementwise_kind::rope));
    static constexpr variant_mask embedding = variant_bit(std::size_t(elementwise_kind::embedding));
    static constexpr variant_mask with_cols = every_variant & ~rope;  // RoPE's row is its heads

    static constexpr auto options = std::tuple{
        option("--op", &inputs::op, "fp8_quantize, residual_add, rope or embedding")
            .one_of("fp8_quantize residual_add rope embedding")
            .required(),
        option("--rows,--tokens", &inputs::rows, "rows (tokens)").column("rows", "tokens").needed(),
        option("--cols,--hidden", &inputs::cols, "elements per row (fp8_quantize: k; residual_add, embedding: hidden)")
            .column("cols", "hidden")
            .needed(with_cols)
            .only_for(with_cols),
        option("--heads", &inputs::heads, "rope: query heads per tensor-parallel rank").column("heads").needed(rope).only_for(rope),
        option("--kv-heads", &inputs::kv_heads, "rope: key heads per rank (default: --heads)").column("kv_heads").positive().only_for(rope),
        option("--head-dim", &inputs::head_dim, "rope: head size").column("head_dim").needed(rope).only_for(rope),
        option("--rotary-dim", &inputs::rotary_dim, "rope: rotated dimensions (default: head size)")
            .column("rotary_dim")
            .positive()
            .only_for(rope),
        option("--vocab", &inputs::vocab, "embedding: table rows per rank").column("vocab").needed(embedding).only_for(embedding),
        option("--gather", &inputs::gather,
               "embedding: PyTorch's kernel for more than 16 rows: index_select (indexSelectLargeIndex, the PyTorch Vidur "
               "measured) or vectorized (vectorized_gather_kernel, current PyTorch)")
            .one_of("index_select vectorized")
            .show_default()
            .only_for(embedding),
        memory_bound::dtype_option,
        memory_bound::framework_option("trtllm or vidur (also vllm, sarathi, torch; default: fp8_quantize trtllm, the others vidur)")};

    static elementwise_problem problem(const inputs& in, const target_gpu&) {
        elementwise_problem p;
        p.kind = parse_op(in.op);
        p.rows = in.rows;
        p.cols = in.cols;
        p.heads = in.heads;
        p.kv_heads = in.kv_heads == 0 && p.kind == elementwise_kind::rope ? in.heads : in.kv_heads;  // 0: not given
        p.head_dim = in.head_dim;
        p.rotary_dim = in.rotary_dim;
        p.vocab = in.vocab;
        p.gather = in.gather == "vectorized" ? gather_kernel::vectorized : gather_kernel::index_select;
        // The activation dtype (FP8 quantize reads a 16-bit one: the family refuses 4-byte elements for it).
        p.element_bytes = memory_bound::element_bytes(in.dtype, elementwise::name);
        return p;
    }
    /// Each op's measurements come from one collector: TensorRT-LLM's for the quantize, Vidur's for the rest.
    static std::string framework(const inputs& in, const elementwise_problem& p) {
        if (!in.framework.empty()) return in.framework;
        return p.kind == elementwise_kind::fp8_quantize ? "trtllm" : "vidur";
    }

    using predicted = family::predicted<inputs, elementwise_problem, memory_bound::plan>;
    static void json(report& out, const predicted& o) {
        const elementwise_problem& p = o.problem;
        out.merge({{"op", to_string(p.kind)}, {"rows", p.rows}});
        if (p.kind == elementwise_kind::rope)
            out.merge({{"heads", p.heads}, {"kv_heads", p.kv_heads}, {"head_dim", p.head_dim}, {"rotary_dim", elementwise_detail::rot(p)}});
        else
            out.set("cols", p.cols);
        if (p.kind == elementwise_kind::embedding)
            out.merge({{"vocab", p.vocab}, {"gather", to_string(p.gather)},
                       {"gather_kernel_runs", runs_vectorized_gather(p) ? "vectorized" : "index_select"}});
        out.set("dtype", o.inputs.dtype);
        out.merge(memory_bound::launch_fields(o.plan, o.result));
    }
    static std::vector<std::string> text(const predicted& o) {
        const elementwise_problem& p = o.problem;
        std::string what = text::cat("elementwise ", to_string(p.kind), " rows=", p.rows);
        if (p.kind == elementwise_kind::rope)
            what += text::cat(" heads=", p.heads, " kv_heads=", p.kv_heads, " head_dim=", p.head_dim, " rotary_dim=", elementwise_detail::rot(p));
        else
            what += text::cat(" cols=", p.cols);
        if (p.kind == elementwise_kind::embedding) {
            // A vectorized gather asked for where PyTorch runs index_select's kernels says so.
            const bool fallback = p.gather == gather_kernel::vectorized && !runs_vectorized_gather(p);
            what += text::cat(" vocab=", p.vocab, " gather=", to_string(p.gather),
                              !fallback       ? ""
                              : p.rows <= 16 ? " (16 rows or fewer: PyTorch's small-index kernel runs)"
                                             : " (rows not whole 16-byte vectors: index_select runs)");
        }
        what += text::cat(" ", o.inputs.dtype, p.kind == elementwise_kind::fp8_quantize ? " -> e4m3" : "");
        return memory_bound::text_of(what, o);
    }
};

}  // namespace synperf::family
