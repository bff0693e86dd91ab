// SPDX-License-Identifier: Apache-2.0
#pragma once
/// \file The GPU's block scheduler: CTAs in grid order to SMs with a free resident slot.
#include <algorithm>
#include <cstdint>
#include <functional>
#include <span>
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

/// Walks the CTAs of task classes in grid order.
class grid_cursor {
public:
    explicit grid_cursor(std::span<const work::task_class> tasks) noexcept : tasks_(tasks) {}
    /// Passes over `n` CTAs of class `k`, the first non-empty class, before any was taken.
    void skip_first(std::size_t k, std::int64_t n) noexcept {
        k_ = k;
        used_ = n;
    }
    /// Class of the next CTA; the caller guarantees one is left.
    std::size_t take() noexcept {
        while (used_ == tasks_[k_].count) {
            ++k_;
            used_ = 0;
        }
        ++used_;
        return k_;
    }

private:
    std::span<const work::task_class> tasks_;
    std::size_t k_ = 0;
    std::int64_t used_ = 0;
};

/// The fields every hardware-dispatch result has, before placement.
[[nodiscard]] inline schedule_result round_robin_base(const gpu::gpu_numbers& g, const schedule_options& o,
                                                      const prepared_tasks& p) {
    schedule_result r;
    r.tasks = p.count;
    r.grid_ctas = p.count;
    r.slots_per_sm = o.slots_per_sm;
    r.waves = static_cast<double>(ceil_div(p.count, std::int64_t{o.slots_per_sm} * g.sm_count));
    r.total = p.total;
    r.sm_max = zero_work(p);
    if (o.per_sm_loads) r.per_sm.assign(static_cast<std::size_t>(g.sm_count), zero_work(p));
    return r;
}

/// Closed form for identical tasks: SM i gets floor(n / SMs) tasks, plus one if i < n mod SMs.
[[nodiscard]] inline schedule_result round_robin_closed_form(std::span<const work::task_class> tasks,
                                                             const gpu::gpu_numbers& g, const schedule_options& o,
                                                             const prepared_tasks& p) {
    schedule_result r = round_robin_base(g, o, p);
    if (p.count == 0) return r;
    const std::int64_t sms = g.sm_count;
    const std::int64_t q = p.count / sms;
    const std::int64_t rem = p.count % sms;
    const std::int64_t most = q + (rem > 0 ? 1 : 0);
    const work::task_work& w = tasks[p.first].work;
    r.makespan_cycles = static_cast<double>(most) * p.cost[p.first];
    r.sm_max = w.scaled(static_cast<double>(most));
    detail::stamp_tensor_kind(r.sm_max, p);
    r.busy_sms = static_cast<int>(std::min(p.count, sms));
    for (std::size_t i = 0; i < r.per_sm.size(); ++i) {
        r.per_sm[i] = w.scaled(static_cast<double>(q + (std::int64_t(i) < rem ? 1 : 0)));
        detail::stamp_tensor_kind(r.per_sm[i], p);
    }
    return r;
}

