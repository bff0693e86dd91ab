// SPDX-License-Identifier: Apache-2.0
#pragma once
/// \file GEMM as cuBLAS(Lt) runs it: Y[m,n] = X[m,k] * W[n,k]^T in bf16/fp16 with FP32 accumulate.
///
/// cuBLAS's heuristics are closed, so the decomposer derives the launch from the shape, dtype and GPU
/// the way its kernel names show it behaves (docs/kernels.md#cublas-gemm): sm_90/100/103 run persistent
/// warp-specialized kernels (TMA + wgmma/UMMA, one CTA per SM, static tile scheduler); sm_80/86/89/120 run
/// one CTA per output tile, multi-stage cp.async pipelines, optionally split-K with a separate reduction
/// kernel. Among per-architecture candidate tiles and split-K factors it picks the one with the smallest
/// estimated time (tile quantization, wave quantization, pipe and memory costs), never a lookup in data.
#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "synperf/detail/hash.hpp"
#include "synperf/error.hpp"
#include "synperf/family/concept.hpp"
#include "synperf/family/gemm_traffic.hpp"
#include "synperf/features/analysis.hpp"
#include "synperf/gpu/numbers.hpp"
#include "synperf/gpu/occupancy.hpp"
#include "synperf/work/launch.hpp"
#include "synperf/work/task.hpp"

namespace synperf::family {

/// Element type of a GEMM's inputs and output (both run on the bf16/fp16 tensor rate).
enum class gemm_dtype { bf16, fp16 };

/// One GEMM: Y[m,n] = X[m,k] * W[n,k]^T; m is the token count, n the output features, k the input features.
struct gemm_problem {
    std::int64_t m = 0;
    std::int64_t n = 0;
    std::int64_t k = 0;
    gemm_dtype dtype = gemm_dtype::bf16;
    /// Bytes the GPU touches between two runs of this GEMM on the same weights (its L2 reuse distance), or 0
    /// for serving, where the rest of the model passes in between and the weights come from DRAM. A benchmark
    /// loop that rotates a few weight copies has a short reuse distance and keeps small weights in L2;
    /// `data::gemm_reuse_distance` gives each collector's.
    double reuse_distance_bytes = 0;

