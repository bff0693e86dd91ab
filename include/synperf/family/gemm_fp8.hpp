// SPDX-License-Identifier: Apache-2.0
#pragma once
/// \file FP8 GEMM as vLLM's CUTLASS scaled_mm runs it: Y[m,n] = (a_scale * X[m,k]) (b_scale * W[n,k])^T,
/// e4m3 inputs, FP32 accumulate, bf16/fp16 output.
///
/// Unlike cuBLAS, the launch is public: vLLM picks a CUTLASS kernel per M bucket (and per N or K range)
/// in its dispatch files (docs/families/gemm_fp8.md lists them with sources). The decomposer copies that
/// choice: tile, cluster, kernel schedule and swap-AB. For small M the kernel is run as (N, M, K) so the
/// 64/128-row tile covers the weight's N and a narrow 16..64-column tile covers the tokens. Hopper and
/// Blackwell kernels are persistent (PersistentScheduler: static stride over a grid of at most one CTA per
/// SM), except Hopper's non-persistent TmaWarpSpecialized kernels for M <= 64 (one CTA per tile); Ada runs
/// CUTLASS 2.x kernels, one CTA per tile.
#include <algorithm>
#include <array>
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

/// One FP8 GEMM: Y[m,n] = X[m,k] * W[n,k]^T with per-tensor or per-row/column scales; m is the token count.
struct gemm_fp8_problem {
    std::int64_t m = 0;
    std::int64_t n = 0;
    std::int64_t k = 0;

    friend bool operator==(const gemm_fp8_problem&, const gemm_fp8_problem&) = default;
    friend std::size_t hash_value(const gemm_fp8_problem& p) noexcept {
        return synperf::detail::hash_fields(p.m, p.n, p.k);
    }
};

/// CUTLASS kernel schedule of the chosen kernel.
enum class fp8_schedule {
    tma_warp_specialized,  ///< sm90 KernelTmaWarpSpecializedFP8FastAccum: one CTA per tile (not persistent)
    pingpong,              ///< sm90 ...PingpongFP8FastAccum: persistent, 2 consumer warp groups on different tiles
    cooperative,           ///< sm90 ...CooperativeFP8FastAccum: persistent, 2 consumer warp groups split one tile
    sm100_auto,            ///< sm100 KernelScheduleAuto: persistent UMMA kernel (2-SM when the cluster's M is even)
    sm120_auto,            ///< sm120 KernelScheduleAuto: persistent, cluster 1x1
    sm89_multistage,       ///< CUTLASS 2.x multistage mma.sync (sm89): one CTA per tile
};

[[nodiscard]] constexpr std::string_view to_string(fp8_schedule s) noexcept {
    switch (s) {
        case fp8_schedule::tma_warp_specialized: return "tma_ws";
        case fp8_schedule::pingpong: return "pingpong";
        case fp8_schedule::cooperative: return "cooperative";
        case fp8_schedule::sm100_auto: return "sm100_auto";
        case fp8_schedule::sm120_auto: return "sm120_auto";
        case fp8_schedule::sm89_multistage: return "multistage";
    }
    return "?";
}

/// The kernel vLLM's dispatch picks, and how it is launched.
struct gemm_fp8_config {
    int bm = 0, bn = 0, bk = 0;       ///< tile as the dispatch file writes it (in the kernel's own M, N)
    int cluster_m = 1, cluster_n = 1; ///< cluster shape (1x1 on sm89)
    bool swap_ab = false;             ///< the kernel runs (N, M, K): tile M covers the weight's N
    fp8_schedule schedule = fp8_schedule::pingpong;
    bool persistent = false;          ///< static persistent tile scheduler
    bool two_sm = false;              ///< sm100 2-SM UMMA: one tile is computed by a CTA pair
    int warp_m = 0, warp_n = 0;       ///< sm89 warp tile (0 elsewhere)
    int stages = 0;
    int threads = 0, regs = 0, smem_bytes = 0;
    int slots_per_sm = 1;
    std::int64_t kernel_m = 0, kernel_n = 0;  ///< problem as the kernel sees it ((n, m) when swapped)
    std::int64_t tiles_m = 0, tiles_n = 0;    ///< tiles along the kernel's M and N, rounded up to the cluster
    std::int64_t tiles = 0;                   ///< output tiles (incl. cluster padding)
    std::int64_t work_units = 0;              ///< units scheduled: tiles, or 2 per tile for 2-SM kernels
    std::int64_t grid_ctas = 0;               ///< CTAs launched: persistent grid, or one per unit
    std::int64_t k_iterations = 0;            ///< mainloop iterations per unit
};

