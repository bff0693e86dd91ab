// SPDX-License-Identifier: Apache-2.0
#pragma once
/// \file Software scheduler of persistent kernels: a fixed grid of CTAs pulls work units.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <numeric>
#include <span>
#include <utility>
#include <vector>

#include "synperf/gpu/numbers.hpp"
#include "synperf/scheduler/concept.hpp"
#include "synperf/scheduler/detail/prepared_tasks.hpp"
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
    r.sm_max = zero_work(p.tensor_type);
    if (o.per_sm_loads) r.per_sm.assign(static_cast<std::size_t>(g.sm_count), zero_work(p.tensor_type));
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
    r.sm_max.tensor_type = p.tensor_type;
    r.busy_sms = static_cast<int>(std::min(ctas, sms));
    for (std::size_t s = 0; s < r.per_sm.size(); ++s) {
        r.per_sm[s] = w.scaled(static_cast<double>(units_on(static_cast<std::int64_t>(s))));
        r.per_sm[s].tensor_type = p.tensor_type;
    }
    return r;
}

/// Places units one by one: static stride (unit j to CTA j mod G) or longest first (stable sort by cost,
/// descending; each unit to the least-loaded CTA, ties to the lowest CTA id).
[[nodiscard]] inline schedule_result persistent_general(std::span<const work::task_class> tasks,
                                                        const gpu::gpu_numbers& g, const schedule_options& o,
                                                        const prepared_tasks& p) {
    const std::int64_t grid = persistent_grid(g, o, p.count);
    schedule_result r = persistent_base(g, o, p, grid);
    if (p.count == 0) return r;
    const int sms = g.sm_count;
    const std::int64_t ctas = std::min(grid, p.count);
    std::vector<work::task_work> loads(static_cast<std::size_t>(sms), zero_work(p.tensor_type));
    std::vector<double> cycles(static_cast<std::size_t>(sms), 0.0);
    std::vector<std::int64_t> counts(static_cast<std::size_t>(sms), 0);
    const auto add = [&](std::int64_t cta, std::size_t k, std::int64_t units) {
        const auto s = static_cast<std::size_t>(cta % sms);
        loads[s] += units == 1 ? tasks[k].work : tasks[k].work.scaled(static_cast<double>(units));
        cycles[s] += static_cast<double>(units) * p.cost[k];
        counts[s] += units;
    };

    if (o.order == unit_order::static_stride) {
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
        std::vector<std::size_t> order(tasks.size());
        std::iota(order.begin(), order.end(), std::size_t{0});
        // Units of one class are contiguous and equal, so a stable sort of classes is a stable sort of units.
        std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return p.cost[a] > p.cost[b]; });
        using slot = std::pair<double, std::int64_t>;  // (load in cycles, CTA); min-heap, ties to the lowest CTA
        std::vector<slot> heap;
        heap.reserve(static_cast<std::size_t>(ctas));
        for (std::int64_t c = 0; c < ctas; ++c) heap.emplace_back(0.0, c);  // already a valid min-heap
        // Greedy placement of n equal units of cost c takes the n smallest of the levels L_i + j c (j >= 0) of
        // all CTAs, ties to the lowest CTA. Below T0 = min L + m c (m = floor(n / G)) there are at most G m <= n
        // levels, all among the n smallest: they are placed at once (checked, as rounding can move a level
        // across T0), repeatedly while G or more units are left; the rest go to the least-loaded CTAs at
        // once when that is what greedy does, else one by one. Exact, and O(G log(n / G)) per level placement
        // instead of O(n log G).
        const auto levels_below = [&](double t0, double c) {
            std::int64_t units = 0;
            for (const slot& s : heap)
                if (s.first < t0) units += static_cast<std::int64_t>(std::ceil((t0 - s.first) / c));
            return units;
        };
        // Fewer than G units whose costs exceed the spread of the r least-loaded CTAs go one to each of them,
        // in (load, id) order, exactly as r greedy steps would.
        const auto place_on_least_loaded = [&](std::size_t k, std::int64_t count) {
            const double c = p.cost[k];
            const auto cut = heap.begin() + static_cast<std::ptrdiff_t>(count - 1);
            std::nth_element(heap.begin(), cut, heap.end());
            if (!(cut->first < std::min_element(heap.begin(), cut + 1)->first + c)) {
                std::make_heap(heap.begin(), heap.end(), std::greater<>{});
                return false;
            }
            for (auto it = heap.begin(); it <= cut; ++it) {
                it->first += c;
                add(it->second, k, 1);
            }
            std::make_heap(heap.begin(), heap.end(), std::greater<>{});
            return true;
        };
        const auto place_class = [&](std::size_t k, std::int64_t n) {
            const double c = p.cost[k];
            if (c == 0) {  // the least-loaded CTA stays least loaded: it takes them all
                add(heap.front().second, k, n);
                return;
            }
            while (n >= ctas) {
                // The largest m whose levels fit in n units; levels_below grows with m, so bisect.
                const auto level_of = [&](std::int64_t m) { return heap.front().first + static_cast<double>(m) * c; };
                if (levels_below(level_of(1), c) > n) break;
                std::int64_t lo = 1, hi = n / ctas;
                while (lo < hi) {
                    const std::int64_t mid = lo + (hi - lo + 1) / 2;
                    if (levels_below(level_of(mid), c) <= n) lo = mid;
                    else hi = mid - 1;
                }
                const double floor_level = level_of(lo);
                std::int64_t placed = 0;
                for (slot& s : heap) {
                    if (s.first >= floor_level) continue;
                    const auto units = static_cast<std::int64_t>(std::ceil((floor_level - s.first) / c));
                    add(s.second, k, units);
                    s.first += static_cast<double>(units) * c;
                    placed += units;
                }
                std::make_heap(heap.begin(), heap.end(), std::greater<>{});
                n -= placed;
            }
            // The bulk path costs O(G); worth it only when the n heap steps it replaces cost more (n log G > G).
            if (n > 0 && n < ctas && double(n) * std::log2(double(ctas) + 1.0) > double(ctas) && place_on_least_loaded(k, n)) return;
            for (; n > 0; --n) {
                std::pop_heap(heap.begin(), heap.end(), std::greater<>{});
                heap.back().first += c;
                add(heap.back().second, k, 1);
                std::push_heap(heap.begin(), heap.end(), std::greater<>{});
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
    }
    finish_from_loads(r, loads, cycles, counts, p, o.per_sm_loads);
    return r;
}

/// Runs the unit-by-unit placement even where the closed form applies (for tests and benchmarks).
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