    friend bool operator==(const gemm_problem&, const gemm_problem&) = default;
    friend std::size_t hash_value(const gemm_problem& p) noexcept {
        return synperf::detail::hash_fields(p.m, p.n, p.k, p.dtype, p.reuse_distance_bytes);
    }
};

/// The launch the decomposer chose.
struct gemm_config {
    int bm = 0, bn = 0, bk = 0;  ///< CTA tile
    int stages = 0;              ///< smem pipeline stages
    int split_k = 1;             ///< K splits (> 1: fp32 partials + a reduction kernel)
    bool persistent = false;     ///< persistent warp-specialized kernel with a static tile scheduler
    int threads = 0, regs = 0, smem_bytes = 0;
    int slots_per_sm = 1;        ///< resident CTAs per SM (occupancy)
    std::int64_t tiles_m = 0, tiles_n = 0;
    std::int64_t tiles = 0;      ///< work units incl. K splits
    std::int64_t k_iterations = 0;  ///< mainloop iterations per work unit
    double estimated_cycles = 0;    ///< the selection heuristic's estimate (reported; the model reads it as estimate_ratio)
};

/// Kernels of one GEMM: the main kernel, then the split-K reduction if any.
struct gemm_plan {
    gemm_config config;
    std::vector<work::kernel_launch> kernels;
    double footprint_bytes = 0;  ///< A + B + C
    double weight_bytes = 0;     ///< B (the weights), read cold in serving
    double refetch_bytes = 0;    ///< tile re-reads beyond the compulsory A + B
};

namespace gemm_detail {

struct tile_candidate {
    int bm, bn, bk, warps;
};

// Persistent warp-specialized (sm_90 / sm_100 / sm_103): 2 consumer warp groups + 1 producer for M >= 128.
inline constexpr std::array<tile_candidate, 7> persistent_tiles{{{128, 256, 64, 12}, {256, 128, 64, 12},
                                                                 {128, 128, 64, 12}, {128, 64, 64, 12},
                                                                 {64, 256, 64, 8},   {64, 128, 64, 8},
                                                                 {64, 64, 64, 8}}};
// Multistage cp.async + mma.sync (sm_80 / 86 / 89 / 120): tile names ampere_h16816gemm_<BM>x<BN>_..._stages_<BK>x<S>.
inline constexpr std::array<tile_candidate, 8> grid_tiles{{{256, 128, 32, 8}, {128, 256, 32, 8},
                                                           {128, 128, 32, 4}, {256, 64, 32, 4},
                                                           {64, 256, 32, 4},  {128, 64, 32, 4},
                                                           {64, 128, 32, 4},  {64, 64, 64, 4}}};
inline constexpr std::array<int, 8> split_options{1, 2, 3, 4, 6, 8, 12, 16};

constexpr std::int64_t ceil_div(std::int64_t a, std::int64_t b) noexcept { return (a + b - 1) / b; }

inline constexpr double element_bytes = 2.0;  // bf16 / fp16
inline constexpr double partial_bytes = 4.0;  // fp32 split-K partials
// Fixed cost per work unit not covered by the pipes: pipeline fill and epilogue (cycles). A persistent
// kernel overlaps one unit's epilogue with the next mainloop, so it pays less.
inline constexpr double grid_unit_overhead_cycles = 1200;
inline constexpr double persistent_unit_overhead_cycles = 400;
// A second kernel launch inside the same op (split-K reduction) costs about a microsecond of dependency gap.
inline constexpr double dependent_launch_us = 1.0;

inline gemm_traffic compulsory_traffic(const gemm_problem& p, const gpu::gpu_numbers& g) {
    return compulsory_gemm_traffic(p.m, p.n, p.k, element_bytes, element_bytes, g);
}

// The reuse distance as the model reads it: its ratio to L2, clamped to [1/8, 2]. Around 1 the weights go from
// L2-resident to streamed; from about 1.4 on (L40S data) nothing is left to hit, so larger distances, serving
// (0) included, read as 2 and cannot set one collector's large shapes apart from another's.
inline constexpr double reuse_ratio_floor = 0.125, reuse_ratio_limit = 2.0;
inline double reuse_over_l2(const gemm_problem& p, const gpu::gpu_numbers& g) {
    const double ratio = p.reuse_distance_bytes > 0 ? p.reuse_distance_bytes / g.l2_bytes : reuse_ratio_limit;
    return std::clamp(ratio, reuse_ratio_floor, reuse_ratio_limit);
}

struct choice {
    gemm_config config;
    double estimate = std::numeric_limits<double>::infinity();
};

/// The launch of tile `t` with K split `split` ways: everything but `slots_per_sm` and `estimated_cycles`.
inline gemm_config make_config(const gemm_problem& p, const gpu::gpu_numbers& g, const tile_candidate& t,
                               int split, bool persistent) {
    gemm_config c;
    c.bm = t.bm;
    c.bn = t.bn;
    c.bk = t.bk;
    c.split_k = split;
    c.persistent = persistent;
    c.threads = t.warps * 32;
    const int stage_bytes = (t.bm + t.bn) * t.bk * int(element_bytes);
    if (persistent) {
        // Registers are re-balanced with setmaxnreg; the launch asks 168 per thread (1 CTA/SM anyway).
        c.regs = 168;
        const int epilogue = std::min(t.bm * t.bn * int(element_bytes), 32 * 1024);
        c.stages = std::clamp((g.smem_per_cta_bytes - epilogue - 1024) / stage_bytes, 0, 8);
        c.smem_bytes = c.stages * stage_bytes + epilogue;
    } else {
        const int accumulators = t.bm * t.bn / c.threads;
        c.regs = std::min(255, (accumulators + 72 + 7) / 8 * 8);
        c.stages = std::clamp(g.smem_per_cta_bytes / stage_bytes, 0, 5);
        c.smem_bytes = c.stages * stage_bytes;
    }
    c.tiles_m = ceil_div(p.m, t.bm);
    c.tiles_n = ceil_div(p.n, t.bn);
    c.tiles = c.tiles_m * c.tiles_n * split;
    c.k_iterations = ceil_div(ceil_div(p.k, split), t.bk);
    return c;
}

/// The parts of the selection estimate that depend only on the problem and the GPU, computed once for all
/// candidates (the selection runs in every GEMM prediction).
struct estimate_terms {
    double sms = 0;
    double l2_bytes_per_sm_clk = 0;  ///< one SM's share of L2 bandwidth
    double dram_cycles = 0;          ///< the expected DRAM traffic at DRAM bandwidth
    double outputs = 0;              ///< m * n
    double dram_bytes_per_clk = 0;
    double launch_gap_cycles = 0;    ///< the split-K reduction's dependent launch

