// SPDX-License-Identifier: Apache-2.0
#pragma once
/// \file doctest conformance suite for the Scheduler concept.
///
/// Apply it to your scheduler in one of your test files:
/// \code
/// #include <synperf/testing/scheduler_conformance.hpp>
/// TEST_CASE_TEMPLATE_APPLY(synperf_scheduler_conformance, std::tuple<my::scheduler>);
/// \endcode
/// Laws checked (see docs/concepts.md#scheduler): no tasks -> makespan 0; n equal tasks of cost c ->
/// ceil(n / SMs) * c for any resident slots (persistent: default grid); on random heterogeneous inputs the
/// makespan is >= the largest task, >= total cost / SMs and <= total cost; work is conserved (total, and
/// per-SM loads that sum to it when requested); waves = ceil(tasks / (slots * SMs)); results are
/// deterministic; bad options throw `synperf::invalid_argument`.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <span>
#include <vector>

#include "synperf/error.hpp"
#include "synperf/gpu/numbers.hpp"
#include "synperf/scheduler/concept.hpp"
#include "synperf/work/task.hpp"

namespace synperf::testing {

/// A GPU with `sms` SMs and round numbers: both clocks 1000 MHz; per SM per clock 1024 bf16 tensor flop,
/// 128 FP32 FMA, 16 XU, 128 B shared memory, and an even share of 64 B DRAM and 256 B L2.
[[nodiscard]] constexpr gpu::gpu_numbers conformance_gpu(int sms) {
    gpu::gpu_numbers g;
    g.cc_major = 9;
    g.sm_count = sms;
    g.tensor_clock_mhz = 1000;
    g.boost_clock_mhz = 1000;
    g.tensor_bf16_flop_per_clk = 1024;
    g.tensor_fp8_flop_per_clk = 2048;
    g.fma_fp32_per_clk = 128;
    g.xu_per_clk = 16;
    g.dram_gbps = 64.0 * sms;
    g.l2_bytes = 50e6;
    g.l2_gbps = 256.0 * sms;
    g.smem_bytes_per_clk = 128;
    g.smem_per_sm_bytes = 228 * 1024;
    g.smem_per_cta_bytes = 227 * 1024;
    g.regs_per_sm = 65536;
    g.max_regs_per_thread = 255;
    g.max_warps_per_sm = 64;
    g.max_threads_per_sm = 2048;
    g.max_ctas_per_sm = 32;
    g.max_threads_per_cta = 1024;
    g.pcie_gbps = 64;
    g.memory_bytes = 80e9;
    return g;
}

namespace detail {

/// Work that takes `tensor_cycles` on the tensor pipe and `dram_cycles` of the SM's DRAM share of a `conformance_gpu`.
[[nodiscard]] constexpr work::task_work task_of(double tensor_cycles, double dram_cycles) {
    work::task_work w;
    w.tensor_flop = 1024.0 * tensor_cycles;
    w.dram_bytes = 64.0 * dram_cycles;
    return w;
}

/// Random task classes: 1..12 classes of 0..40 tasks mixing tensor, FMA, DRAM and shared-memory work.
inline std::vector<work::task_class> random_classes(std::mt19937_64& rng) {
    // Our own draws from raw engine output: std distributions differ between standard libraries.
    const auto draw = [&](std::uint64_t n) { return static_cast<std::int64_t>(rng() % n); };
    std::vector<work::task_class> tasks(static_cast<std::size_t>(1 + draw(12)));
    for (work::task_class& c : tasks) {
        c.count = draw(41);
        c.work.tensor_flop = 1024.0 * static_cast<double>(draw(5000));
        c.work.fma_ops = draw(3) == 0 ? 128.0 * static_cast<double>(draw(3000)) : 0.0;
        c.work.dram_bytes = 64.0 * static_cast<double>(draw(4000)) + 0.5 * static_cast<double>(draw(7));
        c.work.smem_bytes = draw(2) == 0 ? 128.0 * static_cast<double>(draw(2000)) : 0.0;
    }
    return tasks;
}

inline void check_work_equal(const work::task_work& a, const work::task_work& b) {
    CHECK(a.tensor_flop == doctest::Approx(b.tensor_flop));
    CHECK(a.fma_ops == doctest::Approx(b.fma_ops));
    CHECK(a.xu_ops == doctest::Approx(b.xu_ops));
    CHECK(a.dram_bytes == doctest::Approx(b.dram_bytes));
    CHECK(a.l2_bytes == doctest::Approx(b.l2_bytes));
    CHECK(a.smem_bytes == doctest::Approx(b.smem_bytes));
}

[[nodiscard]] inline std::int64_t ceil_div(std::int64_t a, std::int64_t b) { return (a + b - 1) / b; }

}  // namespace detail
}  // namespace synperf::testing

