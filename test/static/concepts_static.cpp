// SPDX-License-Identifier: Apache-2.0
// Compile-time checks of the four concepts (GpuSpec, KernelFamily, Scheduler, CostModel): the built-in models
// satisfy them, near misses do not, and the family's dispatch choice is a constant expression.
// Compiling this file is the test; nothing here runs. A GPU policy with out-of-range numbers is a hard error
// inside GpuSpec (validate() is not a constant expression), so that case lives in test/compile_fail/.
#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <vector>

#include "synperf/cost/concept.hpp"
#include "synperf/cost/mlp_cost.hpp"
#include "synperf/cost/roofline_cost.hpp"
#include "synperf/family/concept.hpp"
#include "synperf/family/gemm.hpp"
#include "synperf/gpu/concept.hpp"
#include "synperf/gpu/numbers.hpp"
#include "synperf/hw/catalogue.hpp"
#include "synperf/predictor/predictor.hpp"
#include "synperf/scheduler/concept.hpp"
#include "synperf/scheduler/hardware_round_robin.hpp"
#include "synperf/scheduler/min_heap_persistent.hpp"

namespace concepts_static {

namespace gpu = synperf::gpu;
namespace hw = synperf::hw;
namespace work = synperf::work;
namespace features = synperf::features;
namespace scheduler = synperf::scheduler;
using synperf::cost::CostModel;
using synperf::family::KernelFamily;
using synperf::gpu::GpuSpec;
using synperf::scheduler::Scheduler;

// ---------------------------------------------------------------------------------------------- GpuSpec

template <class... G>
constexpr bool all_gpu_specs(std::tuple<G...>*) {
    return (GpuSpec<G> && ...);
}
static_assert(all_gpu_specs(static_cast<hw::all_gpus*>(nullptr)), "every catalogue policy is a GpuSpec");
static_assert(GpuSpec<hw::h100_sxm>);
static_assert(GpuSpec<hw::a100_sxm>);
static_assert(GpuSpec<hw::b200_sxm>);
static_assert(GpuSpec<hw::rtx_pro_6000_server>);

/// A what-if GPU derived from a catalogue one (examples/custom_gpu_and_cost_model.cpp).
struct h100_fast_hbm {
    static constexpr std::string_view name = "h100_fast_hbm";
    static constexpr std::string_view display_name = "H100 with 6.7 TB/s HBM (hypothetical)";
    static constexpr std::array<std::string_view, 1> aliases{"h100-fast-hbm"};
    static constexpr gpu::gpu_numbers numbers = [] {
        gpu::gpu_numbers n = hw::h100_sxm::numbers;
        n.dram_gbps *= 2;
        return n;
    }();
    static constexpr gpu::datasheet published = hw::h100_sxm::published;
};
static_assert(GpuSpec<h100_fast_hbm>);

struct identity_only {
    static constexpr std::string_view name = "x";
    static constexpr std::string_view display_name = "X";
    static constexpr std::array<std::string_view, 1> aliases{"xx"};
};
struct gpu_missing_name {
    static constexpr std::string_view display_name = "X";
    static constexpr std::array<std::string_view, 1> aliases{"xx"};
    static constexpr gpu::gpu_numbers numbers = hw::h100_sxm::numbers;
    static constexpr gpu::datasheet published{};
};
struct gpu_missing_display_name {
    static constexpr std::string_view name = "x";
    static constexpr std::array<std::string_view, 1> aliases{"xx"};
    static constexpr gpu::gpu_numbers numbers = hw::h100_sxm::numbers;
    static constexpr gpu::datasheet published{};
};
struct gpu_name_not_a_string : identity_only {
    static constexpr int name = 7;
    static constexpr gpu::gpu_numbers numbers = hw::h100_sxm::numbers;
    static constexpr gpu::datasheet published{};
};
struct gpu_missing_numbers : identity_only {
    static constexpr gpu::datasheet published{};
};
struct gpu_missing_published : identity_only {
    static constexpr gpu::gpu_numbers numbers = hw::h100_sxm::numbers;
};
struct gpu_numbers_wrong_type : identity_only {
    static constexpr double numbers = 132.0;  // a number, not a gpu_numbers
    static constexpr gpu::datasheet published{};
};
static_assert(!GpuSpec<identity_only>);
static_assert(!GpuSpec<gpu_missing_name>);
static_assert(!GpuSpec<gpu_missing_display_name>);
static_assert(!GpuSpec<gpu_name_not_a_string>);
static_assert(!GpuSpec<gpu_missing_numbers>);
static_assert(!GpuSpec<gpu_missing_published>);
static_assert(!GpuSpec<gpu_numbers_wrong_type>);
static_assert(!GpuSpec<int>);
static_assert(!GpuSpec<gpu::gpu_numbers>);  // the numbers alone are not a policy

// Out-of-range numbers: GpuSpec itself hard-errors (test/compile_fail/cf_gpu_spec_zero_sms.cpp). What can be
// checked softly is that validate() is not a constant expression for them: a non-constant template argument
// is a substitution failure, so this requires-expression is simply false.
template <class G>
concept numbers_valid_at_compile_time =
    requires { typename std::integral_constant<int, (gpu::validate(G::numbers), 0)>; };
struct gpu_zero_sms : identity_only {
    static constexpr gpu::gpu_numbers numbers = [] {
        gpu::gpu_numbers n = hw::h100_sxm::numbers;
        n.sm_count = 0;
        return n;
    }();
    static constexpr gpu::datasheet published{};
};
struct gpu_smem_per_cta_above_sm : identity_only {
    static constexpr gpu::gpu_numbers numbers = [] {
        gpu::gpu_numbers n = hw::h100_sxm::numbers;
        n.smem_per_cta_bytes = n.smem_per_sm_bytes + 1;
        return n;
    }();
    static constexpr gpu::datasheet published{};
};
static_assert(numbers_valid_at_compile_time<hw::h100_sxm>);
static_assert(numbers_valid_at_compile_time<h100_fast_hbm>);
static_assert(!numbers_valid_at_compile_time<gpu_zero_sms>);
static_assert(!numbers_valid_at_compile_time<gpu_smem_per_cta_above_sm>);

// ----------------------------------------------------------------------------------------- KernelFamily

static_assert(KernelFamily<synperf::family::gemm>);

/// The smallest family that satisfies the concept (docs/extending.md walks through a fuller one).
struct toy_family {
    struct problem_type {
        std::int64_t n = 0;
    };
    struct plan_type {
        std::vector<work::kernel_launch> kernels;
    };
    static constexpr std::string_view name = "toy";
    static constexpr std::array<std::string_view, 1> feature_names{"n"};
    static constexpr std::array<std::string_view, 1> framework_levels{"torch"};
    static std::size_t framework_level(std::string_view) { return 0; }
    static void validate(const problem_type&) {}
    static constexpr work::dispatch_kind main_dispatch(const gpu::gpu_numbers&) noexcept {
        return work::dispatch_kind::hardware;
    }
    static plan_type plan(const problem_type&, const gpu::gpu_numbers&) { return {}; }
    static std::array<double, 1> features(const problem_type& p, const plan_type&,
                                          std::span<const features::kernel_features>, const gpu::gpu_numbers&) {
        return {double(p.n)};
    }
};
static_assert(KernelFamily<toy_family>);

// Near misses, each one requirement off.
struct family_missing_plan : toy_family {
    static void plan() = delete;
};
struct family_features_wrong_length : toy_family {
    static std::array<double, 2> features(const problem_type&, const plan_type&,
                                          std::span<const features::kernel_features>, const gpu::gpu_numbers&) {
        return {};
    }
};
struct family_dispatch_returns_bool : toy_family {
    static constexpr bool main_dispatch(const gpu::gpu_numbers&) noexcept { return true; }
};
struct family_plan_without_kernels : toy_family {
    struct plan_type {
        int kernels = 0;
    };
    static plan_type plan(const problem_type&, const gpu::gpu_numbers&) { return {}; }
    static std::array<double, 1> features(const problem_type&, const plan_type&,
                                          std::span<const features::kernel_features>, const gpu::gpu_numbers&) {
        return {};
    }
};
struct family_missing_problem_type {
    struct plan_type {
        std::vector<work::kernel_launch> kernels;
    };
    static constexpr std::string_view name = "no_problem";
    static constexpr std::array<std::string_view, 1> feature_names{"n"};
    static constexpr std::array<std::string_view, 1> framework_levels{"torch"};
};
struct family_missing_framework_level : toy_family {
    static void framework_level() = delete;
};
static_assert(!KernelFamily<family_missing_plan>);
static_assert(!KernelFamily<family_features_wrong_length>);
static_assert(!KernelFamily<family_dispatch_returns_bool>);
static_assert(!KernelFamily<family_plan_without_kernels>);
static_assert(!KernelFamily<family_missing_problem_type>);
static_assert(!KernelFamily<family_missing_framework_level>);
static_assert(!KernelFamily<int>);

// ---------------------------------------------------------------------------------------------- Scheduler

static_assert(Scheduler<scheduler::hardware_round_robin>);
static_assert(Scheduler<scheduler::min_heap_persistent>);
static_assert(std::is_same_v<scheduler::hardware_round_robin::dispatch, scheduler::hardware_dispatch_tag>);
static_assert(std::is_same_v<scheduler::min_heap_persistent::dispatch, scheduler::persistent_dispatch_tag>);

/// A user scheduler: always hands out persistent work units longest first (options by value is fine).
struct longest_first_scheduler {
    using dispatch = scheduler::persistent_dispatch_tag;
    static scheduler::schedule_result schedule(std::span<const work::task_class> tasks, const gpu::gpu_numbers& g,
                                               scheduler::schedule_options o) {
        o.order = scheduler::unit_order::longest_first;
        return scheduler::min_heap_persistent::schedule(tasks, g, o);
    }
};
static_assert(Scheduler<longest_first_scheduler>);

struct scheduler_missing_dispatch {
    static scheduler::schedule_result schedule(std::span<const work::task_class>, const gpu::gpu_numbers&,
                                               const scheduler::schedule_options&);
};
struct scheduler_unknown_dispatch_tag {
    struct my_tag {};
    using dispatch = my_tag;  // only the two selector tags are allowed
    static scheduler::schedule_result schedule(std::span<const work::task_class>, const gpu::gpu_numbers&,
                                               const scheduler::schedule_options&);
};
struct scheduler_returns_makespan_only {
    using dispatch = scheduler::hardware_dispatch_tag;
    static double schedule(std::span<const work::task_class>, const gpu::gpu_numbers&, const scheduler::schedule_options&);
};
struct scheduler_not_static {
    using dispatch = scheduler::hardware_dispatch_tag;
    scheduler::schedule_result schedule(std::span<const work::task_class>, const gpu::gpu_numbers&,
                                        const scheduler::schedule_options&);
};
struct scheduler_takes_a_vector {
    using dispatch = scheduler::hardware_dispatch_tag;
    static scheduler::schedule_result schedule(std::vector<work::task_class>&, const gpu::gpu_numbers&,
                                               const scheduler::schedule_options&);
};
static_assert(!Scheduler<scheduler_missing_dispatch>);
static_assert(!Scheduler<scheduler_unknown_dispatch_tag>);
static_assert(!Scheduler<scheduler_returns_makespan_only>);
static_assert(!Scheduler<scheduler_not_static>);
static_assert(!Scheduler<scheduler_takes_a_vector>);
static_assert(!Scheduler<int>);

// ---------------------------------------------------------------------------------------------- CostModel

static_assert(CostModel<synperf::cost::roofline_cost>);
static_assert(CostModel<synperf::cost::mlp_cost>);

struct fixed_efficiency {
    double value = 0.8;
    [[nodiscard]] double efficiency(std::span<const double>, std::size_t) const noexcept { return value; }
};
struct float_efficiency {  // any result convertible to double will do
    float efficiency(std::span<const double>, std::size_t) const { return 0.5f; }
};
struct templated_efficiency {  // so will a template
    template <class Features>
    double efficiency(Features, std::size_t) const { return 1.0; }
};
static_assert(CostModel<fixed_efficiency>);
static_assert(CostModel<float_efficiency>);
static_assert(CostModel<templated_efficiency>);

struct cost_missing_efficiency {
    double value = 1;
};
struct cost_non_const_efficiency {  // the predictor holds its cost model const
    double efficiency(std::span<const double>, std::size_t) { return 1.0; }
};
struct cost_returns_text {
    std::string efficiency(std::span<const double>, std::size_t) const { return "fast"; }
};
struct cost_without_framework_level {
    double efficiency(std::span<const double>) const { return 1.0; }
};
struct cost_takes_a_vector {
    double efficiency(const std::vector<double>&, std::size_t) const { return 1.0; }
};
static_assert(!CostModel<cost_missing_efficiency>);
static_assert(!CostModel<cost_non_const_efficiency>);
static_assert(!CostModel<cost_returns_text>);
static_assert(!CostModel<cost_without_framework_level>);
static_assert(!CostModel<cost_takes_a_vector>);
static_assert(!CostModel<int>);

// ---------------------------------------------------------------------------- constant-expression checks

using synperf::family::gemm;
static_assert(gemm::main_dispatch(hw::h100_sxm::numbers) == work::dispatch_kind::persistent_static);
static_assert(gemm::main_dispatch(hw::b200_sxm::numbers) == work::dispatch_kind::persistent_static);
static_assert(gemm::main_dispatch(hw::a100_sxm::numbers) == work::dispatch_kind::hardware);
static_assert(gemm::main_dispatch(hw::l40s::numbers) == work::dispatch_kind::hardware);
static_assert(gemm::main_dispatch(hw::rtx_pro_6000_server::numbers) == work::dispatch_kind::hardware);
static_assert(gemm::main_dispatch(h100_fast_hbm::numbers) == work::dispatch_kind::persistent_static);

static_assert(std::is_same_v<synperf::default_scheduler_t<gemm, hw::h100_sxm>, scheduler::min_heap_persistent>);
static_assert(std::is_same_v<synperf::default_scheduler_t<gemm, hw::a100_sxm>, scheduler::hardware_round_robin>);
static_assert(std::is_same_v<synperf::default_scheduler_t<gemm, h100_fast_hbm>, scheduler::min_heap_persistent>);

// Composed predictors re-export their policies.
using h100_roofline = synperf::predictor<hw::h100_sxm, gemm, scheduler::min_heap_persistent, synperf::cost::roofline_cost>;
static_assert(std::is_same_v<h100_roofline::gpu_type, hw::h100_sxm>);
static_assert(std::is_same_v<h100_roofline::family_type, gemm>);
static_assert(std::is_same_v<h100_roofline::scheduler_type, scheduler::min_heap_persistent>);
static_assert(std::is_same_v<h100_roofline::cost_model_type, synperf::cost::roofline_cost>);
using custom = synperf::predictor<h100_fast_hbm, gemm, longest_first_scheduler, fixed_efficiency>;
static_assert(std::is_same_v<custom::scheduler_type, longest_first_scheduler>);

// Numbers derived from a policy are constant expressions too.
static_assert(hw::h100_sxm::numbers.sm_version() == 90);
static_assert(hw::h100_sxm::numbers.tensor_tflops(gpu::tensor_dtype::bf16) > 900);
static_assert(h100_fast_hbm::numbers.dram_bytes_per_clk() == 2 * hw::h100_sxm::numbers.dram_bytes_per_clk());
static_assert(synperf::cost::roofline_cost{}.efficiency({}, 0) == 1.0);

}  // namespace concepts_static
