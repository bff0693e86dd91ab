// SPDX-License-Identifier: Apache-2.0
#pragma once
/// \file The KernelFamily concept: decomposition of one kind of kernel into schedulable work and features.
#include <array>
#include <concepts>
#include <cstddef>
#include <span>
#include <string_view>
#include <vector>

#include "synperf/features/analysis.hpp"
#include "synperf/gpu/numbers.hpp"
#include "synperf/work/launch.hpp"

namespace synperf::family {

namespace detail {
template <class F>
concept has_identity = requires {
    { F::name } -> std::convertible_to<std::string_view>;
    { F::feature_names.size() } -> std::convertible_to<std::size_t>;
    { F::feature_names[0] } -> std::convertible_to<std::string_view>;
    { F::framework_levels.size() } -> std::convertible_to<std::size_t>;
    typename F::problem_type;
    typename F::plan_type;
};
template <class F>
concept has_decomposition = requires(const typename F::problem_type& p, const typename F::plan_type& plan,
                                     const gpu::gpu_numbers& g, std::span<const features::kernel_features> kf,
                                     std::string_view framework) {
    { F::validate(p) };
    { F::main_dispatch(g) } -> std::same_as<work::dispatch_kind>;
    { F::plan(p, g) } -> std::same_as<typename F::plan_type>;
    { plan.kernels } -> std::convertible_to<const std::vector<work::kernel_launch>&>;
    { F::features(p, plan, kf, g) } -> std::same_as<std::array<double, F::feature_names.size()>>;
    { F::framework_level(framework) } -> std::convertible_to<std::size_t>;
};
}  // namespace detail

/// A kernel family: problem type, decomposer and feature choice of one kind of kernel.
///
/// Requires:
/// - `F::name`: family name, also the weights file's `family` (e.g. "gemm").
/// - `F::problem_type`, `F::validate(p)`: the problem and its checks (throws `invalid_argument`).
/// - `F::main_dispatch(g)`: constexpr; how the main kernel is dispatched on GPU `g` (decides the default
///   scheduler and rejects mismatched ones at compile time).
/// - `F::plan(p, g)` -> `F::plan_type` with `kernels`: the launches of the op, main kernel first, each with
///   launch resources, dispatch kind and task classes.
/// - `F::feature_names`, `F::features(p, plan, kernel_features, g)`: the model's numeric inputs, all >= 0.
/// - `F::framework_levels`, `F::framework_level(name)`: the categorical input (collector / framework).
/// Optional:
/// - `F::timed_in_cuda_graph`: true when the training latencies are CUDA-graph replays, so a prediction already
///   includes the in-graph launch gap (the end-to-end overhead model adds the rest); false when absent.
/// Models: `family::gemm`.
/// See: docs/concepts.md#kernelfamily, docs/extending.md
template <class F>
concept KernelFamily = detail::has_identity<F> && detail::has_decomposition<F>;

}  // namespace synperf::family