/// Event-driven simulation with processor sharing on each SM.
///
/// Each SM keeps a virtual time that advances at 1/k while k CTAs are resident; a CTA of cost c that
/// arrives at virtual time v leaves at v + c. CTAs freed at the same instant are refilled breadth-first
/// (one CTA per SM in SM order, then a second pass), as the initial fill is and as GPGPU-Sim's
/// issue_block2core loop does; this makes identical tasks land on SM j mod SMs, the closed form.
/// An SM is busy from time 0 until its last CTA leaves, so its finish time is the sum of its costs.
///
/// Whole waves of the first class are not simulated CTA by CTA: from the empty GPU, `slots` equal CTAs on
/// every SM arrive together, leave together and are replaced together, so after w such waves every SM
/// stands at real time w·slots·c and virtual time w·c with nothing resident, which is where the
/// simulation continues (exact, ties included, since every SM gets the same numbers).
[[nodiscard]] inline schedule_result round_robin_simulate(std::span<const work::task_class> tasks,
                                                          const gpu::gpu_numbers& g, const schedule_options& o,
                                                          const prepared_tasks& p) {
    schedule_result r = round_robin_base(g, o, p);
    if (p.count == 0) return r;
    const int sms = g.sm_count;
    // More slots than ceil(n / SMs) never fill; capping them keeps memory O(tasks + SMs).
    const int slots = static_cast<int>(std::min<std::int64_t>(o.slots_per_sm, ceil_div(p.count, sms)));

    std::vector<double> vfin(static_cast<std::size_t>(sms) * static_cast<std::size_t>(slots));  // per-SM min-heaps
    std::vector<int> resident(static_cast<std::size_t>(sms), 0);
    std::vector<double> t_sm(static_cast<std::size_t>(sms), 0.0);  // real time of the SM's last event
    std::vector<double> v_sm(static_cast<std::size_t>(sms), 0.0);  // virtual time at t_sm
    sm_sums sums(sms);
    grid_cursor cursor(tasks);
    std::int64_t left = p.count;
    const auto heap_of = [&](int s) { return vfin.data() + static_cast<std::size_t>(s) * static_cast<std::size_t>(slots); };

    const auto place = [&](int s) {
        const std::size_t k = cursor.take();
        --left;
        double* h = heap_of(s);
        const auto u = static_cast<std::size_t>(s);
        h[resident[u]++] = v_sm[u] + p.cost[k];
        std::push_heap(h, h + resident[u], std::greater<>{});
        sums.add_sum(u, tasks[k].work, p.cost[k], 1);
    };
    const auto next_event = [&](int s) {
        const auto u = static_cast<std::size_t>(s);
        return t_sm[u] + (heap_of(s)[0] - v_sm[u]) * resident[u];
    };

    const std::int64_t per_wave = std::int64_t{sms} * slots;
    if (const std::int64_t waves = tasks[p.first].count / per_wave; waves > 0) {
        const double c = p.cost[p.first];
        const std::int64_t each = waves * slots;
        const work::task_work w = tasks[p.first].work.scaled(static_cast<double>(each));
        for (std::size_t u = 0; u < static_cast<std::size_t>(sms); ++u) {
            sums.add_sum(u, w, static_cast<double>(each) * c, each);
            t_sm[u] = static_cast<double>(each) * c;
            v_sm[u] = static_cast<double>(waves) * c;
        }
        cursor.skip_first(p.first, waves * per_wave);
        left -= waves * per_wave;
    }

    for (int pass = 0; pass < slots && left > 0; ++pass)
        for (int s = 0; s < sms && left > 0; ++s) place(s);

    using event = std::pair<double, int>;  // (time the SM's next CTA leaves, SM); min-heap, ties to the lowest SM
    std::vector<event> events;
    events.reserve(static_cast<std::size_t>(sms));
    for (int s = 0; s < sms; ++s)
        if (resident[static_cast<std::size_t>(s)] > 0) events.emplace_back(next_event(s), s);
    std::make_heap(events.begin(), events.end(), std::greater<>{});

    std::vector<std::pair<int, int>> batch;  // (SM, slots freed) at one instant, in SM order
    while (left > 0 && !events.empty()) {
        const double now = events.front().first;
        batch.clear();
        int most_freed = 0;
        while (!events.empty() && events.front().first == now) {
            std::pop_heap(events.begin(), events.end(), std::greater<>{});
            const int s = events.back().second;
            events.pop_back();
            const auto u = static_cast<std::size_t>(s);
            double* h = heap_of(s);
            const double v = h[0];
            t_sm[u] = now;
            v_sm[u] = v;
            int freed = 0;
            while (resident[u] > 0 && h[0] <= v) {
                std::pop_heap(h, h + resident[u], std::greater<>{});
                --resident[u];
                ++freed;
            }
            batch.emplace_back(s, freed);
            most_freed = std::max(most_freed, freed);
        }
        for (int pass = 0; pass < most_freed && left > 0; ++pass)
            for (const auto& [s, freed] : batch)
                if (freed > pass && left > 0) place(s);
        for (const auto& [s, freed] : batch) {
            if (resident[static_cast<std::size_t>(s)] > 0) {
                events.emplace_back(next_event(s), s);
                std::push_heap(events.begin(), events.end(), std::greater<>{});
            }
        }
    }
    sums.finish(r, p, o.per_sm_loads);
    return r;
}

/// Grids at least this many times larger than the resident slots are placed in bulk (`round_robin_bulk`).
inline constexpr std::int64_t bulk_waves = 32;

