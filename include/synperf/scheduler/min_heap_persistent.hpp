// SPDX-License-Identifier: Apache-2.0
#pragma once
/// \file Software scheduler of persistent kernels: a fixed grid of CTAs pulls work units.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <numeric>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "synperf/gpu/numbers.hpp"
#include "synperf/scheduler/concept.hpp"
#include "synperf/scheduler/detail/cta_histories.hpp"
#include "synperf/scheduler/detail/cta_runs.hpp"
#include "synperf/scheduler/detail/prepared_tasks.hpp"
#include "synperf/scheduler/detail/sm_sums.hpp"
#include "synperf/work/task.hpp"

namespace synperf::scheduler {

namespace detail {

/// Persistent grid size: `persistent_ctas`, or min(units, slots_per_sm * SMs) when 0.
[[nodiscard]] inline std::int64_t persistent_grid(const gpu::gpu_numbers& g, const schedule_options& o,
                                                  std::int64_t units) noexcept {
    if (o.persistent_ctas > 0) return o.persistent_ctas;
    return std::min(units, std::int64_t{o.slots_per_sm} * g.sm_count);
}

/// The fields every persistent result has, before placement.
[[nodiscard]] inline schedule_result persistent_base(const gpu::gpu_numbers& g, const schedule_options& o,
                                                     const prepared_tasks& p, std::int64_t grid) {
    schedule_result r;
    r.tasks = p.count;
    r.grid_ctas = grid;
    r.slots_per_sm = o.slots_per_sm;
    r.waves = grid > 0 ? static_cast<double>(ceil_div(p.count, grid)) : 0.0;
    r.total = p.total;
    r.sm_max = zero_work(p);
    if (o.per_sm_loads) r.per_sm.assign(static_cast<std::size_t>(g.sm_count), zero_work(p));
    return r;
}

/// Closed form for identical units (both orders give unit j to CTA j mod G, CTA c lives on SM c mod SMs).
///
/// SM s hosts m_s = floor(G / SMs) + [s < G mod SMs] CTAs; with q = floor(n / G) and r = n mod G it gets
/// m_s q + floor(r / SMs) + [s < r mod SMs] units. SM 0 gets the most: ceil(G / SMs) q + ceil(r / SMs).
[[nodiscard]] inline schedule_result persistent_closed_form(std::span<const work::task_class> tasks,
                                                            const gpu::gpu_numbers& g, const schedule_options& o,
                                                            const prepared_tasks& p) {
    const std::int64_t grid = persistent_grid(g, o, p.count);
    schedule_result r = persistent_base(g, o, p, grid);
    if (p.count == 0) return r;
    const std::int64_t sms = g.sm_count;
    const std::int64_t ctas = std::min(grid, p.count);  // CTAs past the units get nothing
    const std::int64_t q = p.count / ctas;
    const std::int64_t rem = p.count % ctas;
    const auto units_on = [&](std::int64_t s) {
        const std::int64_t hosted = ctas / sms + (s < ctas % sms ? 1 : 0);
        return hosted * q + rem / sms + (s < rem % sms ? 1 : 0);
    };
    const std::int64_t most = units_on(0);
    const work::task_work& w = tasks[p.first].work;
    r.makespan_cycles = static_cast<double>(most) * p.cost[p.first];
    r.sm_max = w.scaled(static_cast<double>(most));
    detail::stamp_tensor_kind(r.sm_max, p);
    r.busy_sms = static_cast<int>(std::min(ctas, sms));
    for (std::size_t s = 0; s < r.per_sm.size(); ++s) {
        r.per_sm[s] = w.scaled(static_cast<double>(units_on(static_cast<std::int64_t>(s))));
        detail::stamp_tensor_kind(r.per_sm[s], p);
    }
    return r;
}

/// Places units as static stride (unit j to CTA j mod G) or longest first (stable sort by cost, descending;
/// each unit to the least-loaded CTA, ties to the lowest CTA id), whole groups of units at a time where the
/// result is the same as placing them one by one.
[[nodiscard]] inline schedule_result persistent_general(std::span<const work::task_class> tasks,
                                                        const gpu::gpu_numbers& g, const schedule_options& o,
                                                        const prepared_tasks& p) {
    const std::int64_t grid = persistent_grid(g, o, p.count);
    schedule_result r = persistent_base(g, o, p, grid);
    if (p.count == 0) return r;
    const int sms = g.sm_count;
    const std::int64_t ctas = std::min(grid, p.count);
    sm_sums sums(sms);

    if (o.order == unit_order::static_stride) {
        const auto add = [&](std::int64_t cta, std::size_t k, std::int64_t units) {
            sums.add(sums.sm_of(cta), tasks[k].work, units, p.cost[k]);
        };
        std::int64_t next = 0;  // CTA of the class's first unit
        for (std::size_t k = 0; k < tasks.size(); ++k) {
            const std::int64_t n = tasks[k].count;
            if (n == 0) continue;
            // Whole rounds over the grid: every CTA gets n / G units, so SM s gets them times its CTAs.
            if (const std::int64_t rounds = n / ctas; rounds > 0) {
                for (std::int64_t s = 0; s < sms && s < ctas; ++s) {
                    const std::int64_t hosted = ctas / sms + (s < ctas % sms ? 1 : 0);
                    add(s, k, rounds * hosted);
                }
            }
            std::int64_t c = next;
            for (std::int64_t i = 0; i < n % ctas; ++i) {
                add(c, k, 1);
                if (++c == ctas) c = 0;
            }
            next = c;
        }
    } else {
        if (ctas > std::numeric_limits<std::int32_t>::max())
            synperf::detail::report_error("min_heap_persistent: a persistent grid of " + std::to_string(ctas) +
                                          " CTAs exceeds CUDA's limit of 2^31 - 1");
        std::vector<std::size_t> order(tasks.size());
        std::iota(order.begin(), order.end(), std::size_t{0});
        // Units of one class are contiguous and equal, so a stable sort of classes is a stable sort of units.
        // Decomposers often list the classes longest first already.
        const auto longer = [&](std::size_t a, std::size_t b) { return p.cost[a] > p.cost[b]; };
        if (!std::is_sorted(order.begin(), order.end(), longer)) std::stable_sort(order.begin(), order.end(), longer);
        // The CTAs in (load in cycles, id) order: greedy's next choice is always the front.
        cta_order by_load(static_cast<std::int32_t>(ctas));
        cta_histories histories(tasks, p.cost, static_cast<std::size_t>(ctas));
        std::vector<std::int64_t> every_cta(tasks.size(), 0);  // units of class k that every CTA got in whole rounds
        // `units` units of class k (cost c each) to the front CTA alone, which then moves to its place.
        const auto front_takes = [&](std::size_t k, std::int64_t units, double c) {
            histories.make_room(by_load.runs());
            cta_run& front = by_load.take_front(1).front();
            front.history = histories.extended_by(front.history, k, units);
            front.load += static_cast<double>(units) * c;
            by_load.merge(std::span<const cta_run>(&front, 1));
        };
        // Greedy placement of n equal units of cost c, in two exact steps:
        // - While the loads spread over c or more, the CTAs below min + c take one unit each (their loads are
        //   the smallest levels L + j c), or the front alone takes every unit greedy gives it before it passes
        //   the next CTA in (load, id) order.
        // - Once every load lies in [min, min + c), a CTA that takes a unit passes all the others, so each
        //   round of G units gives every CTA one in (load, id) order and keeps that order: n / G rounds at
        //   once, then one unit to each of the n mod G first CTAs, which rotate to the back.
        // Each step costs O(runs of CTAs) and a class takes a few steps in practice, instead of O(n log G)
        // with a heap.
        const auto place_class = [&](std::size_t k, std::int64_t n) {
            const double c = p.cost[k];
            if (c == 0) {  // the least-loaded CTA stays least loaded (and first): it takes them all
                front_takes(k, n, c);
                return;
            }
            while (n > 0) {
                if (by_load.back().load - by_load.front().load < c) {
                    // Whole rounds raise every load alike and leave the order as it is: the loads in the order
                    // leave them out (they only order the CTAs; `every_cta` keeps the rounds). The `rest` first
                    // CTAs take one more and move to the back.
                    every_cta[k] += n / ctas;
                    if (const std::int64_t rest = n % ctas; rest > 0) {
                        static_cast<void>(take_one_each(by_load, histories, rest, k, c));
                        by_load.append(by_load.taken());
                    }
                    return;
                }
                // The spread is at least c > 0, so there are two runs or more. The CTAs loaded below front + c
                // (a prefix of the order) hold the smallest levels there are, one each: the first min(prefix, n)
                // take one unit, as greedy's next steps do, and merge back into the order.
                const std::int64_t prefix = by_load.count_below(by_load.front().load + c, std::max<std::int64_t>(n, 2));
                if (prefix > 1) {
                    const std::int64_t taken = std::min(prefix, n);
                    if (!take_one_each(by_load, histories, taken, k, c)) cta_order::sort(by_load.taken());  // rounding tied two loads
                    n -= taken;
                    by_load.merge(by_load.taken());
                    continue;
                }
                // Only the front CTA is that low: it takes every unit j = 0, 1, ... while (load + j c, id) comes
                // before the next CTA, and moves to its place. (The next CTA is in the front's run only where c
                // vanishes next to the loads.)
                const cta_run low = by_load.front();
                const bool next_in_front_run = low.size > 1;
                const double next_load = next_in_front_run ? low.load : by_load.runs()[1].load;
                const std::int32_t next_cta = next_in_front_run ? low.first + 1 : by_load.runs()[1].first;
                // Capped at the n units left before the cast: a gap of 2^63 units (costs 1e22 apart) is
                // no integer, and the count never needs more.
                auto units = static_cast<std::int64_t>(std::min(static_cast<double>(n), std::max(1.0, std::ceil((next_load - low.load) / c))));
                const auto before_next = [&](std::int64_t j) { return cta_before(low.load + static_cast<double>(j) * c, low.first, next_load, next_cta); };
                while (units > 1 && !before_next(units - 1)) --units;
                while (units < n && before_next(units)) ++units;
                units = std::min(units, n);
                front_takes(k, units, c);
                n -= units;
            }
        };
        // Adjacent classes (in cost order) with identical work are interchangeable units: one class.
        for (std::size_t i = 0; i < order.size();) {
            std::int64_t n = tasks[order[i]].count;
            std::size_t j = i + 1;
            while (j < order.size() && same_work(tasks[order[j]].work, tasks[order[i]].work)) n += tasks[order[j++]].count;
            if (n > 0) place_class(order[i], n);
            i = j;
        }
        histories.add_to(sums, by_load.runs());
        // The whole rounds gave every CTA the same work; SM s hosts floor(G / SMs) + [s < G mod SMs] CTAs.
        work::task_work per_cta = zero_work(p);
        double per_cta_cycles = 0;
        std::int64_t per_cta_units = 0;
        for (std::size_t k = 0; k < tasks.size(); ++k) {
            if (every_cta[k] == 0) continue;
            per_cta += tasks[k].work.scaled(static_cast<double>(every_cta[k]));
            per_cta_cycles += static_cast<double>(every_cta[k]) * p.cost[k];
            per_cta_units += every_cta[k];
        }
        if (per_cta_units > 0) {
            for (std::int64_t s = 0; s < sms && s < ctas; ++s) {
                const std::int64_t hosted = ctas / sms + (s < ctas % sms ? 1 : 0);
                sums.add_sum(static_cast<std::size_t>(s), per_cta.scaled(static_cast<double>(hosted)),
                             static_cast<double>(hosted) * per_cta_cycles, hosted * per_cta_units);
            }
        }
    }
    sums.finish(r, p, o.per_sm_loads);
    return r;
}

/// Runs the general placement even where the closed form applies (for tests and benchmarks).
[[nodiscard]] inline schedule_result persistent_general(std::span<const work::task_class> tasks,
                                                        const gpu::gpu_numbers& g, const schedule_options& o) {
    return persistent_general(tasks, g, o, prepare(tasks, g, o, "min_heap_persistent"));
}

}  // namespace detail

/// The software scheduler of persistent kernels: a fixed grid of G CTAs takes the work units.
///
/// G = `persistent_ctas` (0: min(units, slots_per_sm * SMs)); CTA c lives on SM c mod SMs. Units go to
/// CTAs by `options.order`: `static_stride` (unit j to CTA j mod G, CUTLASS's static persistent tile
/// scheduler) or `longest_first` (sorted by cost descending, stable; each to the least-loaded CTA, ties
/// to the lowest id: FA3's LPT order, FlashInfer's plan). CTAs on one SM share its pipes, so an SM's load
/// is the sum of its CTAs' loads and the makespan is the largest SM load. Identical units use a closed
/// form, O(1) in the number of units.
struct min_heap_persistent {
    using dispatch = persistent_dispatch_tag;

    /// Places `tasks` (work-unit classes in order) on the persistent CTAs and SMs of `g`.
    [[nodiscard]] static schedule_result schedule(std::span<const work::task_class> tasks, const gpu::gpu_numbers& g,
                                                  const schedule_options& o) {
        const detail::prepared_tasks p = detail::prepare(tasks, g, o, "min_heap_persistent");
        return p.uniform ? detail::persistent_closed_form(tasks, g, o, p) : detail::persistent_general(tasks, g, o, p);
    }
};

static_assert(Scheduler<min_heap_persistent>);

}  // namespace synperf::scheduler