/// The one kernel of an FP8 GEMM (activation quantization is a separate op, not part of this family).
struct gemm_fp8_plan {
    gemm_fp8_config config;
    std::vector<work::kernel_launch> kernels;
    double footprint_bytes = 0;  ///< A + B (1 byte each) + Y (2 bytes)
    double weight_bytes = 0;     ///< W
    double refetch_bytes = 0;    ///< tile loads beyond the compulsory A + B (after cluster multicast)
};

namespace gemm_fp8_detail {

inline constexpr double input_bytes = 1.0;   // e4m3
inline constexpr double output_bytes = 2.0;  // bf16 / fp16
inline constexpr int sm90_smem_capacity = 232448;  // sm90_smem_capacity_bytes (CUTLASS sm90_common.inl)
inline constexpr int gpc_sms_assumed = 18;         // CUTLASS get_max_cta_occupancy: SMs per GPC assumed

constexpr std::int64_t ceil_div(std::int64_t a, std::int64_t b) noexcept { return (a + b - 1) / b; }
constexpr std::int64_t round_up(std::int64_t a, std::int64_t b) noexcept { return ceil_div(a, b) * b; }
constexpr std::int64_t next_pow2(std::int64_t v) noexcept {
    std::int64_t p = 1;
    while (p < v) p <<= 1;
    return p;
}

/// A dispatch-file entry: tile, cluster, schedule, swap-AB (sm89: warp tile and stages too).
struct kernel_choice {
    int bm, bn, bk;
    int cluster_m, cluster_n;
    fp8_schedule schedule;
    bool swap_ab;
    int warp_m = 0, warp_n = 0, stages = 0;
};

/// vLLM scaled_mm_sm90_fp8_dispatch.cuh (csrc/.../cutlass/c3x): M bucket (and N, K) -> kernel.
constexpr kernel_choice sm90_choice(std::int64_t m, std::int64_t n, std::int64_t k) noexcept {
    using enum fp8_schedule;
    if (m <= 16) return n <= 1280 ? kernel_choice{64, 16, 256, 1, 2, tma_warp_specialized, true}
                                  : kernel_choice{64, 16, 256, 1, 1, tma_warp_specialized, true};
    if (m <= 64) return n <= 1280 ? kernel_choice{64, 16, 256, 1, 4, tma_warp_specialized, true}
                                  : kernel_choice{64, 64, 256, 1, 1, tma_warp_specialized, true};
    if (m <= 128) return {64, 128, 128, 2, 1, pingpong, false};
    if (m >= 8192 && k >= 6144) return {256, 128, 128, 2, 1, cooperative, false};
    return {128, 128, 128, 2, 1, pingpong, false};
}

/// vLLM scaled_mm_sm100_fp8_dispatch.cuh: M bucket (and K at M = 64) -> kernel; all KernelScheduleAuto.
constexpr kernel_choice sm100_choice(std::int64_t m, std::int64_t k) noexcept {
    using enum fp8_schedule;
    if (m <= 16) return {128, 32, 128, 4, 1, sm100_auto, true};
    if (m <= 64) return (m == 64 && k < 4096) ? kernel_choice{64, 64, 128, 1, 1, sm100_auto, false}
                                              : kernel_choice{128, 64, 256, 4, 1, sm100_auto, true};
    if (m <= 256) return {128, 128, 128, 2, 1, sm100_auto, false};
    return {256, 128, 128, 2, 2, sm100_auto, false};
}

/// vLLM scaled_mm_sm120_fp8_dispatch.cuh: one kernel for every shape.
constexpr kernel_choice sm120_choice() noexcept { return {256, 128, 64, 1, 1, fp8_schedule::sm120_auto, false}; }

/// vLLM scaled_mm_c2x_sm89_fp8_dispatch.cuh: M bucket mp2 = max(32, next_pow2(m)) and np2 = next_pow2(n)
/// -> threadblock tile, warp tile, stages (so the file's M16 bucket is never reached).
constexpr kernel_choice sm89_choice(std::int64_t m, std::int64_t n) noexcept {
    using enum fp8_schedule;
    const std::int64_t mp2 = std::max<std::int64_t>(32, next_pow2(m));
    const std::int64_t np2 = next_pow2(n);
    const auto c = [](int bm, int bn, int bk, int wm, int wn, int stages) {
        return kernel_choice{bm, bn, bk, 1, 1, sm89_multistage, false, wm, wn, stages};
    };
    if (mp2 <= 32) {
        if (np2 <= 8192) return c(32, 64, 128, 16, 64, 5);
        if (np2 <= 16384) return c(32, 128, 128, 32, 64, 4);
        return c(32, 64, 128, 16, 64, 5);
    }
    if (mp2 <= 64) {
        if (np2 <= 8196) return c(64, 64, 128, 32, 64, 5);  // 8196 as written in the file
        if (np2 <= 16384) return c(64, 128, 128, 64, 64, 3);
        return c(64, 64, 128, 32, 64, 5);
    }
    if (mp2 <= 128) {
        if (np2 <= 8192) return c(64, 128, 128, 64, 64, 3);
        if (np2 <= 16384) return c(128, 128, 64, 64, 64, 5);
        return c(128, 64, 128, 64, 64, 3);
    }
    if (mp2 <= 256) return np2 <= 4096 ? c(64, 128, 128, 64, 64, 3) : c(128, 128, 64, 64, 64, 5);
    if (np2 <= 4096) return c(128, 128, 64, 64, 64, 5);
    if (np2 <= 8192) return c(256, 128, 64, 64, 64, 3);
    return c(128, 128, 64, 64, 64, 5);
}
/// sm89 fallback when the chosen kernel's shared memory exceeds the device's (fallback_cutlass_gemm_caller).
constexpr kernel_choice sm89_fallback() noexcept {
    return {64, 128, 64, 1, 1, fp8_schedule::sm89_multistage, false, 32, 64, 5};
}

/// Persistent CTAs CUTLASS launches with an unknown max_active_clusters (vLLM passes an empty
/// KernelHardwareInfo): per assumed 18-SM GPC, whole clusters only, plus the residual GPC; at most SMs.
constexpr std::int64_t persistent_cta_capacity(int sm_count, int cluster_size) noexcept {
    if (cluster_size <= 1) return sm_count;
    const int gpcs = sm_count / gpc_sms_assumed, residual = sm_count % gpc_sms_assumed;
    const int per_gpc = gpc_sms_assumed / cluster_size * cluster_size;
    return std::min<std::int64_t>(sm_count, std::int64_t(gpcs) * per_gpc + residual / cluster_size * cluster_size);
}

/// The dispatch entry for this GPU's architecture.
inline kernel_choice choose(const gemm_fp8_problem& p, const gpu::gpu_numbers& g) {
    switch (g.cc_major) {
        case 9: return sm90_choice(p.m, p.n, p.k);
        case 10: return sm100_choice(p.m, p.k);
        case 12: return sm120_choice();
        case 8:
            if (g.cc_minor == 9) return sm89_choice(p.m, p.n);
            break;
        default: break;
    }
    synperf::detail::report_error("gemm_fp8: vLLM's CUTLASS FP8 kernels need sm_89, sm_90, sm_100 or sm_120; this GPU is sm_" +
                                  std::to_string(g.sm_version()));
}

/// Fills the launch of `c` (everything but the shape-dependent tile counts).
inline void set_launch(gemm_fp8_config& c, const gpu::gpu_numbers& g) {
    const int stage_bytes = (c.bm + c.bn) * c.bk * int(input_bytes);
    if (c.schedule == fp8_schedule::sm89_multistage) {
        c.threads = (c.bm / c.warp_m) * (c.bn / c.warp_n) * 32;
        c.smem_bytes = c.stages * stage_bytes;
        const int accumulators = c.bm * c.bn / c.threads;
        c.regs = std::min(255, (accumulators + 72 + 7) / 8 * 8);
        return;
    }
    // CUTLASS 3.x: StageCountAutoCarveout fills the SM's shared memory after the epilogue's carveout, so
    // one CTA per SM; registers are re-balanced with setmaxnreg (the launch asks 168 per thread).
    const int epilogue = std::min(c.bm * c.bn * int(output_bytes), 32 * 1024);
    const int capacity = std::min(g.smem_per_cta_bytes, sm90_smem_capacity);
    const int stage = (stage_bytes + 127) / 128 * 128 + 32;  // + pipeline barriers
    // A TMA pipeline overlaps the load of one stage with the MMAs of another: two at the least.
    if (capacity - epilogue < 2 * stage)
        synperf::detail::report_error("gemm_fp8: the " + std::to_string(c.bm) + "x" + std::to_string(c.bn) + "x" +
                                      std::to_string(c.bk) + " kernel needs two pipeline stages and its epilogue, " +
                                      std::to_string(2 * stage + epilogue) + " bytes of shared memory per CTA; this GPU gives one CTA at most " +
                                      std::to_string(capacity) + " (smem_per_cta_bytes, at most CUTLASS's " +
                                      std::to_string(sm90_smem_capacity) + ")");
    c.stages = std::min((capacity - epilogue) / stage, 16);
    c.smem_bytes = std::min(capacity, c.stages * stage + epilogue);
    c.regs = 168;
    switch (c.schedule) {
        case fp8_schedule::tma_warp_specialized: c.threads = 256; break;  // 1 consumer + 1 producer warp group
        case fp8_schedule::sm100_auto: c.threads = 256; break;            // MMA, TMA and epilogue warps
        default: c.threads = 384; break;                                  // 2 consumer + 1 producer warp groups
    }
}

inline gemm_traffic compulsory_traffic(const gemm_fp8_problem& p, const gpu::gpu_numbers& g) {
    return compulsory_gemm_traffic(p.m, p.n, p.k, input_bytes, output_bytes, g);
}

/// The whole configuration for a problem on a GPU with dispatch entry `k`: launch, tile and grid counts.
inline gemm_fp8_config select_config(const gemm_fp8_problem& p, const gpu::gpu_numbers& g, const kernel_choice& k) {
    gemm_fp8_config c;
    const auto apply = [&c](const kernel_choice& kc) {
        c.bm = kc.bm;
        c.bn = kc.bn;
        c.bk = kc.bk;
        c.cluster_m = kc.cluster_m;
        c.cluster_n = kc.cluster_n;
        c.schedule = kc.schedule;
        c.swap_ab = kc.swap_ab;
        c.warp_m = kc.warp_m;
        c.warp_n = kc.warp_n;
        c.stages = kc.stages;
    };
    apply(k);
    set_launch(c, g);
    if (c.schedule == fp8_schedule::sm89_multistage && c.smem_bytes > g.smem_per_cta_bytes) {
        apply(sm89_fallback());
        set_launch(c, g);
    }
    c.persistent = c.schedule != fp8_schedule::tma_warp_specialized && c.schedule != fp8_schedule::sm89_multistage;
    c.two_sm = c.schedule == fp8_schedule::sm100_auto && c.cluster_m % 2 == 0;
    c.slots_per_sm = gpu::ctas_per_sm(g, {c.threads, c.regs, c.smem_bytes});
    if (c.slots_per_sm < 1)
        synperf::detail::report_error("gemm_fp8: the " + std::to_string(c.bm) + "x" + std::to_string(c.bn) + "x" +
                                      std::to_string(c.bk) + " kernel does not fit on one SM of this GPU: " +
                                      gpu::no_fit_reason(g, {c.threads, c.regs, c.smem_bytes}));
    if (c.persistent) c.slots_per_sm = 1;

    c.kernel_m = c.swap_ab ? p.n : p.m;
    c.kernel_n = c.swap_ab ? p.m : p.n;
    // Tile counts are rounded up to whole clusters (CUTLASS's tiled CTA shape); the padding tiles run the
    // mainloop on zero-filled TMA loads and store nothing.
    c.tiles_m = round_up(ceil_div(c.kernel_m, c.bm), c.cluster_m);
    c.tiles_n = round_up(ceil_div(c.kernel_n, c.bn), c.cluster_n);
    c.tiles = c.tiles_m * c.tiles_n;
    c.work_units = c.two_sm ? 2 * c.tiles : c.tiles;
    c.k_iterations = ceil_div(p.k, c.bk);
    const int cluster = c.cluster_m * c.cluster_n;
    if (c.persistent && persistent_cta_capacity(g.sm_count, cluster) == 0)
        synperf::detail::report_error("gemm_fp8: a cluster of " + std::to_string(cluster) + " CTAs does not fit a GPU with " +
                                      std::to_string(g.sm_count) + " SMs");
    c.grid_ctas = c.persistent ? std::min(c.work_units, persistent_cta_capacity(g.sm_count, cluster)) : c.work_units;
    return c;
}

inline std::string kernel_name(const gemm_fp8_config& c, int sm_version) {
    std::string s = "sm" + std::to_string(sm_version) + "_fp8_" + std::string(to_string(c.schedule)) + "_" +
                    std::to_string(c.bm) + "x" + std::to_string(c.bn) + "x" + std::to_string(c.bk);
    if (c.cluster_m * c.cluster_n > 1) s += "_cl" + std::to_string(c.cluster_m) + "x" + std::to_string(c.cluster_n);
    if (c.two_sm) s += "_2sm";
    if (c.swap_ab) s += "_swapab";
    return s;
}

}  // namespace gemm_fp8_detail