    estimate_terms(const gemm_problem& p, const gpu::gpu_numbers& g)
        : sms(g.sm_count),
          l2_bytes_per_sm_clk(g.l2_bytes_per_clk() / sms),
          dram_cycles(compulsory_traffic(p, g).expected_dram / g.dram_bytes_per_clk()),
          outputs(double(p.m) * double(p.n)),
          dram_bytes_per_clk(g.dram_bytes_per_clk()),
          launch_gap_cycles(dependent_launch_us * g.tensor_clock_mhz) {}
};

/// The selection heuristic: estimated cycles of one configuration.
inline double estimate_cycles(const estimate_terms& e, const gpu::gpu_numbers& g, const gemm_config& c) {
    const double k_padded = double(c.k_iterations) * c.bk;
    const double mma = 2.0 * c.bm * c.bn * k_padded / g.tensor_bf16_flop_per_clk;
    const double out_bytes = c.split_k > 1 ? partial_bytes : element_bytes;
    const double l2 = ((c.bm + c.bn) * k_padded * element_bytes + c.bm * c.bn * out_bytes) / e.l2_bytes_per_sm_clk;
    const double smem = (c.bm + c.bn) * k_padded * element_bytes / g.smem_bytes_per_clk;
    const double overhead = (c.persistent ? persistent_unit_overhead_cycles : grid_unit_overhead_cycles) / c.slots_per_sm;
    const double unit = std::max({mma, l2, smem}) + overhead;
    const double per_sm_units = std::ceil(double(c.tiles) / e.sms);
    double est = std::max(per_sm_units * unit, e.dram_cycles);
    if (c.split_k > 1)
        est += (e.outputs * c.split_k * partial_bytes + e.outputs * element_bytes) / e.dram_bytes_per_clk + e.launch_gap_cycles;
    return est;
}

inline gemm_config select_config(const gemm_problem& p, const gpu::gpu_numbers& g, bool persistent) {
    choice best;
    const estimate_terms terms(p, g);
    const std::span<const tile_candidate> tiles =
        persistent ? std::span<const tile_candidate>(persistent_tiles) : std::span<const tile_candidate>(grid_tiles);
    for (const tile_candidate& t : tiles) {
        // The launch, its residency and the output tiles are the tile's; only K's split varies below.
        gemm_config c = make_config(p, g, t, 1, persistent);
        if (c.stages < 2) continue;
        // A hypothetical GPU may not admit this tile's CTA at all; the next tile may still fit.
        if (c.threads > g.max_threads_per_cta || c.regs > g.max_regs_per_thread) continue;
        c.slots_per_sm = gpu::ctas_per_sm(g, {c.threads, c.regs, c.smem_bytes});
        if (c.slots_per_sm < 1) continue;
        if (persistent) c.slots_per_sm = 1;
        const std::int64_t output_tiles = c.tiles_m * c.tiles_n;
        const double area = double(c.bm) * c.bn;
        for (int split : split_options) {
            if (split > 1) {
                if (ceil_div(p.k, split) < 4 * t.bk) break;
                if (output_tiles >= g.sm_count) break;  // enough tiles: no reason to split K
                c.split_k = split;
                c.tiles = output_tiles * split;
                c.k_iterations = ceil_div(ceil_div(p.k, split), t.bk);
            }
            const double est = estimate_cycles(terms, g, c);
            const double best_area = double(best.config.bm) * best.config.bn;
            // Within 1 %, prefer the larger tile and fewer splits (cheaper launches, what heuristics favour).
            if (est < best.estimate * 0.99 ||
                (est <= best.estimate * 1.01 && (area > best_area || (area == best_area && split < best.config.split_k)))) {
                best.estimate = std::min(est, best.estimate);
                best.config = c;
                best.config.estimated_cycles = est;
            }
        }
    }
    if (!std::isfinite(best.estimate))
        synperf::detail::report_error(
            "gemm: no tile configuration fits one SM of this GPU (two pipeline stages in smem_per_cta_bytes = " +
            std::to_string(g.smem_per_cta_bytes) + ", and its threads and registers within max_threads_per_cta = " +
            std::to_string(g.max_threads_per_cta) + ", regs_per_sm = " + std::to_string(g.regs_per_sm) + ")");
    return best.config;
}

inline std::string kernel_name(const gemm_config& c, int sm_version) {
    // Built in every prediction: appended to one reserved string rather than through a temporary per part.
    std::string s;
    s.reserve(64);
    const auto number = [&s](std::int64_t v) {
        char digits[24];
        s.append(digits, std::to_chars(digits, digits + sizeof digits, v).ptr);
    };
    s += "sm";
    number(sm_version);
    s += c.persistent ? "_ws_persistent_" : "_multistage_";
    number(c.bm);
    s += 'x';
    number(c.bn);
    s += 'x';
    number(c.bk);
    s += '_';
    number(c.stages);
    s += "stage";
    if (c.split_k > 1) {
        s += "_splitk";
        number(c.split_k);
    }
    return s;
}

}  // namespace gemm_detail

/// The cuBLAS GEMM family policy.
struct gemm {
    using problem_type = gemm_problem;
    using plan_type = gemm_plan;
    static constexpr std::string_view name = "gemm";
    /// Its training latencies are CUDA-graph replays (aiconfigurator's collectors), so predictions include the in-graph launch gap.
    static constexpr bool timed_in_cuda_graph = true;

