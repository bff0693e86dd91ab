// SPDX-License-Identifier: Apache-2.0
#pragma once
/// \file `synperf predict silu_mul`: the SiLU-and-mul family's predict command (`family::predict_command`).
#include <cstdint>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include "synperf/error.hpp"
#include "synperf/family/command.hpp"
#include "synperf/family/memory_bound_command.hpp"
#include "synperf/family/report.hpp"
#include "synperf/family/silu_mul.hpp"

namespace synperf::family {

template <>
struct predict_command<silu_mul> {
    static constexpr std::string_view summary =
        "SiLU-and-mul of the gated MLP: out = silu(x[:, :d]) * x[:, d:], one CTA per token";

    struct inputs : memory_bound::common_inputs {
        std::int64_t tokens = 0, d = 0;
        std::string kernel = "vllm_scalar";
    };
    static constexpr auto options = std::tuple{
        option("--tokens", &inputs::tokens, "rows (tokens)").column("tokens").needed(),
        option("--d,--intermediate", &inputs::d, "output columns: the intermediate size per tensor-parallel rank (input has 2 d)")
            .column("d")
            .needed(),
        option("--kernel", &inputs::kernel, "vllm_scalar or flashinfer").one_of("vllm_scalar flashinfer").show_default(),
        memory_bound::dtype_option,
        memory_bound::framework_option("vllm (also vidur, sarathi: the collector the model mimics; default vllm)")};

    static silu_mul_impl parse_kernel(std::string_view s) {
        for (silu_mul_impl i : {silu_mul_impl::vllm_scalar, silu_mul_impl::flashinfer})
            if (s == to_string(i)) return i;
        synperf::detail::report_error("silu_mul: unknown --kernel '" + std::string(s) + "'; known: vllm_scalar, flashinfer");
    }
    static silu_mul_problem problem(const inputs& in, const target_gpu&) {
        return {in.tokens, in.d, memory_bound::element_bytes(in.dtype, silu_mul::name), parse_kernel(in.kernel)};
    }
    static std::string framework(const inputs& in, const silu_mul_problem&) { return in.framework.empty() ? "vllm" : in.framework; }

    using predicted = family::predicted<inputs, silu_mul_problem, memory_bound::plan>;
    static void json(report& out, const predicted& o) {
        out.merge({{"tokens", o.problem.tokens}, {"d", o.problem.d}, {"dtype", o.inputs.dtype}, {"implementation", o.inputs.kernel}});
        out.merge(memory_bound::launch_fields(o.plan, o.result));
    }
    static std::vector<std::string> text(const predicted& o) {
        const silu_mul_problem& p = o.problem;
        return memory_bound::text_of(text::cat("silu_and_mul tokens=", p.tokens, " d=", p.d, " (input [", p.tokens, ", ", 2 * p.d,
                                               "]) ", o.inputs.dtype, " (", o.inputs.kernel, ")"),
                                     o);
    }
};

}  // namespace synperf::family
