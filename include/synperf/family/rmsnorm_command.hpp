// SPDX-License-Identifier: Apache-2.0
#pragma once
/// \file `synperf predict rmsnorm`: the RMSNorm family's predict command (`family::predict_command`).
#include <cstdint>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include "synperf/error.hpp"
#include "synperf/family/command.hpp"
#include "synperf/family/memory_bound_command.hpp"
#include "synperf/family/report.hpp"
#include "synperf/family/rmsnorm.hpp"

namespace synperf::family {

template <>
struct predict_command<rmsnorm> {
    static constexpr std::string_view summary = "RMSNorm, plain or fused with the residual add: one CTA per token";

    struct inputs : memory_bound::common_inputs {
        std::int64_t tokens = 0, hidden = 0;
        bool fused_add = false;
        std::string kernel = "vllm_scalar";
    };
    static constexpr auto options = std::tuple{
        option("--tokens", &inputs::tokens, "rows (tokens)").column("tokens").needed(),
        option("--hidden", &inputs::hidden, "row length (hidden size)").column("hidden").needed(),
        option("--fused-add", &inputs::fused_add, "fused residual add + norm (reads and writes the residual too)"),
        option("--kernel", &inputs::kernel, "vllm_scalar, vllm_vectorized or flashinfer")
            .one_of("vllm_scalar vllm_vectorized flashinfer")
            .show_default(),
        memory_bound::dtype_option,
        memory_bound::framework_option("vllm (also vidur, sarathi: the collector the model mimics; default vllm)")};

    static rmsnorm_impl parse_kernel(std::string_view s) {
        for (rmsnorm_impl i : {rmsnorm_impl::vllm_scalar, rmsnorm_impl::vllm_vectorized, rmsnorm_impl::flashinfer})
            if (s == to_string(i)) return i;
        synperf::detail::report_error("rmsnorm: unknown --kernel '" + std::string(s) + "'; known: vllm_scalar, vllm_vectorized, flashinfer");
    }
    static rmsnorm_problem problem(const inputs& in, const target_gpu&) {
        return {in.tokens, in.hidden, in.fused_add, memory_bound::element_bytes(in.dtype, rmsnorm::name), parse_kernel(in.kernel)};
    }
    static std::string framework(const inputs& in, const rmsnorm_problem&) { return in.framework.empty() ? "vllm" : in.framework; }

    using predicted = family::predicted<inputs, rmsnorm_problem, memory_bound::plan>;
    static void json(report& out, const predicted& o) {
        const rmsnorm_problem& p = o.problem;
        out.merge({{"tokens", p.tokens}, {"hidden", p.hidden}, {"fused_add", p.fused_add}, {"dtype", o.inputs.dtype},
                   {"implementation", o.inputs.kernel}});
        out.merge(memory_bound::launch_fields(o.plan, o.result));
    }
    static std::vector<std::string> text(const predicted& o) {
        const rmsnorm_problem& p = o.problem;
        return memory_bound::text_of(text::cat(p.fused_add ? "fused_add_rms_norm" : "rms_norm", " tokens=", p.tokens, " hidden=",
                                               p.hidden, " ", o.inputs.dtype, " (", o.inputs.kernel, ")"),
                                     o);
    }
};

}  // namespace synperf::family
