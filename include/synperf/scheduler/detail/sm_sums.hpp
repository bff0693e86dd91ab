// SPDX-License-Identifier: Apache-2.0
#pragma once
/// \file Per-SM running sums of task work, packed for the placement loops.
// IWYU pragma: private, include "synperf/scheduler.hpp"
#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "synperf/scheduler/detail/prepared_tasks.hpp"
#include "synperf/work/task.hpp"

namespace synperf::scheduler::detail {

/// The six summed fields of a `task_work` (tensor flop, FMA, XU, DRAM, L2, smem), contiguous: adding them
/// is six packed adds, where a `task_work` (with its tensor type between the numbers) is copied field by
/// field.
using packed_work = std::array<double, 6>;

[[nodiscard]] constexpr packed_work pack(const work::task_work& w) noexcept {
    return {w.tensor_flop, w.fma_ops, w.xu_ops, w.dram_bytes, w.l2_bytes, w.smem_bytes};
}

/// Per-SM work, cycles and unit counts while units are placed; `finish` turns them into the result.
/// CTA c lives on SM c mod SMs.
class sm_sums {
public:
    /// `sms` SMs, all empty.
    explicit sm_sums(int sms)
        : sms_(sms), work_(static_cast<std::size_t>(sms), packed_work{}), cycles_(static_cast<std::size_t>(sms), 0.0),
          counts_(static_cast<std::size_t>(sms), 0) {}

    /// SM of CTA `cta`.
    [[nodiscard]] std::size_t sm_of(std::int64_t cta) const noexcept {
        return static_cast<std::size_t>(cta < sms_ ? cta : cta % sms_);
    }

    /// Cycles of the work on SM `s` so far.
    [[nodiscard]] double cycles(std::size_t s) const noexcept { return cycles_[s]; }

    /// `units` units of work `unit`, `cycles` each, on SM `s`.
    void add(std::size_t s, const work::task_work& unit, std::int64_t units, double cycles) noexcept {
        const auto n = static_cast<double>(units);
        packed_work w = pack(unit);
        for (double& f : w) f *= n;
        accumulate(s, w, n * cycles, units);
    }

    /// Work `w` and `cycles` already summed over `units` units, on SM `s`.
    void add_sum(std::size_t s, const work::task_work& w, double cycles, std::int64_t units) noexcept {
        accumulate(s, pack(w), cycles, units);
    }
    void add_sum(std::size_t s, const packed_work& w, double cycles, std::int64_t units) noexcept {
        accumulate(s, w, cycles, units);
    }

    /// Fills the result's per-SM fields from the sums: the field-wise busiest SM (`sm_max`), the makespan, the
    /// SMs with work, and a load per SM only where `keep_per_sm` asks for them.
    void finish(schedule_result& r, const prepared_tasks& p, bool keep_per_sm) const {
        packed_work most{};
        r.makespan_cycles = 0;
        r.busy_sms = 0;
        for (std::size_t s = 0; s < work_.size(); ++s) {
            for (std::size_t f = 0; f < most.size(); ++f) most[f] = std::max(most[f], work_[s][f]);
            r.makespan_cycles = std::max(r.makespan_cycles, cycles_[s]);
            if (counts_[s] > 0) ++r.busy_sms;
        }
        r.sm_max = unpack(most, p);
        if (!keep_per_sm) return;
        r.per_sm.clear();
        r.per_sm.reserve(work_.size());
        for (const packed_work& a : work_) r.per_sm.push_back(unpack(a, p));
    }

private:
    [[nodiscard]] static work::task_work unpack(const packed_work& a, const prepared_tasks& p) noexcept {
        work::task_work w = zero_work(p);
        w.tensor_flop = a[0];
        w.fma_ops = a[1];
        w.xu_ops = a[2];
        w.dram_bytes = a[3];
        w.l2_bytes = a[4];
        w.smem_bytes = a[5];
        return w;
    }

    void accumulate(std::size_t s, const packed_work& w, double cycles, std::int64_t units) noexcept {
        packed_work& a = work_[s];
        for (std::size_t f = 0; f < a.size(); ++f) a[f] += w[f];
        cycles_[s] += cycles;
        counts_[s] += units;
    }

    std::int64_t sms_;
    std::vector<packed_work> work_;
    std::vector<double> cycles_;
    std::vector<std::int64_t> counts_;
};

}  // namespace synperf::scheduler::detail