/// The FP8 GEMM family policy (vLLM CUTLASS scaled_mm).
struct gemm_fp8 {
    using problem_type = gemm_fp8_problem;
    using plan_type = gemm_fp8_plan;
    static constexpr std::string_view name = "gemm_fp8";

    /// One level: the kernel measured alone (vLLM's cutlass_scaled_mm, no activation quantization).
    static constexpr std::array<std::string_view, 1> framework_levels{"vllm"};
    static std::size_t framework_level(std::string_view framework) {
        if (framework == "vllm" || framework == "cutlass") return 0;
        synperf::detail::report_error("gemm_fp8: unknown framework '" + std::string(framework) + "'; known: vllm");
    }

    /// With two train GPUs every hardware-dependent feature also identifies the GPU, so only the roofline's
    /// own cycle counts depend on the hardware, and they enter as ratios to the bound (H20's tensor rate is a
    /// seventh of H800's: absolute counts mostly said which GPU a row came from). No L2-bandwidth cycles: h20
    /// and h800 have the same measured L2 bandwidth, so a model cannot learn how they scale with it. No
    /// cold-weight DRAM cycles: the small-M kernels stream weights at 20-55 % of DRAM bandwidth on the train
    /// GPUs (per-SM latency-bound), so the busiest SM's tile loads (smem_sm_max_ratio, bytes at a fixed
    /// 128 B/clk) describe them instead.
    static constexpr std::array<std::string_view, 21> feature_names{
        "tensor_all_ratio", "tensor_sm_max_ratio", "smem_sm_max_ratio", "dram_ratio", "theoretical_us", "waves", "wave_efficiency", "k_iterations", "tile_m", "tile_n", "tile_k", "cluster_ctas",
        "swap_ab", "persistent", "cooperative", "work_units", "grid_ctas", "footprint_over_l2", "m", "n", "k"};
    static constexpr std::size_t feature_count = feature_names.size();

