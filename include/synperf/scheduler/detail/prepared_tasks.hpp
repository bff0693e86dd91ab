// SPDX-License-Identifier: Apache-2.0
#pragma once
/// \file Input checks and per-class costs shared by the schedulers.
// IWYU pragma: private, include "synperf/scheduler.hpp"
#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <limits>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "synperf/error.hpp"
#include "synperf/gpu/numbers.hpp"
#include "synperf/scheduler/concept.hpp"
#include "synperf/work/task.hpp"

namespace synperf::scheduler::detail {

/// Checked task classes with their costs and totals.
struct prepared_tasks {
    std::vector<double> cost;      ///< task_cost of each class, cycles
    std::int64_t count = 0;        ///< tasks in all classes
    work::task_work total;         ///< all work
    double max_cost = 0;           ///< the largest task
    bool uniform = true;           ///< every non-empty class has the same work (closed forms apply)
    std::size_t first = 0;         ///< first non-empty class (valid when count > 0)
    gpu::tensor_dtype tensor_type = gpu::tensor_dtype::bf16;  ///< type given to sums (first class with tensor work)
    gpu::mma_issue tensor_issue = gpu::mma_issue::native;     ///< instruction kind given to sums (likewise)
};

/// Shortest round-trip text of `v` (std::to_string prints fixed six decimals).
[[nodiscard]] inline std::string number_text(double v) {
    char buf[32];
    const auto res = std::to_chars(buf, buf + sizeof buf, v);
    return std::string(buf, res.ptr);
}

[[nodiscard]] inline bool same_work(const work::task_work& a, const work::task_work& b) noexcept {
    return a.tensor_flop == b.tensor_flop && a.tensor_type == b.tensor_type && a.tensor_issue == b.tensor_issue &&
           a.fma_ops == b.fma_ops && a.xu_ops == b.xu_ops && a.dram_bytes == b.dram_bytes && a.l2_bytes == b.l2_bytes &&
           a.smem_bytes == b.smem_bytes;
}

/// Gives `w` the kernel's tensor type and instruction kind, which select the rate its tensor work runs at.
inline void stamp_tensor_kind(work::task_work& w, const prepared_tasks& p) noexcept {
    w.tensor_type = p.tensor_type;
    w.tensor_issue = p.tensor_issue;
}

/// An all-zero load carrying the tensor type and instruction kind of the kernel.
[[nodiscard]] inline work::task_work zero_work(const prepared_tasks& p) noexcept {
    work::task_work w;
    stamp_tensor_kind(w, p);
    return w;
}

/// Checks the GPU, options and classes (throws `invalid_argument` naming `who` and the bad value) and
/// computes the per-class costs.
[[nodiscard]] inline prepared_tasks prepare(std::span<const work::task_class> tasks, const gpu::gpu_numbers& g,
                                            const schedule_options& o, std::string_view who) {
    const auto where = [who] { return std::string(who); };  // built only for a message: most calls never need it
    if (g.sm_count < 1) synperf::detail::report_error(where() + ": sm_count must be >= 1, got " + std::to_string(g.sm_count));
    // Upper limits far beyond any GPU (at most 32 resident CTAs per SM today): the simulations keep state
    // per resident CTA, so a larger value would be an allocation of gigabytes, not a schedule.
    if (o.slots_per_sm < 1 || o.slots_per_sm > 4096)
        synperf::detail::report_error(where() + ": slots_per_sm must be in 1..4096, got " + std::to_string(o.slots_per_sm));
    if (o.persistent_ctas < 0 || o.persistent_ctas > (std::int64_t{1} << 24))
        synperf::detail::report_error(where() + ": persistent_ctas must be in 0..2^24, got " + std::to_string(o.persistent_ctas));

    prepared_tasks p;
    p.cost.resize(tasks.size());
    bool have_first = false;
    bool have_type = false;
    for (std::size_t k = 0; k < tasks.size(); ++k) {
        const work::task_class& c = tasks[k];
        if (c.count < 0)
            synperf::detail::report_error(where() + ": task class " + std::to_string(k) + " count must be >= 0, got " +
                                          std::to_string(c.count));
        const auto valid = [](double v) { return v >= 0 && v <= std::numeric_limits<double>::max(); };  // NaN fails
        const work::task_work& w = c.work;
        if (!(valid(w.tensor_flop) && valid(w.fma_ops) && valid(w.xu_ops) && valid(w.dram_bytes) && valid(w.l2_bytes) &&
              valid(w.smem_bytes))) {
            const std::pair<const char*, double> fields[] = {
                {"tensor_flop", w.tensor_flop}, {"fma_ops", w.fma_ops},   {"xu_ops", w.xu_ops},
                {"dram_bytes", w.dram_bytes},   {"l2_bytes", w.l2_bytes}, {"smem_bytes", w.smem_bytes}};
            for (const auto& [name, value] : fields)
                if (!valid(value))
                    synperf::detail::report_error(where() + ": task class " + std::to_string(k) + " " + name +
                                                  " must be finite and >= 0, got " + number_text(value));
        }
        // Each pipe's cycles, not only their max: std::max drops a NaN from a rate of NaN, and a negative rate's
        // term falls below the others. 1e30 marks tensor work of a type the GPU has no rate for.
        const work::pipe_cycles pc = work::sm_cycles(c.work, g);
        const auto usable = [](double cycles) { return cycles >= 0 && cycles < 1e30; };  // NaN fails
        if (!(usable(pc.tensor) && usable(pc.fma) && usable(pc.xu) && usable(pc.dram) && usable(pc.l2) && usable(pc.smem))) {
            const std::pair<const char*, double> pipes[] = {{"tensor", pc.tensor}, {"fma", pc.fma}, {"xu", pc.xu},
                                                            {"dram", pc.dram},     {"l2", pc.l2},   {"smem", pc.smem}};
            for (const auto& [pipe, cycles] : pipes)
                if (!usable(cycles))
                    synperf::detail::report_error(where() + ": task class " + std::to_string(k) + " " + pipe +
                                                  " cycles must be finite and >= 0" +
                                                  (cycles == 1e30 ? " (the GPU has no rate for its tensor type)" : " (check the GPU's rates)") +
                                                  ", got " + number_text(cycles));
        }
        const double cost = pc.max();
        p.cost[k] = cost;
        if (c.count == 0) continue;
        if (c.count > std::numeric_limits<std::int64_t>::max() - p.count)
            synperf::detail::report_error(where() + ": total task count overflows int64 at class " + std::to_string(k));
        p.count += c.count;
        p.max_cost = std::max(p.max_cost, cost);
        if (!have_type && c.work.tensor_flop > 0) {
            p.tensor_type = c.work.tensor_type;
            p.tensor_issue = c.work.tensor_issue;
            have_type = true;
        }
        if (!have_first) {
            p.first = k;
            have_first = true;
        } else if (p.uniform && !same_work(c.work, tasks[p.first].work)) {
            p.uniform = false;
        }
    }
    p.total = zero_work(p);
    for (const work::task_class& c : tasks)
        if (c.count > 0) p.total += c.work.scaled(static_cast<double>(c.count));
    return p;
}

/// ceil(a / b) for a >= 0, b > 0, without overflow.
[[nodiscard]] constexpr std::int64_t ceil_div(std::int64_t a, std::int64_t b) noexcept { return a / b + (a % b != 0); }

}  // namespace synperf::scheduler::detail
