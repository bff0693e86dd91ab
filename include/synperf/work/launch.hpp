// SPDX-License-Identifier: Apache-2.0
#pragma once
/// \file One kernel launch: resources per CTA, how its work is dispatched, and its task classes.
#include <cstdint>
#include <string>
#include <vector>

#include "synperf/work/task.hpp"

namespace synperf::work {

/// Per-CTA resources that decide occupancy.
struct launch_config {
    int threads_per_cta = 128;  ///< threads per CTA
    int regs_per_thread = 32;   ///< registers per thread at launch
    int smem_per_cta = 0;       ///< dynamic + static shared memory per CTA, bytes
};

/// Who assigns work to SMs.
enum class dispatch_kind {
    hardware,             ///< one CTA per task, hardware block scheduler (round robin over free slots)
    persistent_static,    ///< persistent CTAs, work unit j to CTA j mod grid (CUTLASS static scheduler)
    persistent_longest_first,  ///< persistent CTAs, longest unit first to the least-loaded CTA (FA3, FlashInfer plan)
};

[[nodiscard]] constexpr bool is_persistent(dispatch_kind d) noexcept { return d != dispatch_kind::hardware; }

/// A kernel: launch resources, dispatch, and its tasks in grid order.
struct kernel_launch {
    std::string name;                  ///< what runs, e.g. "sm90_ws_persistent_128x256x64_4stage"
    launch_config launch;              ///< per-CTA resources
    dispatch_kind dispatch = dispatch_kind::hardware;
    std::int64_t persistent_ctas = 0;  ///< persistent grid size (0: one CTA per SM slot, capped at the units)
    std::vector<task_class> tasks;     ///< task classes in grid / work-unit order
    /// Bytes the kernel touches that are served by L2 without a DRAM access (already resident, e.g. an
    /// activation written by the previous kernel). Together with the tasks' `dram_bytes` these are the
    /// kernel's compulsory traffic; tile re-reads beyond it are in the tasks' `l2_bytes`.
    double l2_resident_bytes = 0;
};

}  // namespace synperf::work
