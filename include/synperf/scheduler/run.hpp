// SPDX-License-Identifier: Apache-2.0
#pragma once
/// \file Run-time choice of the built-in scheduler from a launch's dispatch kind.
#include <span>
#include <string>

#include "synperf/error.hpp"
#include "synperf/gpu/numbers.hpp"
#include "synperf/gpu/occupancy.hpp"
#include "synperf/scheduler/concept.hpp"
#include "synperf/scheduler/hardware_round_robin.hpp"
#include "synperf/scheduler/min_heap_persistent.hpp"
#include "synperf/work/launch.hpp"
#include "synperf/work/task.hpp"

namespace synperf::scheduler {

/// Schedules `tasks` with the built-in scheduler for `d`: `hardware_round_robin` for hardware dispatch,
/// `min_heap_persistent` with the matching `unit_order` for persistent kernels (`o.order` is overridden).
[[nodiscard]] inline schedule_result run_scheduler(work::dispatch_kind d, std::span<const work::task_class> tasks,
                                                   const gpu::gpu_numbers& g, schedule_options o) {
    switch (d) {
        case work::dispatch_kind::hardware: return hardware_round_robin::schedule(tasks, g, o);
        case work::dispatch_kind::persistent_static:
            o.order = unit_order::static_stride;
            return min_heap_persistent::schedule(tasks, g, o);
        case work::dispatch_kind::persistent_longest_first:
            o.order = unit_order::longest_first;
            return min_heap_persistent::schedule(tasks, g, o);
    }
    synperf::detail::report_error("run_scheduler: unknown dispatch_kind " + std::to_string(static_cast<int>(d)));
}

/// Schedules one kernel launch: resident slots from its occupancy on `g`, the persistent grid from
/// `k.persistent_ctas`, the scheduler from `k.dispatch`. Throws `invalid_argument` if no CTA fits on an SM.
[[nodiscard]] inline schedule_result schedule_launch(const work::kernel_launch& k, const gpu::gpu_numbers& g,
                                                     bool per_sm_loads = false) {
    const gpu::occupancy_result occ = gpu::occupancy(g, k.launch);
    if (occ.ctas_per_sm < 1)
        synperf::detail::report_error("schedule_launch: kernel '" + k.name +
                                      "' does not fit on an SM (" + std::to_string(k.launch.threads_per_cta) +
                                      " threads x " + std::to_string(k.launch.regs_per_thread) + " registers, " +
                                      std::to_string(k.launch.smem_per_cta) + " B shared memory), got 0 CTAs per SM");
    schedule_options o;
    o.slots_per_sm = occ.ctas_per_sm;
    o.persistent_ctas = k.persistent_ctas;
    o.per_sm_loads = per_sm_loads;
    return run_scheduler(k.dispatch, k.tasks, g, o);
}

}  // namespace synperf::scheduler
