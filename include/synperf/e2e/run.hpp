// SPDX-License-Identifier: Apache-2.0
#pragma once
/// \file Execution semantics of a static batch, as SGLang's bench_one_batch measures it: one prefill
/// iteration over every prompt, then `decode_steps` decode iterations in which every request's KV grows by
/// one token; the result is the prefill latency, each decode step's latency, their median and the total.
///
/// Decode step s (0-based) attends over prompt + s + 1 tokens per request (the token produced by the
/// previous iteration is written to the cache first). Each iteration's time is the sum of its kernels'
/// predicted latencies times their counts plus the framework's overheads (overheads.hpp). Identical ops
/// are predicted once (kernel_costs.hpp): a decode step re-predicts only its attention, whose KV changed.
/// The work of a step's attention grows with the KV; a model's predictions can wobble by a fraction of a
/// percent between neighbouring lengths, so a step's attention latency is held at least at the previous
/// step's (the running maximum) — a decode step never gets faster as its KV grows.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "synperf/e2e/kernel_costs.hpp"
#include "synperf/e2e/memory.hpp"
#include "synperf/e2e/model_config.hpp"
#include "synperf/e2e/op.hpp"
#include "synperf/e2e/overheads.hpp"
#include "synperf/e2e/workload.hpp"
#include "synperf/error.hpp"
#include "synperf/family/attention.hpp"
#include "synperf/system/system.hpp"