TEST_CASE_TEMPLATE_DEFINE("scheduler conformance", S, synperf_scheduler_conformance) {
    using synperf::gpu::gpu_numbers;
    using synperf::scheduler::schedule_options;
    using synperf::scheduler::schedule_result;
    using synperf::work::task_class;
    using synperf::work::task_work;
    namespace testing = synperf::testing;
    static_assert(synperf::scheduler::Scheduler<S>);

    SUBCASE("no tasks -> makespan 0") {
        for (const int sms : {1, 4, 132}) {
            const gpu_numbers g = testing::conformance_gpu(sms);
            schedule_options o;
            o.per_sm_loads = true;
            const schedule_result empty = S::schedule({}, g, o);
            CHECK(empty.makespan_cycles == 0);
            CHECK(empty.tasks == 0);
            CHECK(empty.waves == 0);
            CHECK(empty.busy_sms == 0);
            const std::vector<task_class> zero_counts{{testing::detail::task_of(1, 1), 0}, {testing::detail::task_of(0, 10), 0}};
            const schedule_result r = S::schedule(zero_counts, g, o);
            CHECK(r.makespan_cycles == 0);
            CHECK(r.tasks == 0);
            CHECK(r.busy_sms == 0);
            testing::detail::check_work_equal(r.total, task_work{});
            for (const task_work& w : r.per_sm) testing::detail::check_work_equal(w, task_work{});
        }
    }

    SUBCASE("n equal tasks of cost c -> ceil(n / SMs) * c, for 1..4 resident slots") {
        for (const int sms : {1, 4, 7, 132}) {
            const gpu_numbers g = testing::conformance_gpu(sms);
            // A task with two busy pipes and a non-integer cost: tensor 1000 cycles, DRAM 1234.5 cycles.
            const task_work w = testing::detail::task_of(1000, 1234.5);
            const double c = synperf::work::task_cost(w, g);
            REQUIRE(c == doctest::Approx(1234.5));
            for (const std::int64_t n : {std::int64_t{1}, std::int64_t{sms} - 1, std::int64_t{sms}, std::int64_t{sms} + 1,
                                         10 * std::int64_t{sms} + 3}) {
                for (int slots = 1; slots <= 4; ++slots) {
                    CAPTURE(sms);
                    CAPTURE(n);
                    CAPTURE(slots);
                    schedule_options o;
                    o.slots_per_sm = slots;
                    const double expected = static_cast<double>(testing::detail::ceil_div(n, sms)) * c;
                    const std::vector<task_class> one{{w, n}};
                    const schedule_result r = S::schedule(one, g, o);
                    CHECK(r.makespan_cycles == doctest::Approx(expected));
                    CHECK(r.tasks == n);
                    if (n <= sms) CHECK(r.busy_sms == n);  // makespan c leaves one task per SM
                    CHECK(r.waves == static_cast<double>(testing::detail::ceil_div(n, std::int64_t{slots} * sms)));
                    // The same tasks split into classes in grid order.
                    const std::vector<task_class> split{{w, n / 2}, {w, 0}, {w, n - n / 2}};
                    CHECK(S::schedule(split, g, o).makespan_cycles == doctest::Approx(expected));
                }
            }
        }
    }

    SUBCASE("random heterogeneous inputs: bounds, conserved work, determinism") {
        std::mt19937_64 rng(20240611);
        const int sm_choices[] = {1, 3, 4, 16, 132};
        for (int trial = 0; trial < 60; ++trial) {
            const int sms = sm_choices[rng() % 5];
            const gpu_numbers g = testing::conformance_gpu(sms);
            const std::vector<task_class> tasks = testing::detail::random_classes(rng);
            schedule_options o;
            o.slots_per_sm = 1 + static_cast<int>(rng() % 4);
            o.per_sm_loads = true;
            CAPTURE(trial);
            CAPTURE(sms);
            CAPTURE(o.slots_per_sm);

            std::int64_t n = 0;
            double largest = 0, total_cost = 0;
            task_work total;
            for (const task_class& c : tasks) {
                const double cost = synperf::work::task_cost(c.work, g);
                n += c.count;
                if (c.count > 0) largest = std::max(largest, cost);
                total_cost += cost * static_cast<double>(c.count);
                total += c.work.scaled(static_cast<double>(c.count));
            }
            const schedule_result r = S::schedule(tasks, g, o);
            CHECK(r.tasks == n);
            CHECK(r.makespan_cycles >= doctest::Approx(largest));
            CHECK(r.makespan_cycles >= doctest::Approx(total_cost / sms));
            CHECK(r.makespan_cycles <= doctest::Approx(total_cost));
            CHECK(r.waves == static_cast<double>(testing::detail::ceil_div(n, std::int64_t{o.slots_per_sm} * sms)));
            CHECK(r.busy_sms >= 0);
            CHECK(r.busy_sms <= std::min<std::int64_t>(n, sms));
            testing::detail::check_work_equal(r.total, total);

            REQUIRE(r.per_sm.size() == static_cast<std::size_t>(sms));
            task_work sum, most;
            int loaded = 0;
            for (const task_work& w : r.per_sm) {
                sum += w;
                most.tensor_flop = std::max(most.tensor_flop, w.tensor_flop);
                most.fma_ops = std::max(most.fma_ops, w.fma_ops);
                most.xu_ops = std::max(most.xu_ops, w.xu_ops);
                most.dram_bytes = std::max(most.dram_bytes, w.dram_bytes);
                most.l2_bytes = std::max(most.l2_bytes, w.l2_bytes);
                most.smem_bytes = std::max(most.smem_bytes, w.smem_bytes);
                if (synperf::work::task_cost(w, g) > 0) ++loaded;
            }
            testing::detail::check_work_equal(sum, total);
            testing::detail::check_work_equal(r.sm_max, most);
            CHECK(r.busy_sms >= loaded);

            // Same input, same answer; asking for per-SM loads changes nothing else.
            schedule_options quiet = o;
            quiet.per_sm_loads = false;
            const schedule_result again = S::schedule(tasks, g, quiet);
            CHECK(again.makespan_cycles == r.makespan_cycles);
            CHECK(again.busy_sms == r.busy_sms);
            testing::detail::check_work_equal(again.sm_max, r.sm_max);
        }
    }

    SUBCASE("bad input throws invalid_argument") {
        const gpu_numbers g = testing::conformance_gpu(4);
        const std::vector<task_class> ok{{testing::detail::task_of(1, 0), 3}};
        schedule_options no_slots;
        no_slots.slots_per_sm = 0;
        CHECK_THROWS_AS((void)S::schedule(ok, g, no_slots), synperf::invalid_argument);
        const std::vector<task_class> negative{{testing::detail::task_of(1, 0), -1}};
        CHECK_THROWS_AS((void)S::schedule(negative, g, schedule_options{}), synperf::invalid_argument);
        gpu_numbers no_sms = g;
        no_sms.sm_count = 0;
        CHECK_THROWS_AS((void)S::schedule(ok, no_sms, schedule_options{}), synperf::invalid_argument);
    }
}
