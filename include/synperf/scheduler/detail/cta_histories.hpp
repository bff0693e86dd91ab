// SPDX-License-Identifier: Apache-2.0
#pragma once
/// \file The units each persistent CTA took, shared between CTAs that took the same ones.
// IWYU pragma: private, include "synperf/scheduler.hpp"
#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "synperf/scheduler/detail/cta_runs.hpp"
#include "synperf/scheduler/detail/sm_sums.hpp"
#include "synperf/work/task.hpp"

namespace synperf::scheduler::detail {

/// Sums of the units a CTA took: the six work fields of `packed_work`, then cycles, then the unit count.
using history_sums = std::array<double, 8>;

/// The distinct histories of the CTAs of a longest-first placement.
///
/// Greedy hands each unit of a class to a different CTA, and the CTAs that take one in a step often took the
/// same units before: they then share one history, extended once per step instead of once per CTA, and
/// move through the order as one `cta_run`. The SM sums are built from the histories once at the end.
class cta_histories {
public:
    /// `tasks`: the classes whose units are added by index, `cost` their costs. History 0 is the empty one.
    cta_histories(std::span<const work::task_class> tasks, std::span<const double> cost, std::size_t ctas)
        : ctas_(ctas) {
        units_.reserve(tasks.size());
        for (std::size_t k = 0; k < tasks.size(); ++k) {
            const work::task_work& w = tasks[k].work;
            units_.push_back({w.tensor_flop, w.fma_ops, w.xu_ops, w.dram_bytes, w.l2_bytes, w.smem_bytes, cost[k], 1.0});
        }
        // `make_room` keeps at most room(ctas) histories before a step adds at most `ctas` more: with that
        // reserved, the vector never grows (capped for huge grids, which grow it as they need).
        histories_.reserve(std::min(room(ctas) + ctas + 1, std::size_t{1} << 14));
        histories_.push_back({});
    }

    /// Drops the histories no run of `order` holds once they outnumber the CTAs a few times over (renumbering
    /// the runs' ones), so memory stays O(CTAs) however many steps the placement takes. Call it before extending.
    void make_room(std::span<cta_run> order) {
        if (histories_.size() <= room(ctas_)) return;
        renumbered_.assign(histories_.size(), -1);
        live_.clear();
        for (cta_run& r : order) {
            std::int32_t& to = renumbered_[static_cast<std::size_t>(r.history)];
            if (to < 0) {
                to = static_cast<std::int32_t>(live_.size());
                live_.push_back({histories_[static_cast<std::size_t>(r.history)].sums, 0, 0});
            }
            r.history = to;
        }
        histories_.assign(live_.begin(), live_.end());  // keeps the capacity
    }

    /// Starts a step of the placement (`make_room` first), in which a history is extended at most once.
    [[nodiscard]] std::uint64_t begin_step(std::span<cta_run> order) {
        make_room(order);
        return ++step_;
    }

    /// History `h` with one unit of class `k`, made once in `step`: the CTAs that held `h` all hold the result.
    [[nodiscard]] std::int32_t extended_in_step(std::int32_t h, std::size_t k, std::uint64_t step) {
        const auto i = static_cast<std::size_t>(h);
        if (histories_[i].extended_in == step) return histories_[i].extended_to;
        const std::int32_t extended = extend(i, k, 1.0);
        histories_[i].extended_in = step;
        histories_[i].extended_to = extended;
        return extended;
    }

    /// History `h` with `units` units of class `k`, for one CTA alone.
    [[nodiscard]] std::int32_t extended_by(std::int32_t h, std::size_t k, std::int64_t units) {
        return extend(static_cast<std::size_t>(h), k, static_cast<double>(units));
    }

    /// Adds each CTA's history to the sums of its SM, CTA by CTA in `order`.
    void add_to(sm_sums& sums, std::span<const cta_run> order) const noexcept {
        for (const cta_run& r : order) {
            const history_sums& h = histories_[static_cast<std::size_t>(r.history)].sums;
            for (std::int32_t c = r.first; c <= r.last(); ++c)
                sums.add_sum(sums.sm_of(c), packed_work{h[0], h[1], h[2], h[3], h[4], h[5]}, h[6],
                             static_cast<std::int64_t>(h[7]));
        }
    }

private:
    [[nodiscard]] static std::size_t room(std::size_t ctas) noexcept { return 4 * ctas + 64; }

    /// A new history: `h` and `units` units of class `k`.
    std::int32_t extend(std::size_t h, std::size_t k, double units) {
        history next{histories_[h].sums, 0, 0};
        const history_sums& unit = units_[k];
        for (std::size_t f = 0; f < next.sums.size(); ++f) next.sums[f] += units * unit[f];
        histories_.push_back(next);
        return static_cast<std::int32_t>(histories_.size() - 1);
    }

    struct history {
        history_sums sums;
        std::uint64_t extended_in;  ///< the last step that extended it ...
        std::int32_t extended_to;   ///< ... and the history it became there
    };

    std::vector<history_sums> units_;  ///< one unit of each class
    std::size_t ctas_;
    std::vector<history> histories_;
    std::uint64_t step_ = 0;
    std::vector<std::int32_t> renumbered_;  ///< scratch of `make_room`
    std::vector<history> live_;             ///< scratch of `make_room`
};

/// One unit of class `k` (cost `c`) to each of the first `count` CTAs of `order`, which leave it: they are
/// `order.taken()` afterwards, to merge or append. Returns whether they are still in (load, id) order: equal
/// additions keep the loads non-decreasing, but rounding can tie two of them. Inside a run the ids rise, so only
/// where a run follows another can a tie break the order.
inline bool take_one_each(cta_order& order, cta_histories& histories, std::int64_t count, std::size_t k, double c) {
    const std::uint64_t step = histories.begin_step(order.runs());
    bool in_order = true;
    const cta_run* previous = nullptr;
    for (cta_run& run : order.take_front(count)) {
        run.load += c;
        run.history = histories.extended_in_step(run.history, k, step);
        if (previous != nullptr && run.load == previous->load && run.first < previous->last()) in_order = false;
        previous = &run;
    }
    return in_order;
}

}  // namespace synperf::scheduler::detail