    /// Main-kernel dispatch: persistent on sm_90/100/103/120 (the M > 64 kernels on sm_90; the plan reports
    /// hardware dispatch for sm_90's one-CTA-per-tile kernels at M <= 64), one CTA per tile on sm_89.
    static constexpr work::dispatch_kind main_dispatch(const gpu::gpu_numbers& g) noexcept {
        return (g.cc_major == 9 || g.cc_major == 10 || g.cc_major == 12) ? work::dispatch_kind::persistent_static
                                                                         : work::dispatch_kind::hardware;
    }

    /// Bytes the op's tensors take in device memory: FP8 X and W, the bf16 Y.
    [[nodiscard]] static double device_bytes(const gemm_fp8_problem& p) noexcept {
        return double(p.m) * double(p.k) + double(p.n) * double(p.k) + 2.0 * double(p.m) * double(p.n);
    }

    /// Rejects zero, negative and overflowing shapes, and N or K that break CUTLASS's 16-byte alignment.
    /// `family` names the caller in the message (a family built on this GEMM reports its own name).
    static void validate(const gemm_fp8_problem& p, std::string_view family = name) {
        const std::string who = std::string(family) + ": ";
        const auto check = [&](std::int64_t v, const char* dim) {
            if (v <= 0) synperf::detail::report_error(who + dim + " must be > 0, got " + std::to_string(v));
            if (v > (std::int64_t{1} << 31)) synperf::detail::report_error(who + dim + " must be <= 2^31, got " + std::to_string(v));
        };
        check(p.m, "m");
        check(p.n, "n");
        check(p.k, "k");
        // vLLM's cutlass_scaled_mm checks b.size(0) % 16 == 0 && b.size(1) % 16 == 0 (16-byte aligned e4m3 rows).
        if (p.k % 16 != 0) synperf::detail::report_error(who + "k must be a multiple of 16 (16-byte aligned e4m3 rows), got " + std::to_string(p.k));
        if (p.n % 16 != 0) synperf::detail::report_error(who + "n must be a multiple of 16 (16-byte aligned e4m3 rows), got " + std::to_string(p.n));
        const double largest = std::max({double(p.m) * double(p.n), double(p.m) * double(p.k), double(p.n) * double(p.k)});
        if (largest > 0x1p40)
            synperf::detail::report_error(who + "an operand of " + synperf::detail::approx(largest) + " elements exceeds 2^40 (no GPU holds it)");
    }

