// SPDX-License-Identifier: Apache-2.0
#pragma once
/// \file predictor<G, F, S, C>: a GPU, a kernel family, a scheduler and a cost model composed at compile time.
#include <algorithm>
#include <cmath>
#include <concepts>
#include <cstdio>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "synperf/error.hpp"
#include "synperf/cost/concept.hpp"
#include "synperf/cost/mlp_cost.hpp"
#include "synperf/cost/shipped.hpp"
#include "synperf/mlp/format.hpp"
#include "synperf/family/concept.hpp"
#include "synperf/features/analysis.hpp"
#include "synperf/gpu/concept.hpp"
#include "synperf/gpu/numbers.hpp"
#include "synperf/gpu/occupancy.hpp"
#include "synperf/predictor/prediction.hpp"
#include "synperf/scheduler/concept.hpp"
#include "synperf/scheduler/hardware_round_robin.hpp"
#include "synperf/scheduler/min_heap_persistent.hpp"
#include "synperf/scheduler/run.hpp"
#include "synperf/work/kernel_kinds.hpp"
#include "synperf/work/launch.hpp"

namespace synperf {

namespace predictor_detail {

/// Gigabytes with four significant digits, for a warning.
inline std::string device_gb(double bytes) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.4g", bytes * 1e-9);
    return buf;
}

inline scheduler::schedule_options options_for(const work::kernel_launch& k, const gpu::gpu_numbers& g) {
    scheduler::schedule_options o;
    o.slots_per_sm = gpu::ctas_per_sm(g, k.launch);
    if (o.slots_per_sm < 1)
        synperf::detail::report_error("kernel " + k.name + " does not fit on one SM of this GPU (" +
                                      std::to_string(k.launch.threads_per_cta) + " threads, " +
                                      std::to_string(k.launch.regs_per_thread) + " registers per thread, " +
                                      std::to_string(k.launch.smem_per_cta) + " bytes of shared memory per CTA)");
    if (work::is_persistent(k.dispatch)) {
        o.persistent_ctas = k.persistent_ctas;
        o.order = k.dispatch == work::dispatch_kind::persistent_longest_first ? scheduler::unit_order::longest_first
                                                                             : scheduler::unit_order::static_stride;
    }
    return o;
}

/// Everything up to the cost model: decompose -> schedule (the main kernel with `schedule_main`, the others
/// by their dispatch kind) -> analyze -> features. Fills kernels, theoretical time and features. A kernel that
/// `priced` does not cover is priced apart (`prediction::priced_apart_us`) and left out of the features and bound.
template <family::KernelFamily F, class ScheduleMain>
prediction analyze(const typename F::problem_type& p, const gpu::gpu_numbers& g, ScheduleMain&& schedule_main,
                   const work::kernel_kind_set& priced = work::every_kernel_kind()) {
    typename F::plan_type plan = F::plan(p, g);
    if (plan.kernels.empty()) synperf::detail::report_error(std::string(F::name) + ": the family's plan has no kernels");
    std::vector<features::kernel_features> analyzed;
    analyzed.reserve(plan.kernels.size());
    prediction out;
    out.kernels.reserve(plan.kernels.size());
    std::size_t modelled = 0;
    for (std::size_t i = 0; i < plan.kernels.size(); ++i) {
        const work::kernel_launch& k = plan.kernels[i];
        const scheduler::schedule_options o = options_for(k, g);
        const scheduler::schedule_result s =
            i == 0 ? schedule_main(k, g, o) : scheduler::run_scheduler(k.dispatch, std::span<const work::task_class>(k.tasks), g, o);
        const features::kernel_features f = features::analyze(k, s, g);
        const double mean_sm = work::task_cost(s.total, g) / g.sm_count;
        const bool apart = !priced.covers(k);
        const auto us = [&g](double cycles) { return features::cycles_to_us(cycles, g); };
        out.kernels.push_back(kernel_report{
            .name = k.name,
            .tasks = s.tasks,
            .waves = s.waves,
            .ctas_per_sm = s.slots_per_sm,
            .busy_sms = s.busy_sms,
            .theoretical_us = us(f.theoretical_cycles),
            .bottleneck = features::to_string(f.limiter),
            .imbalance = mean_sm > 0 ? s.makespan_cycles / mean_sm : 1.0,
            .kind = k.kind,
            .priced_apart = apart,
            .bound = {us(f.compulsory_tensor_cycles), us(f.compulsory_fma_cycles), us(f.compulsory_xu_cycles),
                      us(f.compulsory_dram_cycles), us(f.resident_l2_cycles), us(f.latency_floor_cycles),
                      us(f.launch_floor_cycles)},
            .busiest_sm_us = us(std::max({f.theoretical_cycles, f.sm_max.tensor, f.sm_max.fma, f.sm_max.xu}))});
        if (apart) {
            // Its own floor: at least one launch back to back, as every kernel of an op.
            out.priced_apart_us +=
                std::max(features::cycles_to_us(f.kernel_floor_cycles, g), work::back_to_back_launch_us(g));
            continue;
        }
        out.theoretical_us += out.kernels.back().theoretical_us;
        out.kernel_floor_us += features::cycles_to_us(f.kernel_floor_cycles, g);
        analyzed.push_back(f);
        ++modelled;
    }
    if (modelled == 0)
        synperf::detail::report_error(std::string(F::name) + ": the cost model prices none of the op's kernels (the first is '" +
                                      plan.kernels.front().name + "', of kind '" + plan.kernels.front().kind +
                                      "'): a family's own kernels have no kind");
    // No op finishes sooner than its launches back to back on a stream (the shortest op any collector timed took
    // 1.27 µs): without this, a shape smaller than any measured one would be predicted in nanoseconds.
    out.kernel_floor_us = std::max(out.kernel_floor_us, double(modelled) * work::back_to_back_launch_us(g));
    // The model sees the op without the kernels priced apart, in plan order.
    if (modelled != plan.kernels.size())
        std::erase_if(plan.kernels, [&priced](const work::kernel_launch& k) { return !priced.covers(k); });
    const auto x = F::features(p, plan, std::span<const features::kernel_features>(analyzed), g);
    out.features.assign(x.begin(), x.end());
    out.bottleneck = out.kernels.front().bottleneck;
    return out;
}

/// An MLP cost model must hold a network trained for F (family, features, framework levels by name); throws
/// `invalid_argument` for an empty one and `load_error` for another family's, so a predictor never holds a model
/// that cannot answer. Other cost models pass as they are.
template <class F, class C>
void require_cost_for_family(const C& cost) {
    if constexpr (std::same_as<C, cost::mlp_cost>) {
        if (!cost.loaded())
            synperf::detail::report_error(std::string(F::name) + ": the cost model holds no network (load weights, or default-construct "
                                          "the predictor to use the family's shipped weights)");
        mlp::check_compatible(cost.network(), F::name, F::feature_names, "cost model", F::framework_levels);
    }
}

/// The cost model a default-constructed predictor of family F uses: F's shipped weights for the MLP cost model
/// (a compile error where this translation unit has none), a default-constructed one otherwise.
template <class F, class C>
C default_cost() {
    if constexpr (std::same_as<C, cost::mlp_cost>) {
        static_assert(models::has_shipped_weights<F>,
                      "synperf: predictor<G, F>{} uses family F's shipped weights, and none is visible here: link "
                      "synperf::models and #include <synperf/models.hpp> (or <synperf/models/<family>.hpp>), or give "
                      "the predictor a cost model: predictor<G, F>{cost::mlp_cost(network)}");
        if constexpr (models::has_shipped_weights<F>) return models::shipped_cost<F>();
    } else {
        return C{};
    }
}

/// Schedules with the built-in scheduler each kernel's dispatch kind asks for.
struct schedule_by_dispatch {
    scheduler::schedule_result operator()(const work::kernel_launch& k, const gpu::gpu_numbers& g,
                                          const scheduler::schedule_options& o) const {
        return scheduler::run_scheduler(k.dispatch, std::span<const work::task_class>(k.tasks), g, o);
    }
};

/// The whole pipeline: analyze, then the cost model's efficiency. Instantiated once per (family, cost model).
template <family::KernelFamily F, class ScheduleMain, cost::CostModel C>
prediction predict(const typename F::problem_type& p, const gpu::gpu_numbers& g, std::string_view framework,
                   ScheduleMain&& schedule_main, const C& cost) {
    const std::size_t level = F::framework_level(framework);
    // A family whose problem names its framework too (all-reduce's implementation) refuses a different one.
    if constexpr (requires { F::check_framework(p, level, framework); }) F::check_framework(p, level, framework);
    static_assert(!requires { F::check_framework(p, framework); },
                  "F::check_framework takes (problem, level, framework): the level F::framework_level returned");
    prediction out = analyze<F>(p, g, schedule_main, cost::priced_kernels(cost));
    // The cost model's efficiency is against the op's bound; a kernel whose decomposition is exact cannot run
    // faster than its busiest SM, whatever the model learned on other kernels.
    const double efficiency = cost.efficiency(std::span<const double>(out.features), level);
    // The CostModel contract: an efficiency in [1e-9, 1]. Anything else (a network whose output underflowed, a
    // user model's bug) would print an astronomic or sub-bound latency as if it were a prediction.
    if (!(efficiency >= cost::min_credible_efficiency && efficiency <= 1.0))
        synperf::detail::report_error(std::string(F::name) + ": the cost model returned efficiency " + synperf::detail::approx(efficiency) +
                                      ", outside [1e-9, 1] (a corrupt model, or one without an 'efficiency' range far outside its training data)");
    const double modelled_us = floored_latency_us(out.theoretical_us, efficiency, out.kernel_floor_us);
    out.latency_us = modelled_us + out.priced_apart_us;
    if (!(std::isfinite(out.latency_us) && out.latency_us > 0.0))  // NaN fails too
        synperf::detail::report_error(std::string(F::name) + ": the predicted latency is not a finite time (bound " +
                                      synperf::detail::value_text(out.theoretical_us) + " us): an input beyond any modelled GPU or system");
    out.efficiency = modelled_us > out.kernel_floor_us ? efficiency : out.theoretical_us / modelled_us;
    if constexpr (requires { F::device_bytes(p); }) {
        if (const double bytes = F::device_bytes(p); bytes > g.memory_bytes)
            out.warnings.push_back("the op's tensors take " + device_gb(bytes) + " GB, more than the " + device_gb(g.memory_bytes) +
                                   " GB of device memory: no single GPU runs it");
    }
    if constexpr (requires { cost.warnings(std::span<const double>(out.features), efficiency); }) {
        std::vector<std::string> range = cost.warnings(std::span<const double>(out.features), out.efficiency);
        if (out.warnings.empty())
            out.warnings = std::move(range);
        else
            for (std::string& w : range) out.warnings.push_back(std::move(w));
    }
    return out;
}

}  // namespace predictor_detail

