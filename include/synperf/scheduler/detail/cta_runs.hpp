// SPDX-License-Identifier: Apache-2.0
#pragma once
/// \file The (load, id) order of a persistent grid's CTAs, kept as runs of consecutive CTAs that hold one load.
// IWYU pragma: private, include "synperf/scheduler.hpp"
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace synperf::scheduler::detail {

/// CTAs `first` ... `first + size - 1` of a persistent grid, which took the same units (one history, an index
/// into `cta_histories`) and so carry the same load in cycles.
struct cta_run {
    double load;
    std::int32_t history;
    std::int32_t first;
    std::int32_t size;
    [[nodiscard]] constexpr std::int32_t last() const noexcept { return first + size - 1; }
};

/// Whether CTA `a_cta` at `a_load` comes before CTA `b_cta` at `b_load`: least loaded first, ties to the lowest id.
[[nodiscard]] constexpr bool cta_before(double a_load, std::int32_t a_cta, double b_load, std::int32_t b_cta) noexcept {
    return a_load < b_load || (a_load == b_load && a_cta < b_cta);
}

/// The CTAs of a longest-first placement in (load, id) order, the order greedy picks them in.
///
/// A class's units go to a prefix of the order, and the CTAs of a prefix mostly took the same units before:
/// an FA3 prefill's 132 CTAs form about a dozen runs. Each step therefore costs O(runs), where one slot per
/// CTA cost O(CTAs). A run is split where a step takes only part of it; two runs that continue each other
/// are joined again.
class cta_order {
public:
    /// `ctas` CTAs, all at load 0 with history 0.
    explicit cta_order(std::int32_t ctas) {
        // A few dozen runs at most in practice: reserved, the vectors do not grow.
        for (std::vector<cta_run>* v : {&runs_, &scratch_, &taken_}) v->reserve(64);
        runs_.push_back({0.0, 0, 0, ctas});
    }

    [[nodiscard]] std::span<cta_run> runs() noexcept { return std::span<cta_run>(runs_).subspan(head_); }
    [[nodiscard]] std::span<const cta_run> runs() const noexcept { return std::span<const cta_run>(runs_).subspan(head_); }
    [[nodiscard]] const cta_run& front() const noexcept { return runs_[head_]; }
    [[nodiscard]] const cta_run& back() const noexcept { return runs_.back(); }

    /// CTAs with a load below `limit` (a prefix of the order, the loads being non-decreasing), counted up to `cap`.
    [[nodiscard]] std::int64_t count_below(double limit, std::int64_t cap) const noexcept {
        std::int64_t n = 0;
        for (const cta_run& r : runs()) {
            if (!(r.load < limit) || n >= cap) break;
            n += r.size;
        }
        return std::min(n, cap);
    }

    /// Removes the first `count` CTAs of the order (1 <= count <= CTAs) and returns them as runs, which stay
    /// valid until the next call.
    [[nodiscard]] std::span<cta_run> take_front(std::int64_t count) {
        taken_.clear();
        // The order starts at `head_`: taking whole runs moves it on instead of shifting the rest down.
        while (count > 0) {
            cta_run& r = runs_[head_];
            if (r.size <= count) {
                taken_.push_back(r);
                count -= r.size;
                ++head_;
            } else {  // the run's lowest ids come first
                const auto part = static_cast<std::int32_t>(count);
                taken_.push_back({r.load, r.history, r.first, part});
                r.first += part;
                r.size -= part;
                count = 0;
            }
        }
        return taken_;
    }

    /// Puts `runs` at the back of the order, as they are.
    void append(std::span<const cta_run> runs) {
        // Compacted when every run was taken, too: `join` must not extend a run that left the order.
        if (head_ == runs_.size() || runs_.size() + runs.size() > runs_.capacity()) compact();
        for (const cta_run& r : runs) join(runs_, r);
    }

    /// Merges `sorted` (runs in (load, id) order) into the order. Runs hold disjoint ranges of ids, so one
    /// run never interleaves with another: comparing their first CTAs orders all of theirs.
    void merge(std::span<const cta_run> sorted) {
        scratch_.clear();
        const std::span<const cta_run> order = runs();
        auto a = order.begin();
        auto b = sorted.begin();
        while (a != order.end() && b != sorted.end()) join(scratch_, first_before(*b, *a) ? *b++ : *a++);
        for (; a != order.end(); ++a) join(scratch_, *a);
        for (; b != sorted.end(); ++b) join(scratch_, *b);
        runs_.swap(scratch_);
        head_ = 0;
    }

    /// Sorts `runs` into (load, id) order (after rounding tied loads that were apart).
    static void sort(std::vector<cta_run>& runs) {
        std::sort(runs.begin(), runs.end(), first_before);
        std::size_t kept = 0;  // joins the runs that continue their predecessor
        for (std::size_t i = 1; i < runs.size(); ++i) {
            if (continues(runs[kept], runs[i]))
                runs[kept].size += runs[i].size;
            else
                runs[++kept] = runs[i];
        }
        runs.resize(kept + 1);
    }

    /// The runs last returned by `take_front`, to sort, merge or append.
    [[nodiscard]] std::vector<cta_run>& taken() noexcept { return taken_; }

private:
    [[nodiscard]] static bool first_before(const cta_run& a, const cta_run& b) noexcept {
        return cta_before(a.load, a.first, b.load, b.first);
    }

    /// Appends `r`, joined to the last run when it continues it (the same history, so the same load, and the
    /// next ids).
    static void join(std::vector<cta_run>& out, const cta_run& r) {
        if (!out.empty() && continues(out.back(), r)) {
            out.back().size += r.size;
            return;
        }
        out.push_back(r);
    }

    [[nodiscard]] static bool continues(const cta_run& a, const cta_run& b) noexcept {
        return a.history == b.history && a.load == b.load && a.last() + 1 == b.first;
    }

    /// Drops the runs before `head_`.
    void compact() {
        runs_.erase(runs_.begin(), runs_.begin() + static_cast<std::ptrdiff_t>(head_));
        head_ = 0;
    }

    std::vector<cta_run> runs_;     ///< the order is runs_[head_ ...]
    std::size_t head_ = 0;
    std::vector<cta_run> scratch_;  ///< `merge` builds the new order in it
    std::vector<cta_run> taken_;    ///< what `take_front` returned
};

}  // namespace synperf::scheduler::detail
