// SPDX-License-Identifier: Apache-2.0
#pragma once
/// \file What the predict commands of the memory-bound families (RMSNorm, SiLU-and-mul, element-wise ops) share: the
/// activation dtype and framework options, and the launch they report (`family::predict_command`).
#include <string>
#include <string_view>
#include <vector>

#include "synperf/error.hpp"
#include "synperf/family/command.hpp"
#include "synperf/family/memory_bound.hpp"
#include "synperf/family/report.hpp"
#include "synperf/predictor/prediction.hpp"

namespace synperf::family::memory_bound {

/// The inputs every memory-bound command has: the activation dtype and the framework (empty: the op's collector).
struct common_inputs {
    std::string dtype = "fp16";
    std::string framework;
};

inline constexpr auto dtype_option =
    option("--dtype", &common_inputs::dtype, "activation dtype: bf16, fp16 or fp32").show_default();

/// The `--framework` option; `help` names the frameworks and the default.
[[nodiscard]] constexpr auto framework_option(std::string_view help) noexcept {
    return option("--framework", &common_inputs::framework, help);
}

/// Element size of an activation dtype as `--dtype` names it.
[[nodiscard]] inline int element_bytes(std::string_view dtype, std::string_view family) {
    if (dtype == "bf16" || dtype == "fp16") return 2;
    if (dtype == "fp32") return 4;
    synperf::detail::report_error(std::string(family) + ": unknown --dtype '" + std::string(dtype) + "'; known: bf16, fp16, fp32");
}

/// The launch of the op's kernel and its cost terms, as a prediction's JSON reports them.
[[nodiscard]] inline report launch_fields(const plan& pl, const prediction& r) {
    const launch_shape& s = pl.shapes.front();
    const kernel_report& k = r.kernels.front();
    report out{{"kernel", k.name},       {"grid_ctas", s.ctas},      {"threads", s.threads},
               {"vector_bytes", s.vector_bytes}, {"smem_bytes", s.smem}, {"ctas_per_sm", k.ctas_per_sm},
               {"waves", k.waves},        {"busy_sms", k.busy_sms},   {"footprint_bytes", pl.footprint_bytes}};
    return out.merge(cost_terms(k));
}

/// A prediction's text: `what` the op is, the GPU and framework, the prediction, the kernel and its launch.
template <class Predicted>
[[nodiscard]] std::vector<std::string> text_of(std::string_view what, const Predicted& o) {
    const launch_shape& s = o.plan.shapes.front();
    const kernel_report& k = o.result.kernels.front();
    std::vector<std::string> out{text::cat(what, " on ", o.gpu.name, " (", o.gpu.display_name, "), framework ", o.framework)};
    for (std::string& line : text::prediction_lines(o.result)) out.push_back(std::move(line));
    out.push_back(text::cat("  kernel       ", k.name, ": ", s.threads, " threads, ", s.vector_bytes, "-byte accesses",
                            s.smem > 0 ? text::cat(", ", s.smem, " B shared memory") : std::string()));
    out.push_back(text::cat("  launch       ", s.ctas, " CTAs, ", k.ctas_per_sm, " CTA/SM, ", text::fixed(k.waves, 2), " waves, ",
                            k.busy_sms, " SMs busy; ", text::fixed(o.plan.footprint_bytes, 0), " bytes moved once"));
    return out;
}

}  // namespace synperf::family::memory_bound