namespace synperf::e2e {

/// A static-batch run: model, deployment, prompts and decode steps.
struct run_request {
    model_config model;
    deployment deploy;
    std::vector<std::int64_t> prompt_lens;   ///< one per request
    std::int64_t decode_steps = 0;           ///< decode iterations after the prefill
    bool check_memory = true;                ///< throw when the run does not fit in GPU memory
    double per_iteration_us = fitted_iteration_us;  ///< host work per iteration (overheads.hpp)
    /// Called after each decode step with the steps done and the total (progress of a long run); empty: none.
    std::function<void(std::int64_t done, std::int64_t total)> on_decode_step{};
};

/// Time of one op of an iteration.
struct op_time {
    std::string_view name;
    std::size_t family = 0;        ///< position of its family in the estimator's list
    std::string_view family_name;
    std::int64_t count = 0;
    double latency_us = 0;  ///< one launch
    [[nodiscard]] double total_us() const noexcept { return latency_us * double(count); }
};

/// Time of one iteration: kernels by op and by family, and the overheads.
struct iteration_time {
    std::vector<op_time> ops;
    std::vector<double> family_us;              ///< kernel time per family (index: position in the family list)
    std::vector<std::int64_t> family_launches;  ///< launches per family (index: position in the family list)
    double kernel_us = 0;    ///< sum of kernel latencies x counts
    double overhead_us = 0;  ///< launch gaps, host-bound launches and per-iteration host work
    std::int64_t launches = 0;
    [[nodiscard]] double total_us() const noexcept { return kernel_us + overhead_us; }
    /// Launches of the family at position `family` (0 for an iteration not timed).
    [[nodiscard]] std::int64_t launches_of(std::size_t family) const noexcept {
        return family < family_launches.size() ? family_launches[family] : 0;
    }
};

/// The predicted run.
struct run_result {
    double prefill_ms = 0;
    std::vector<double> decode_step_ms;  ///< one per decode step
    double decode_median_ms = 0;
    double total_ms = 0;                 ///< prefill + every decode step
    iteration_time prefill;              ///< breakdown of the prefill
    iteration_time first_decode;         ///< breakdown of the first decode step (if any)
    iteration_time last_decode;          ///< breakdown of the last decode step (if any)
    memory_estimate memory;
    std::size_t evaluations = 0;         ///< distinct ops predicted (family pipeline runs)
    std::size_t memo_hits = 0;           ///< ops answered from the memo
};

/// Median of a list (mean of the two middle values for an even count; 0 for none).
[[nodiscard]] inline double median(std::vector<double> v) {
    if (v.empty()) return 0.0;
    const std::size_t mid = v.size() / 2;
    std::nth_element(v.begin(), v.begin() + std::ptrdiff_t(mid), v.end());
    const double hi = v[mid];
    if (v.size() % 2 == 1) return hi;
    return 0.5 * (hi + *std::max_element(v.begin(), v.begin() + std::ptrdiff_t(mid)));
}

/// Times one iteration with `est`; `attention_floor_us` (decode) holds the decode attention latency at least there.
template <class List>
[[nodiscard]] iteration_time time_iteration(const basic_iteration<List>& it, basic_kernel_estimator<List>& est, const overhead_model& o,
                                            double* attention_floor_us = nullptr) {
    iteration_time t;
    t.ops.reserve(it.ops.size());
    t.family_us.assign(List::size, 0.0);
    t.family_launches.assign(List::size, 0);
    double gaps = 0;
    for (const basic_op<List>& x : it.ops) {
        double us = est.latency_us(x);
        if (attention_floor_us != nullptr && x.template is<family::attention_decode>()) {
            us = std::max(us, *attention_floor_us);
            *attention_floor_us = us;
        }
        const std::size_t f = x.family();
        t.ops.push_back(op_time{x.name, f, x.family_name(), x.count, us});
        t.family_us[f] += us * double(x.count);
        t.family_launches[f] += x.count;
        t.kernel_us += us * double(x.count);
        t.launches += x.count;
        gaps += gap_us(timed_in_cuda_graph_by_index<List>[f], o.graph) * double(x.count);
    }
    t.overhead_us = e2e::overhead_us(o, t.kernel_us, gaps, t.launches);
    return t;
}

/// Checks a host term per iteration: a time in µs, finite and not negative; throws `invalid_argument`.
inline void validate_iteration_us(double us) {
    if (!(us >= 0.0 && us < 1e9))  // NaN fails the comparison too
        synperf::detail::report_error("e2e: host work per iteration must be a finite number of microseconds in [0, 1e9), got " +
                                      synperf::detail::value_text(us));
}

/// The most requests one static batch may hold (far beyond any serving batch; it bounds the work of a run).
inline constexpr std::int64_t max_requests = 65536;

/// Checks a request (lengths, steps, host term, the model's split over TP); throws `invalid_argument`.
inline void validate(const run_request& r) {
    validate(r.model);
    (void)split_heads(r.model, r.deploy.tp);
    (void)moe_tensor_parallel(r.model, r.deploy);
    if (r.prompt_lens.empty()) synperf::detail::report_error("e2e: no prompts: give at least one prompt length");
    if (std::int64_t(r.prompt_lens.size()) > max_requests)
        synperf::detail::report_error("e2e: at most " + std::to_string(max_requests) + " requests per batch, got " +
                                      std::to_string(r.prompt_lens.size()));
    if (r.decode_steps < 0 || r.decode_steps > 1'000'000)
        synperf::detail::report_error("e2e: decode steps must be in 0..1000000, got " + std::to_string(r.decode_steps));
    // Each limit alone admits runs whose prediction takes minutes (65536 requests x 10^6 steps); no batch generates that much.
    if (const std::int64_t generated = std::int64_t(r.prompt_lens.size()) * r.decode_steps; generated > (std::int64_t{1} << 33))
        synperf::detail::report_error("e2e: requests x decode steps must be at most 2^33 generated tokens, got " +
                                      std::to_string(r.prompt_lens.size()) + " x " + std::to_string(r.decode_steps) + " = " +
                                      std::to_string(generated));
    validate_iteration_us(r.per_iteration_us);
    if (r.deploy.node) {
        system::validate(*r.deploy.node);
        if (r.deploy.tp > r.deploy.node->gpus_per_node)
            synperf::detail::report_error("e2e: TP " + std::to_string(r.deploy.tp) + " spans more than one node (" + r.deploy.node->name +
                                          " has " + std::to_string(r.deploy.node->gpus_per_node) +
                                          " GPUs); tensor parallelism across nodes is not modelled");
    }
    workload_detail::check_lengths(r.prompt_lens, "prompt length");  // before any sum of them can overflow
    if (r.model.max_position > 0)
        for (std::size_t i = 0; i < r.prompt_lens.size(); ++i)
            if (r.prompt_lens[i] + r.decode_steps > r.model.max_position)
                synperf::detail::report_error("e2e: request " + std::to_string(i) + " reaches " +
                                              std::to_string(r.prompt_lens[i] + r.decode_steps) + " tokens, beyond the " +
                                              std::to_string(r.model.max_position) + " positions of " + r.model.name);
}

/// Rewrites an iteration before it is timed: how a program maps ops to kernels of its own families (its fused kernel,
/// a LayerNorm in place of an RMSNorm), with `make_op<F, List>`. Called for the prefill and for every decode step.
template <class List>
using iteration_rewrite = std::function<void(basic_iteration<List>&)>;

/// Predicts a whole static-batch run on one GPU (each of the TP ranks runs the same kernels), each iteration passed
/// through `rewrite` when one is given.
/// Throws `invalid_argument` for bad input, a run that does not fit in memory (when `check_memory`), or
/// an op whose family cannot be predicted (naming the family and the ops that need it).
template <class List>
[[nodiscard]] run_result run(const run_request& r, basic_kernel_estimator<List>& est,
                             const std::type_identity_t<iteration_rewrite<List>>& rewrite = {}) {
    validate(r);
    const gpu::gpu_numbers& g = est.numbers();
    run_result out;
    out.memory = estimate_memory(r.model, r.deploy, g, r.prompt_lens, r.decode_steps);
    if (r.check_memory)
        require_fit(out.memory, r.model.name + " on TP " + std::to_string(r.deploy.tp) + " with " +
                                    std::to_string(r.prompt_lens.size()) + " requests");

    const auto build = [&](bool decode, std::span<const std::int64_t> lens) {
        basic_iteration<List> it = decode ? decode_iteration<List>(r.model, r.deploy, g, lens) : prefill_iteration<List>(r.model, r.deploy, g, lens);
        if (rewrite) rewrite(it);
        return it;
    };
    const basic_iteration<List> pre = build(false, r.prompt_lens);
    est.require(pre);
    std::vector<std::int64_t> kv(r.prompt_lens.begin(), r.prompt_lens.end());
    if (r.decode_steps > 0) {
        for (auto& x : kv) x += 1;
        est.require(build(true, kv));
    }

    out.prefill = time_iteration(pre, est, overheads(r.deploy.fw, false, false, r.per_iteration_us));
    out.prefill_ms = out.prefill.total_us() * 1e-3;
    const overhead_model od = overheads(r.deploy.fw, true, r.deploy.cuda_graph_decode, r.per_iteration_us);
    out.decode_step_ms.reserve(std::size_t(r.decode_steps));
    double floor = 0;
    double decode_sum_ms = 0;
    for (std::int64_t s = 0; s < r.decode_steps; ++s) {
        if (s > 0)
            for (auto& x : kv) x += 1;
        const basic_iteration<List> it = build(true, kv);
        iteration_time t = time_iteration(it, est, od, &floor);
        const double ms = t.total_us() * 1e-3;
        out.decode_step_ms.push_back(ms);
        decode_sum_ms += ms;
        if (s == 0) out.first_decode = t;
        if (s + 1 == r.decode_steps) out.last_decode = std::move(t);
        if (r.on_decode_step) r.on_decode_step(s + 1, r.decode_steps);
    }
    out.decode_median_ms = median(out.decode_step_ms);
    out.total_ms = out.prefill_ms + decode_sum_ms;
    out.evaluations = est.evaluations();
    out.memo_hits = est.hits();
    return out;
}

}  // namespace synperf::e2e
