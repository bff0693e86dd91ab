// SPDX-License-Identifier: Apache-2.0
#pragma once
/// \file The units each persistent CTA took, shared between CTAs that took the same ones.
// IWYU pragma: private, include "synperf/scheduler.hpp"
#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <span>
#include <vector>

#include "synperf/scheduler/detail/sm_sums.hpp"
#include "synperf/work/task.hpp"

namespace synperf::scheduler::detail {

/// A persistent CTA: its load in cycles, its id and the history of the units it took (an index into
/// `cta_histories`). Sixteen bytes, so the placement's sorts and merges move little.
struct cta_load {
    double load;
    std::int32_t cta;
    std::int32_t history;
};

/// Sums of the units a CTA took: the six work fields of `packed_work`, then cycles, then the unit count.
using history_sums = std::array<double, 8>;

/// The distinct histories of the CTAs of a longest-first placement.
///
/// Greedy hands each unit of a class to a different CTA, and the CTAs that take one in a step often took the
/// same units before: they then share one history, extended once per step instead of once per CTA. A unit
/// placed costs a few loads and stores instead of eight additions into its SM's sums; the SM sums are
/// built once at the end.
class cta_histories {
public:
    /// `tasks`: the classes whose units are added by index, `cost` their costs. History 0 is the empty one.
    cta_histories(std::span<const work::task_class> tasks, std::span<const double> cost, std::size_t ctas)
        : tasks_(tasks), cost_(cost) {
        // `make_room` keeps at most room(ctas) histories before a step adds at most `ctas` more: with that
        // reserved, the vector never grows (capped for huge grids, which grow it as they need).
        histories_.reserve(std::min(room(ctas) + ctas + 1, std::size_t{1} << 14));
        histories_.push_back({});
    }

    /// One unit of class `k` (cost `cycles`) to each of the first `count` CTAs of `ctas` (all the CTAs of the
    /// grid, in (load, id) order): the placement's inner loop. Returns whether those CTAs are still in
    /// (load, id) order: equal additions keep the loads non-decreasing, but rounding can tie two of them.
    bool add_one_each(std::span<cta_load> ctas, std::size_t count, std::size_t k, double cycles) {
        make_room(ctas);
        const std::uint64_t step = ++step_;  // a local: the stores below could alias the member
        bool out_of_order = false;
        double previous_load = -std::numeric_limits<double>::infinity();
        std::int32_t previous_cta = 0;
        cta_load* c = ctas.data();
        cta_load* const end = c + count;
        // CTAs that hold one history hold one load too (they took the same units in the same order), so a
        // run of them takes one new load and one new history: the loads and the order are looked at once
        // per run. Inside a run the ids rise, so a tie can only break the order where a run starts.
        while (c != end) {
            const std::int32_t h = c->history;
            const double load = c->load + cycles;
            out_of_order |= (load == previous_load) & (c->cta < previous_cta);  // no branch: a tie is rare
            const std::int32_t extended = extended_in_step(static_cast<std::size_t>(h), k, step);
            do {
                c->load = load;
                c->history = extended;
                ++c;
            } while (c != end && c->history == h);
            previous_load = load;
            previous_cta = (c - 1)->cta;
        }
        return !out_of_order;
    }

    /// `units` units of class `k` to CTA `ctas[i]` (its load is the caller's).
    void add(std::span<cta_load> ctas, std::size_t i, std::size_t k, std::int64_t units) {
        make_room(ctas);
        ctas[i].history = extend(static_cast<std::size_t>(ctas[i].history), k, static_cast<double>(units));
    }

    /// Adds each CTA's history to the sums of its SM.
    void add_to(sm_sums& sums, std::span<const cta_load> ctas) const noexcept {
        for (const cta_load& c : ctas) {
            const history_sums& h = histories_[static_cast<std::size_t>(c.history)].sums;
            sums.add_sum(sums.sm_of(c.cta), packed_work{h[0], h[1], h[2], h[3], h[4], h[5]}, h[6],
                         static_cast<std::int64_t>(h[7]));
        }
    }

private:
    /// Drops the histories no CTA holds any more once they outnumber the CTAs a few times over, so memory
    /// stays O(CTAs) however many steps the placement takes.
    [[nodiscard]] static std::size_t room(std::size_t ctas) noexcept { return 4 * ctas + 64; }

    void make_room(std::span<cta_load> ctas) {
        if (histories_.size() <= room(ctas.size())) return;
        renumbered_.assign(histories_.size(), -1);
        live_.clear();
        for (cta_load& c : ctas) {
            std::int32_t& to = renumbered_[static_cast<std::size_t>(c.history)];
            if (to < 0) {
                to = static_cast<std::int32_t>(live_.size());
                live_.push_back({histories_[static_cast<std::size_t>(c.history)].sums, 0, 0});
            }
            c.history = to;
        }
        histories_.assign(live_.begin(), live_.end());  // keeps the capacity
    }

    /// History `h` with one unit of class `k`, made once per step: CTAs that shared `h` share the result.
    std::int32_t extended_in_step(std::size_t h, std::size_t k, std::uint64_t step) {
        if (histories_[h].extended_in == step) return histories_[h].extended_to;
        const std::int32_t extended = extend(h, k, 1.0);
        histories_[h].extended_in = step;
        histories_[h].extended_to = extended;
        return extended;
    }

    /// A new history: `h` and `units` units of class `k`.
    std::int32_t extend(std::size_t h, std::size_t k, double units) {
        history next{histories_[h].sums, 0, 0};
        const work::task_work& w = tasks_[k].work;
        const history_sums unit{w.tensor_flop, w.fma_ops, w.xu_ops, w.dram_bytes, w.l2_bytes, w.smem_bytes, cost_[k], 1.0};
        for (std::size_t f = 0; f < next.sums.size(); ++f) next.sums[f] += units * unit[f];
        histories_.push_back(next);
        return static_cast<std::int32_t>(histories_.size() - 1);
    }

    struct history {
        history_sums sums;
        std::uint64_t extended_in;  ///< the last step that extended it ...
        std::int32_t extended_to;   ///< ... and the history it became there
    };

    std::span<const work::task_class> tasks_;
    std::span<const double> cost_;
    std::vector<history> histories_;
    std::uint64_t step_ = 0;
    std::vector<std::int32_t> renumbered_;  ///< scratch of `make_room`
    std::vector<history> live_;             ///< scratch of `make_room`
};

}  // namespace synperf::scheduler::detail