/// The scheduler a family's main kernel needs on GPU G.
template <family::KernelFamily F, gpu::GpuSpec G>
using default_scheduler_t = std::conditional_t<work::is_persistent(F::main_dispatch(G::numbers)),
                                               scheduler::min_heap_persistent, scheduler::hardware_round_robin>;

/// A predictor composed at compile time from a GPU policy, a kernel family, a scheduler and a cost model.
///
/// The scheduler defaults to the one the family's main kernel needs on G; choosing one of the wrong kind
/// (a persistent kernel on the hardware dispatcher, or the reverse) is a compile error. Where a family picks its
/// main kernel per problem and picks one of the other kind, the default schedules it with the built-in
/// scheduler of that kind; a scheduler given as S refuses it at run time (`invalid_argument`).
template <gpu::GpuSpec G, family::KernelFamily F, scheduler::Scheduler S = default_scheduler_t<F, G>,
          cost::CostModel C = cost::mlp_cost>
class predictor {
    static_assert(work::is_persistent(F::main_dispatch(G::numbers)) ==
                      std::same_as<typename S::dispatch, scheduler::persistent_dispatch_tag>,
                  "synperf: scheduler S cannot place family F's main kernel on GPU G: persistent kernels need "
                  "scheduler::min_heap_persistent, one-CTA-per-tile kernels need scheduler::hardware_round_robin; "
                  "omit S to get the right one");

public:
    using gpu_type = G;
    using family_type = F;
    using scheduler_type = S;
    using cost_model_type = C;
    using problem_type = typename F::problem_type;