    /// Rejects a GPU without FP8 tensor cores.
    static void require_fp8_tensor_cores(const gpu::gpu_numbers& g) {
        if (!(g.tensor_fp8_flop_per_clk > 0))
            synperf::detail::report_error("gemm_fp8: this GPU (sm_" + std::to_string(g.sm_version()) +
                                          ") has no FP8 tensor cores (tensor_fp8_flop_per_clk = 0)");
    }

    /// Decomposes one FP8 GEMM on one GPU, with vLLM's dispatch entry for its architecture.
    static gemm_fp8_plan plan(const gemm_fp8_problem& p, const gpu::gpu_numbers& g) {
        validate(p);
        require_fp8_tensor_cores(g);
        return plan_with(p, g, gemm_fp8_detail::choose(p, g));
    }

    /// Decomposes one FP8 GEMM with a given dispatch entry (another library's kernel of the same kind, e.g. the
    /// one-CTA-per-tile sm_89 entries for cuBLAS on sm_120).
    static gemm_fp8_plan plan_with(const gemm_fp8_problem& p, const gpu::gpu_numbers& g, const gemm_fp8_detail::kernel_choice& k) {
        validate(p);
        require_fp8_tensor_cores(g);
        gemm_fp8_plan out;
        gemm_fp8_config& c = out.config;
        c = gemm_fp8_detail::select_config(p, g, k);
        const gemm_traffic t = gemm_fp8_detail::compulsory_traffic(p, g);
        out.footprint_bytes = t.footprint;
        out.weight_bytes = t.weights;

        // One unit: the CTA's share of a tile. A 2-SM kernel splits the tile's M between the pair and each
        // CTA loads half of the B tile.
        const double k_padded = double(c.k_iterations) * c.bk;
        const double unit_m = c.two_sm ? c.bm / 2.0 : double(c.bm);
        const double unit_n_loads = c.two_sm ? c.bn / 2.0 : double(c.bn);
        const double smem = (unit_m + unit_n_loads) * k_padded * gemm_fp8_detail::input_bytes;
        // TMA multicast: the A tile is shared along the cluster's N, the B tile along its M.
        const double l2_loads = (unit_m / c.cluster_n + unit_n_loads / c.cluster_m) * k_padded * gemm_fp8_detail::input_bytes;
        work::task_work unit;
        unit.tensor_flop = 2.0 * unit_m * c.bn * k_padded;
        unit.tensor_type = gpu::tensor_dtype::fp8;
        unit.smem_bytes = smem;
        unit.l2_bytes = l2_loads + unit_m * c.bn * gemm_fp8_detail::output_bytes;
        unit.dram_bytes = t.expected_dram / double(c.work_units);

        const double loads = double(c.work_units) * l2_loads;
        const double compulsory_reads = (double(p.m) + double(p.n)) * double(p.k) * gemm_fp8_detail::input_bytes;
        out.refetch_bytes = std::max(0.0, loads - compulsory_reads) * std::min(1.0, t.footprint / g.l2_bytes);

        work::kernel_launch main;
        main.name = gemm_fp8_detail::kernel_name(c, g.sm_version());
        main.launch = {c.threads, c.regs, c.smem_bytes};
        main.dispatch = c.persistent ? work::dispatch_kind::persistent_static : work::dispatch_kind::hardware;
        main.persistent_ctas = c.persistent ? c.grid_ctas : 0;
        main.tasks.push_back({unit, c.work_units});
        work::task_work floor;
        floor.tensor_flop = 2.0 * double(p.m) * double(p.n) * double(p.k);
        floor.tensor_type = gpu::tensor_dtype::fp8;
        floor.dram_bytes = t.bound_dram;
        // The L2-resident bytes are left out of the bound (still a lower bound, a looser one): the train GPUs
        // share one measured L2 bandwidth, so no model can calibrate an efficiency against it, and a GPU with
        // another figure (H200: 10403 GB/s) would shift the bound of every small-M GEMM without getting faster.
        floor.l2_bytes = 0;
        main.compulsory = floor;
        out.kernels.push_back(std::move(main));
        return out;
    }