    /// Collector semantics: TensorRT-LLM's collector rotates weight copies (cold L2); the PyTorch-based
    /// collectors of SGLang and vLLM call the same cuBLAS through torch and are one level.
    static constexpr std::array<std::string_view, 2> framework_levels{"trtllm", "torch"};
    static std::size_t framework_level(std::string_view framework) {
        if (framework == "trtllm") return 0;
        if (framework == "sglang" || framework == "vllm" || framework == "torch") return 1;
        synperf::detail::report_error("gemm: unknown framework '" + std::string(framework) + "'; known: trtllm, sglang, vllm, torch");
    }

    // Scale-free: cycle counts enter as ratios to the op's lower bound, so that a GPU's absolute speed does not
    // identify it; the bound itself enters in µs (launch floor). No dispatch flag or occupancy input either: on the
    // train GPUs they single out one GPU (the only one-CTA-per-tile GPU) rather than describe the kernel. The tile sizes
    // are left out for the same reason: the tile acts through the cycle, wave and imbalance features it produces.
    static constexpr std::array<std::string_view, 20> feature_names{
        "theoretical_us", "tensor_all_ratio", "tensor_sm_max_ratio", "smem_sm_max_ratio", "l2_all_ratio",
        "l2_sm_max_ratio", "dram_ratio", "cold_weight_ratio", "dram_refetch_ratio", "l2_resident_ratio", "reduce_ratio",
        "waves", "wave_efficiency", "units_per_sm", "footprint_over_l2", "reuse_over_l2", "m", "n", "k", "estimate_ratio"};
    static constexpr std::size_t feature_count = feature_names.size();

    /// Main-kernel dispatch: persistent warp-specialized on sm_90/100/103, one CTA per tile elsewhere.
    static constexpr work::dispatch_kind main_dispatch(const gpu::gpu_numbers& g) noexcept {
        return (g.cc_major == 9 || g.cc_major == 10) ? work::dispatch_kind::persistent_static
                                                     : work::dispatch_kind::hardware;
    }

    /// Bytes the op's tensors take in device memory: X, W and Y (a split-K workspace left out).
    [[nodiscard]] static double device_bytes(const gemm_problem& p) noexcept {
        return (double(p.m) * double(p.k) + double(p.n) * double(p.k) + double(p.m) * double(p.n)) * gemm_detail::element_bytes;
    }

    /// Rejects zero, negative and overflowing shapes.
    static void validate(const gemm_problem& p) {
        synperf::detail::require_enum(p.dtype, gemm_dtype::fp16, "gemm: unknown dtype");
        const auto check = [](std::int64_t v, const char* dim) {
            if (v <= 0) synperf::detail::report_error(std::string("gemm: ") + dim + " must be > 0, got " + std::to_string(v));
            if (v > (std::int64_t{1} << 31))
                synperf::detail::report_error(std::string("gemm: ") + dim + " must be <= 2^31, got " + std::to_string(v));
        };
        check(p.m, "m");
        check(p.n, "n");
        check(p.k, "k");
        const double largest = std::max({double(p.m) * double(p.n), double(p.m) * double(p.k), double(p.n) * double(p.k)});
        if (largest > 0x1p40)
            synperf::detail::report_error("gemm: an operand of " + synperf::detail::approx(largest) + " elements exceeds 2^40 (no GPU holds it)");
        if (!(p.reuse_distance_bytes >= 0) || !std::isfinite(p.reuse_distance_bytes))
            synperf::detail::report_error("gemm: reuse_distance_bytes must be finite and >= 0 (0 = serving), got " +
                                          synperf::detail::value_text(p.reuse_distance_bytes));
    }