    /// Uses family F's shipped weights, fixed at compile time: a compile error where the build has none (see
    /// `models::has_shipped_weights`). Another cost model type is default-constructed.
    predictor() : cost_(predictor_detail::default_cost<F, C>()) {}
    explicit predictor(C cost) : cost_(std::move(cost)) { predictor_detail::require_cost_for_family<F>(cost_); }

    /// Predicts one op; `framework` selects the categorical input (see F::framework_levels).
    [[nodiscard]] prediction predict(const problem_type& p, std::string_view framework = F::framework_levels[0]) const {
        return predictor_detail::predict<F>(
            p, G::numbers, framework,
            [](const work::kernel_launch& k, const gpu::gpu_numbers& g, const scheduler::schedule_options& o) {
                // The compile-time check covers F::main_dispatch(g); a family whose kernel is chosen at run
                // time (attention backends, FP8 GEMM's small-M kernels) can still hand S a kernel of the other kind.
                // With the family's own scheduler that kernel goes to the built-in scheduler of its kind, as the
                // family chose it; a scheduler of the user's cannot place it.
                constexpr bool s_persistent = std::same_as<typename S::dispatch, scheduler::persistent_dispatch_tag>;
                if constexpr (std::same_as<S, default_scheduler_t<F, G>>) {
                    if (work::is_persistent(k.dispatch) != s_persistent)
                        return scheduler::run_scheduler(k.dispatch, std::span<const work::task_class>(k.tasks), g, o);
                } else if (work::is_persistent(k.dispatch) != s_persistent) {
                    synperf::detail::report_error(
                        "predictor: the main kernel '" + k.name + "' chosen for this problem is " +
                        (s_persistent ? "dispatched by the hardware (one CTA per tile)" : "persistent") +
                        ", but scheduler S only places " + (s_persistent ? "persistent kernels" : "one-CTA-per-tile kernels") +
                        "; use runtime_predictor (schedules each kernel by its dispatch kind) or a predictor with " +
                        (s_persistent ? "scheduler::hardware_round_robin" : "scheduler::min_heap_persistent"));
                }
                return S::schedule(std::span<const work::task_class>(k.tasks), g, o);
            },
            cost_);
    }
    [[nodiscard]] const C& cost_model() const noexcept { return cost_; }

private:
    C cost_;
};

/// A predictor for a GPU known only at run time (by name or from a spec file): one instantiation per family.
template <family::KernelFamily F, cost::CostModel C = cost::mlp_cost>
class runtime_predictor {
public:
    using family_type = F;
    using problem_type = typename F::problem_type;

    /// Uses family F's shipped weights (a compile error where the build has none), as `predictor` does.
    explicit runtime_predictor(gpu::gpu_numbers numbers)
        : runtime_predictor(std::move(numbers), predictor_detail::default_cost<F, C>()) {}
    runtime_predictor(gpu::gpu_numbers numbers, C cost)
        : numbers_(gpu::validate(numbers)), cost_(std::move(cost)) {
        predictor_detail::require_cost_for_family<F>(cost_);
    }

    [[nodiscard]] prediction predict(const problem_type& p, std::string_view framework = F::framework_levels[0]) const {
        return predictor_detail::predict<F>(
            p, numbers_, framework,
predictor_detail::schedule_by_dispatch{}, cost_);
    }
    [[nodiscard]] const gpu::gpu_numbers& numbers() const noexcept { return numbers_; }
    [[nodiscard]] const C& cost_model() const noexcept { return cost_; }

private:
    gpu::gpu_numbers numbers_;
    C cost_;
};

}  // namespace synperf