    /// Model inputs from the plan and the analyzed kernel.
    static std::array<double, feature_count> features(const gemm_fp8_problem& p, const gemm_fp8_plan& plan,
                                                      std::span<const features::kernel_features> kf,
                                                      const gpu::gpu_numbers& g) {
        const features::kernel_features& m = kf[0];
        const gemm_fp8_config& c = plan.config;
        const double slots = double(c.persistent ? c.grid_ctas : std::int64_t(c.slots_per_sm) * g.sm_count);
        const double waves = std::ceil(double(c.work_units) / slots);
        const double bound = std::max(m.theoretical_cycles, std::numeric_limits<double>::min());
        return {m.all.tensor / bound,
                m.sm_max.tensor / bound,
                m.sm_max.smem / bound,
                m.compulsory_dram_cycles / bound,
                features::cycles_to_us(m.theoretical_cycles, g),
                waves,
                double(c.work_units) / (waves * slots),
                double(c.k_iterations),
                double(c.bm),
                double(c.bn),
                double(c.bk),
                double(c.cluster_m * c.cluster_n),
                c.swap_ab ? 1.0 : 0.0,
                c.persistent ? 1.0 : 0.0,
                c.schedule == fp8_schedule::cooperative ? 1.0 : 0.0,
                double(c.work_units),
                double(c.grid_ctas),
                plan.footprint_bytes / g.l2_bytes,
                double(p.m),
                double(p.n),
                double(p.k)};
    }
};

static_assert(KernelFamily<gemm_fp8>);

}  // namespace synperf::family