    /// Decomposes one GEMM on one GPU.
    static gemm_plan plan(const gemm_problem& p, const gpu::gpu_numbers& g) {
        validate(p);
        const bool persistent = work::is_persistent(main_dispatch(g));
        gemm_plan out;
        gemm_config& c = out.config;
        c = gemm_detail::select_config(p, g, persistent);

        const double eb = gemm_detail::element_bytes;
        const double k_padded = double(c.k_iterations) * c.bk;
        const double out_bytes = c.split_k > 1 ? gemm_detail::partial_bytes : eb;
        const gemm_traffic t = gemm_detail::compulsory_traffic(p, g);
        out.footprint_bytes = t.footprint;
        out.weight_bytes = t.weights;

        work::task_work unit;
        unit.tensor_flop = 2.0 * c.bm * c.bn * k_padded;
        unit.tensor_type = gpu::tensor_dtype::bf16;
        unit.l2_bytes = (c.bm + c.bn) * k_padded * eb + c.bm * c.bn * out_bytes;
        unit.smem_bytes = (c.bm + c.bn) * k_padded * eb;
        unit.dram_bytes = t.expected_dram / double(c.tiles);  // expected DRAM traffic spread over the units

        const double tile_reads = double(c.tiles) * (c.bm + c.bn) * k_padded * eb;
        const double compulsory_reads = (double(p.m) + double(p.n)) * double(p.k) * eb;
        out.refetch_bytes = std::max(0.0, tile_reads - compulsory_reads) * std::min(1.0, t.footprint / g.l2_bytes);

        work::kernel_launch main;
        main.name = gemm_detail::kernel_name(c, g.sm_version());
        main.launch = {c.threads, c.regs, c.smem_bytes};
        main.dispatch = main_dispatch(g);
        main.persistent_ctas = persistent ? std::min<std::int64_t>(c.tiles, g.sm_count) : 0;
        main.tasks.push_back({unit, c.tiles});
        work::task_work floor;
        floor.tensor_flop = 2.0 * double(p.m) * double(p.n) * double(p.k);
        floor.dram_bytes = t.bound_dram;
        floor.l2_bytes = t.bound_l2;
        main.compulsory = floor;
        out.kernels.push_back(std::move(main));

        if (c.split_k > 1) {
            // splitKreduce: one thread per 4 outputs, 256 threads per CTA; reads the fp32 partials from L2.
            const double outputs = double(p.m) * double(p.n);
            const std::int64_t ctas = gemm_detail::ceil_div(p.m * p.n, 1024);
            work::task_work r;
            r.fma_ops = outputs * c.split_k / double(ctas);
            r.l2_bytes = outputs * (c.split_k * gemm_detail::partial_bytes + eb) / double(ctas);
            const double partials = outputs * c.split_k * gemm_detail::partial_bytes;
            r.dram_bytes = (partials > 0.5 * g.l2_bytes ? partials : 0.0) / double(ctas);
            work::kernel_launch reduce;
            reduce.name = "splitk_reduce";
            reduce.launch = {256, 32, 0};
            reduce.dispatch = work::dispatch_kind::hardware;
            reduce.tasks.push_back({r, ctas});
            // Splitting K is the library's choice, not the problem's: nothing of the reduction is compulsory,
            // so the op's lower bound stays that of the GEMM itself (and monotonic in m, n, k).
            reduce.compulsory = work::task_work{};
            out.kernels.push_back(std::move(reduce));
        }
        return out;
    }

    /// Model inputs from the plan and the analyzed kernels (main first).
    static std::array<double, feature_count> features(const gemm_problem& p, const gemm_plan& plan,
                                                      std::span<const features::kernel_features> kf,
                                                      const gpu::gpu_numbers& g) {
        const features::kernel_features& m = kf[0];
        const gemm_config& c = plan.config;
        double bound = 0;
        for (const auto& k : kf) bound += k.theoretical_cycles;
        const double reduce = kf.size() > 1 ? kf[1].all.max() : 0.0;
        const double per_sm = std::ceil(double(c.tiles) / g.sm_count);
        const double dram_clk = g.dram_bytes_per_clk();
        const double bound_cycles = std::max(bound, std::numeric_limits<double>::min());
        const auto ratio = [&](double cycles) { return cycles / bound_cycles; };
        return {features::cycles_to_us(bound, g),
                ratio(m.all.tensor),
                ratio(m.sm_max.tensor),
                ratio(m.sm_max.smem),
                ratio(m.all.l2),
                ratio(m.sm_max.l2),
                ratio(m.compulsory_dram_cycles),
                ratio(plan.weight_bytes / dram_clk),
                ratio(plan.refetch_bytes / dram_clk),
                ratio(m.resident_l2_cycles),
                ratio(reduce),
                m.waves,
                double(c.tiles) / (per_sm * g.sm_count),
                double(c.tiles) / g.sm_count,
                plan.footprint_bytes / g.l2_bytes,
                gemm_detail::reuse_over_l2(p, g),
                double(p.m),
                double(p.n),
                double(p.k),
                ratio(c.estimated_cycles)};
    }
};

static_assert(KernelFamily<gemm>);

}  // namespace synperf::family
