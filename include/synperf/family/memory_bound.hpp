// SPDX-License-Identifier: Apache-2.0
#pragma once
/// \file What the memory-bound families (RMSNorm, SiLU-and-mul, element-wise ops) share: a launch built from one
/// CTA's work, its compulsory work, and the features that describe it in scale-free terms.
///
/// These kernels move each byte once and do a few FP32 operations per element, so their time is set by
/// how fast the memory system delivers the bytes: DRAM bandwidth for footprints beyond L2, L2 bandwidth for
/// those that fit, and, for small grids or narrow per-thread accesses, memory latency (how many dependent
/// memory rounds each resident thread makes). The features carry all three as cycle counts and ratios to
/// the GPU's own capacities, so a model trained on some GPUs transfers to one it never saw.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "synperf/features/analysis.hpp"
#include "synperf/gpu/numbers.hpp"
#include "synperf/work/launch.hpp"
#include "synperf/work/task.hpp"

namespace synperf::family::memory_bound {

/// ceil(a / b) for positive integers.
[[nodiscard]] constexpr std::int64_t ceil_div(std::int64_t a, std::int64_t b) noexcept { return (a + b - 1) / b; }

/// One memory-bound launch: identical CTAs, each with the same work.
struct launch_shape {
    std::string name;               ///< kernel name, for reports
    std::int64_t ctas = 0;          ///< grid size
    int threads = 0;                ///< threads per CTA
    int regs = 32;                  ///< registers per thread
    int smem = 0;                   ///< shared memory per CTA, bytes
    int vector_bytes = 2;           ///< bytes one thread moves per global access
    double accesses_per_thread = 0; ///< global accesses (loads + stores) one thread makes, in its CTA
    double memory_rounds = 0;       ///< memory rounds a thread goes through in order (`kernel_launch::memory_rounds`)
    bool rounds_then_stream = false;  ///< `kernel_launch::rounds_then_stream`
    work::task_work cta;            ///< one CTA's work (l2_bytes = bytes it requests through L2)
};

/// The op's compulsory work: useful FMA and XU ops and its unique footprint in bytes.
struct compulsory_work {
    double fma_ops = 0;
    double xu_ops = 0;
    double footprint_bytes = 0;  ///< unique bytes read + written (each once)
};

/// A launch with its task class and compulsory work: bytes beyond L2 capacity go to DRAM, the rest are
/// served by L2; the scheduled CTAs carry the same DRAM share per byte requested.
[[nodiscard]] inline work::kernel_launch make_launch(const launch_shape& s, const compulsory_work& c,
                                                     const gpu::gpu_numbers& g) {
    work::kernel_launch k;
    k.name = s.name;
    k.launch = {s.threads, s.regs, s.smem};
    k.dispatch = work::dispatch_kind::hardware;
    k.memory_rounds = s.memory_rounds;
    k.rounds_then_stream = s.rounds_then_stream;
    work::task_work cta = s.cta;
    const double requested = cta.l2_bytes * double(s.ctas);
    const double dram = std::max(0.0, c.footprint_bytes - g.l2_bytes);
    cta.dram_bytes = requested > 0 ? cta.l2_bytes * dram / requested : 0.0;
    k.tasks.push_back({cta, s.ctas});
    work::task_work floor;
    floor.fma_ops = c.fma_ops;
    floor.xu_ops = c.xu_ops;
    floor.dram_bytes = dram;
    floor.l2_bytes = c.footprint_bytes - dram;
    k.compulsory = floor;
    return k;
}

/// A memory-bound op's plan: its launches (the main one first) and their shapes.
struct plan {
    std::vector<work::kernel_launch> kernels;
    std::vector<launch_shape> shapes;  ///< one per kernel, same order
    double footprint_bytes = 0;        ///< unique bytes of the whole op
};

/// Names of the features every memory-bound family starts with.
inline constexpr std::array<std::string_view, 14> common_feature_names{
    "theoretical_us", "dram_over_bound", "stream_over_bound", "l2_resident_over_bound", "l2_sm_max_over_bound",
    "fma_over_bound", "xu_over_bound", "latency_over_bound", "accesses_per_thread", "waves", "busy_sm_fraction",
    "vector_bytes", "footprint_over_l2", "kernels"};

/// The common features, over the op's kernels (cycle counts are summed, then divided by the op's lower
/// bound, so that every one is a ratio to the GPU's own capacities and transfers to an unseen GPU).
///
/// - `dram_over_bound`, `l2_resident_over_bound`: the lower bound's two memory terms; `stream_over_bound`:
///   the whole footprint at DRAM bandwidth (what a cold run pays); `l2_sm_max_over_bound`, `fma_over_bound`,
///   `xu_over_bound`: the busiest SM's requested L2 bytes, FMA and XU work at its own rates.
/// - memory rounds: the busiest SM's requested bytes over what its resident threads move per access
///   round, i.e. the dependent memory round trips a thread makes; times a nominal memory latency, a bound
///   for grids too small or accesses too narrow to cover the latency (`latency_over_bound`).
[[nodiscard]] inline std::array<double, common_feature_names.size()> common_features(
    const plan& pl, std::span<const features::kernel_features> kf, const gpu::gpu_numbers& g) {
    std::array<double, common_feature_names.size()> f{};
    const double sms = g.sm_count;
    const double l2_per_sm = g.l2_bytes_per_clk() / sms;
    double bound = 0, dram = 0, resident_l2 = 0, l2_max = 0, fma = 0, xu = 0, rounds = 0, accesses = 0;
    for (std::size_t i = 0; i < kf.size() && i < pl.shapes.size(); ++i) {
        const features::kernel_features& k = kf[i];
        const launch_shape& s = pl.shapes[i];
        bound += k.theoretical_cycles;
        dram += k.compulsory_dram_cycles;
        resident_l2 += k.resident_l2_cycles;
        l2_max += k.sm_max.l2;
        fma += k.sm_max.fma;
        xu += k.sm_max.xu;
        const double busiest_bytes = k.sm_max.l2 * l2_per_sm;
        const double per_round = k.resident_ctas_per_sm(g) * s.threads * s.vector_bytes;
        rounds += per_round > 0 ? busiest_bytes / per_round : 0.0;
        accesses += s.accesses_per_thread;
    }
    const double b = bound > 0 ? bound : 1.0;
    f[0] = features::cycles_to_us(bound, g);
    f[1] = dram / b;
    f[2] = pl.footprint_bytes / g.dram_bytes_per_clk() / b;
    f[3] = resident_l2 / b;
    f[4] = l2_max / b;
    f[5] = fma / b;
    f[6] = xu / b;
    f[7] = rounds * features::nominal_memory_latency_cycles / b;
    f[8] = accesses;
    if (!kf.empty() && !pl.shapes.empty()) {
        f[9] = kf[0].waves;
        f[10] = double(kf[0].busy_sms) / sms;
        f[11] = double(pl.shapes[0].vector_bytes);
    }
    f[12] = pl.footprint_bytes / g.l2_bytes;
    f[13] = double(pl.kernels.size());
    return f;
}

/// Names of the features of a one-CTA-per-row kernel whose floor adds its memory rounds to the transfer
/// (`launch_shape::rounds_then_stream`).
inline constexpr std::array<std::string_view, 3> row_feature_names{"log2_waves", "busy_sm_fraction", "vector_bytes"};

/// The features of such a kernel (the op's first launch), counts of the launch only: `log2_waves` (the waves run
/// back to back, the first and last cost more than those between), `busy_sm_fraction` (grids under one wave) and
/// `vector_bytes`. Trained on two or three GPUs, a model given any absolute size or any ratio of two of a GPU's
/// capacities learns each GPU's own level from it instead of the shape of the latency-bound time
/// (docs/families/rmsnorm.md).
[[nodiscard]] inline std::array<double, row_feature_names.size()> row_features(
    const plan& pl, std::span<const features::kernel_features> kf, const gpu::gpu_numbers& g) {
    std::array<double, row_feature_names.size()> f{};
    if (kf.empty() || pl.kernels.empty() || pl.shapes.empty()) return f;
    const features::kernel_features& k = kf[0];
    f[0] = std::log2(std::max(k.waves, 1.0));
    f[1] = double(k.busy_sms) / double(g.sm_count);
    f[2] = double(pl.shapes[0].vector_bytes);
    return f;
}

/// Concatenates the common features with a family's own.
template <std::size_t N, std::size_t M>
[[nodiscard]] constexpr std::array<double, N + M> join(const std::array<double, N>& a, const std::array<double, M>& b) {
    std::array<double, N + M> out{};
    std::copy(a.begin(), a.end(), out.begin());
    std::copy(b.begin(), b.end(), out.begin() + N);
    return out;
}

/// Concatenates the common feature names with a family's own.
template <std::size_t N, std::size_t M>
[[nodiscard]] constexpr std::array<std::string_view, N + M> join_names(const std::array<std::string_view, N>& a,
                                                                      const std::array<std::string_view, M>& b) {
    std::array<std::string_view, N + M> out{};
    for (std::size_t i = 0; i < N; ++i) out[i] = a[i];
    for (std::size_t i = 0; i < M; ++i) out[N + i] = b[i];
    return out;
}

}  // namespace synperf::family::memory_bound