/// Bulk placement of a large grid: every class gives each SM floor(n / SMs) of its CTAs, and the n mod SMs
/// left over go to the SMs with the least work so far (the ones whose slots free first, as the hardware
/// refills them). O(classes x runs of SMs with equal work) instead of O(CTAs log SMs). It ignores where a
/// class's CTAs fall inside a wave, so an SM may differ from the simulation by about one CTA; over >=
/// `bulk_waves` waves that stays within 1 % of the makespan (bounded by a test against `round_robin_simulate`).
[[nodiscard]] inline schedule_result round_robin_bulk(std::span<const work::task_class> tasks, const gpu::gpu_numbers& g,
                                                      const schedule_options& o, const prepared_tasks& p) {
    schedule_result r = round_robin_base(g, o, p);
    if (p.count == 0) return r;
    const std::int64_t sms = g.sm_count;
    // The SMs in (cycles, id) order, as runs of SMs that took the same CTAs (the longest-first placement's
    // `cta_order`, one "CTA" per SM): all empty at first; the `left` CTAs of a class go to its front.
    cta_order order(g.sm_count);
    cta_histories histories(tasks, p.cost, static_cast<std::size_t>(sms));
    // What every SM gets from the whole rounds: it shifts all loads alike, so it is added once at the end.
    work::task_work every_sm = zero_work(p);
    double every_sm_cycles = 0;
    std::int64_t every_sm_count = 0;
    for (std::size_t k = 0; k < tasks.size(); ++k) {
        const std::int64_t n = tasks[k].count;
        if (n == 0) continue;
        if (const std::int64_t rounds = n / sms; rounds > 0) {
            every_sm += tasks[k].work.scaled(static_cast<double>(rounds));
            every_sm_cycles += static_cast<double>(rounds) * p.cost[k];
            every_sm_count += rounds;
        }
        if (const std::int64_t left = n % sms; left > 0) {
            if (!take_one_each(order, histories, left, k, p.cost[k])) cta_order::sort(order.taken());
            order.merge(order.taken());
        }
    }
    sm_sums sums(g.sm_count);
    histories.add_to(sums, order.runs());
    for (std::size_t s = 0; s < static_cast<std::size_t>(sms); ++s) sums.add_sum(s, every_sm, every_sm_cycles, every_sm_count);
    sums.finish(r, p, o.per_sm_loads);
    return r;
}

/// Runs the event simulation even where the closed form applies (for tests and benchmarks).
[[nodiscard]] inline schedule_result round_robin_simulate(std::span<const work::task_class> tasks,
                                                          const gpu::gpu_numbers& g, const schedule_options& o) {
    return round_robin_simulate(tasks, g, o, prepare(tasks, g, o, "hardware_round_robin"));
}

}  // namespace detail

/// The hardware block scheduler: CTAs in grid order to SMs with a free resident slot.
///
/// The first `slots_per_sm * SMs` CTAs fill the SMs breadth-first (CTA i to SM i mod SMs, then the second
/// slots, ...). Co-resident CTAs share their SM's pipes (processor sharing); when a CTA leaves, the next
/// CTA in grid order goes to the SM that freed a slot first (ties: lowest SM id, one CTA per SM per
/// pass). Identical tasks use a closed form, O(1) in the number of tasks; other inputs run an event
/// simulation, O(log SMs) per CTA, or, for grids of `bulk_waves` or more waves, the bulk placement
/// (within 1 % of the simulation). The makespan is the busiest SM's sum of task costs.
struct hardware_round_robin {
    using dispatch = hardware_dispatch_tag;

    /// Places `tasks` (classes in grid order) on the SMs of `g`.
    [[nodiscard]] static schedule_result schedule(std::span<const work::task_class> tasks, const gpu::gpu_numbers& g,
                                                  const schedule_options& o) {
        const detail::prepared_tasks p = detail::prepare(tasks, g, o, "hardware_round_robin");
        if (p.uniform) return detail::round_robin_closed_form(tasks, g, o, p);
        if (p.count >= detail::bulk_waves * std::int64_t{o.slots_per_sm} * g.sm_count) return detail::round_robin_bulk(tasks, g, o, p);
        return detail::round_robin_simulate(tasks, g, o, p);
    }
};

static_assert(Scheduler<hardware_round_robin>);

}  // namespace synperf::scheduler
