// SPDX-License-Identifier: Apache-2.0
#pragma once
/// \file The Scheduler concept and the result every scheduler returns.
#include <concepts>
#include <cstdint>
#include <span>
#include <vector>

#include "synperf/gpu/numbers.hpp"
#include "synperf/work/launch.hpp"
#include "synperf/work/task.hpp"

namespace synperf::scheduler {

/// Selector tags: which kind of kernel a scheduler can place.
struct hardware_dispatch_tag {};    ///< one CTA per task, dispatched by the GPU's block scheduler
struct persistent_dispatch_tag {};  ///< a fixed grid of persistent CTAs that pull work units

/// Order in which a persistent scheduler hands out work units.
enum class unit_order {
    static_stride,   ///< unit j goes to CTA j mod grid (CUTLASS static persistent scheduler)
    longest_first,   ///< units sorted by cost, descending, each to the least-loaded CTA (FA3 causal, FlashInfer plan)
};

/// What a scheduler needs besides the tasks.
struct schedule_options {
    int slots_per_sm = 1;               ///< resident CTAs per SM (occupancy)
    std::int64_t persistent_ctas = 0;   ///< persistent grid (0: min(units, slots_per_sm * SMs))
    unit_order order = unit_order::static_stride;
    bool per_sm_loads = false;          ///< fill `schedule_result::per_sm` (costs time; off for predictions)
};

/// Where the work landed.
struct schedule_result {
    double makespan_cycles = 0;     ///< finish time of the busiest SM, tensor-clock cycles
    double waves = 0;               ///< ceil(tasks / (slots * SMs)), or ceil(units / grid) when persistent
    std::int64_t tasks = 0;         ///< tasks (or work units) placed
    int busy_sms = 0;               ///< SMs that received work
    int slots_per_sm = 1;           ///< resident CTAs per SM used
    work::task_work total;          ///< all work, whole GPU
    work::task_work sm_max;         ///< per field, the largest load any one SM received
    std::vector<work::task_work> per_sm;  ///< per-SM loads, when requested
    std::int64_t grid_ctas = 0;     ///< CTAs launched: one per task (hardware dispatch), or the persistent grid
};

/// A scheduler: places task classes on the SMs of a GPU.
///
/// Requires:
/// - `S::dispatch`: `hardware_dispatch_tag` or `persistent_dispatch_tag` (the kernels it can place).
/// - `S::schedule(tasks, gpu, options)` -> `schedule_result`; `tasks` are classes in grid order. A task's
///   cost is `work::task_cost` (its time with the whole SM); co-resident CTAs share their SM's pipes.
/// Laws: no tasks -> makespan 0; n equal tasks of cost c on one slot or many -> ceil(n / SMs) * c
///   (persistent: grid = SMs); makespan >= the largest task and >= total cost / SMs.
/// Models: `hardware_round_robin`, `min_heap_persistent`.
/// See: docs/concepts.md#scheduler; conformance suite: synperf/testing/scheduler_conformance.hpp
template <class S>
concept Scheduler = requires(std::span<const work::task_class> tasks, const gpu::gpu_numbers& g,
                             const schedule_options& o) {
    typename S::dispatch;
    { S::schedule(tasks, g, o) } -> std::same_as<schedule_result>;
} && (std::same_as<typename S::dispatch, hardware_dispatch_tag> ||
      std::same_as<typename S::dispatch, persistent_dispatch_tag>);

}  // namespace synperf::scheduler
