// SPDX-License-Identifier: Apache-2.0
#pragma once
/// \file A whole fused-MoE block as SGLang's Triton path runs it on one rank (fused_experts_impl), bf16 or
/// fp8 W8A8: 128x128 weight / 1x128 activation block scales (DeepSeek style) when H and I / tp are multiples
/// of 128, else per-tensor scales (what the aiconfigurator collector passes to fused_moe).
///
/// Kernels, in order (docs/families/moe.md lists sources):
/// - ep = 1 only: select_experts (topk_softmax) and the collector's three copies of its outputs (timed);
/// - moe_align_block_size: sorts the assignments by expert, each expert padded to a multiple of BLOCK_SIZE_M;
/// - fp8: per_token_group_quant_fp8 of the hidden states (groups of 128);
/// - fused_moe_kernel for w13 (N = 2 I / tp, K = H): rows gathered as sorted_token_id // topk;
/// - silu_and_mul over the [T topk, 2 I / tp] intermediate;
/// - fp8: per_token_group_quant_fp8 of the activation;
/// - fused_moe_kernel for w2 (N = H, K = I / tp), each row scaled by its routing weight;
/// - moe_sum_reduce over topk (a copy when topk = 1).
/// The Triton GEMM grid is ceil(EM / BM) * ceil(N / BN) with EM the sorted-id buffer length (or
/// min(EM, rows * topk * BM) when the kernel's A has fewer rows than BM); programs whose m-block lies at or
/// beyond num_tokens_post_padded return at once but are still dispatched: empty CTAs. GROUP_SIZE_M maps
/// pid -> (pid_m, pid_n) in groups of G m-blocks, so the empty m-blocks (the highest pid_m) come last.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "synperf/detail/hash.hpp"
#include "synperf/error.hpp"
#include "synperf/family/concept.hpp"
#include "synperf/family/memory_bound.hpp"
#include "synperf/family/moe_config.hpp"
#include "synperf/family/moe_routing.hpp"
#include "synperf/family/moe_tuned_config.hpp"
#include "synperf/family/triton_dot.hpp"
#include "synperf/features/analysis.hpp"
#include "synperf/gpu/numbers.hpp"
#include "synperf/gpu/occupancy.hpp"
#include "synperf/gpu/registry.hpp"
#include "synperf/work/launch.hpp"
#include "synperf/work/task.hpp"

namespace synperf::family {

/// One MoE block on one rank of an ep x tp group.
struct moe_problem {
    std::int64_t tokens = 0;   ///< tokens entering the layer
    std::int64_t hidden = 0;   ///< H
    std::int64_t inter = 0;    ///< full expert intermediate size I (the rank holds I / tp)
    std::int64_t experts = 0;  ///< total experts E (the rank holds E / ep)
    std::int64_t topk = 0;
    std::int64_t tp = 1;
    std::int64_t ep = 1;
    moe_dtype dtype = moe_dtype::bf16;
    std::optional<moe_kernel_config> config;  ///< explicit config for both GEMMs; else SGLang's rule
    moe_remote_slots remote = moe_remote_slots::dropped;  ///< ep > 1: what the kernels do with remote slots
    /// The catalogue GPU (id, CUDA device string or alias, as `gpu::find_gpu` takes it) whose SGLang tuned-config files
    /// apply; empty: the default rule only (a GPU from a spec file has no tuned files). Another name is an error.
    std::string tuned_configs_gpu{};

    friend bool operator==(const moe_problem&, const moe_problem&) = default;
    friend std::size_t hash_value(const moe_problem& p) noexcept {
        return synperf::detail::hash_fields(p.tokens, p.hidden, p.inter, p.experts, p.topk, p.tp, p.ep, p.dtype, p.config.has_value(),
                                            p.remote, p.tuned_configs_gpu);
    }
};

/// One of the two grouped GEMMs as launched.
struct moe_gemm_launch {
    moe_kernel_config config;
    std::int64_t n = 0, k = 0;           ///< weight rows (output features) and reduction length
    std::int64_t a_rows = 0;             ///< rows of the kernel's A (tokens for w13, tokens * topk for w2)
    std::int64_t em = 0;                 ///< EM used for the grid
    std::int64_t grid_m = 0, grid_n = 0; ///< ceil(EM / BM), ceil(N / BN)
    std::int64_t grid = 0;               ///< CTAs launched, incl. empty ones
    std::int64_t active_ctas = 0;        ///< CTAs of local experts' m-blocks (MMA)
    std::int64_t zero_ctas = 0;          ///< CTAs of the -1 bucket's m-blocks (write zeros)
    std::int64_t empty_ctas = 0;         ///< CTAs at or beyond num_tokens_post_padded (return at once)
    int threads = 0, regs = 0, smem_bytes = 0;
    double useful_flop = 0;   ///< 2 * assignments * N * K
    double padded_flop = 0;   ///< MMA flop incl. padding rows and K rounding
    double weight_bytes = 0;  ///< weights of the active experts
};

/// The decomposition of a MoE block.
struct moe_plan {
    moe_routing routing;
    moe_alignment alignment;
    moe_gemm_launch w13, w2;
    bool explicit_config = false;
    const sglang_tuned_file* tuned_file = nullptr;  ///< the SGLang file the config came from, if any
    std::vector<work::kernel_launch> kernels;  ///< w13 first, then w2, then the small kernels
    double small_theoretical_share = 0;        ///< filled by features: share of the bound in small kernels
};

namespace moe_detail {

using moe_routing_detail::ceil_div;

[[nodiscard]] constexpr double element_bytes(moe_dtype d) noexcept { return d == moe_dtype::bf16 ? 2.0 : 1.0; }
inline constexpr double out_bytes = 2.0;       // bf16 outputs and intermediates
inline constexpr std::int64_t quant_group = 128;  // fp8 block quantization: 1x128 activations, 128x128 weights

/// SGLang get_default_config (fused_moe_triton_config.py) when no tuned file matches: bf16 64x64x32 G8
/// (M <= E: 16x32x64 G1), Triton's default 4 warps and 3 stages; fp8 with [128, 128] blocks 64x128x128 G32,
/// 4 warps, 3 stages; per-tensor fp8 128x256x128 G32, 8 warps, 4 stages (M <= E: 64x128x128 G1, 4 warps,
/// 4 stages). M is the token count the collector passes, E the local experts.
[[nodiscard]] constexpr moe_kernel_config default_config(std::int64_t m, std::int64_t e, moe_dtype d, bool block_quant) noexcept {
    if (d == moe_dtype::fp8) {
        if (block_quant) return {64, 128, 128, 32, 4, 3};
        return m <= e ? moe_kernel_config{64, 128, 128, 1, 4, 4} : moe_kernel_config{128, 256, 128, 32, 8, 4};
    }
    if (m <= e) return {16, 32, 64, 1, 4, 3};
    return {64, 64, 32, 8, 4, 3};
}

/// pid -> (pid_m, pid_n) of fused_moe_kernel (GROUP_SIZE_M swizzle).
struct tile_index {
    std::int64_t m, n;
};
[[nodiscard]] constexpr tile_index tile_of(std::int64_t pid, std::int64_t grid_m, std::int64_t grid_n, std::int64_t group_m) noexcept {
    const std::int64_t in_group = group_m * grid_n;
    const std::int64_t group = pid / in_group;
    const std::int64_t first_m = group * group_m;
    const std::int64_t size_m = std::min(grid_m - first_m, group_m);
    return {first_m + (pid % in_group) % size_m, (pid % in_group) / size_m};
}

/// Triton launch resources: 32 * warps threads; num_stages - 1 buffers of the A and B tiles (the pipeliner keeps
/// that many loads in flight; with num_stages buffers 9347 of PipeWeave's 66,424 measured configs would not fit
/// the GPU, with num_stages - 1 all do, the largest at 98 % of it); accumulators BM * BN / threads fp32
/// registers plus fragments and addresses (an estimate, capped at 255).
inline void set_resources(moe_gemm_launch& l, moe_dtype d) {
    const moe_kernel_config& c = l.config;
    l.threads = 32 * c.warps;
    const double e = element_bytes(d);
    l.smem_bytes = int(double(std::max(1, c.stages - 1)) * double(c.bm + c.bn) * double(c.bk) * e);
    const int acc = c.bm * c.bn / l.threads;
    l.regs = std::min(255, (acc + acc / 2 + 40 + 7) / 8 * 8);
}

/// Builds one grouped GEMM: tile classes in grid order (full tiles, partial tiles, empty CTAs).
inline work::kernel_launch gemm_launch(moe_gemm_launch& l, const moe_routing& r, const moe_alignment& a, std::int64_t topk,
                                       bool gather_by_token, moe_dtype d, bool block_scales, const gpu::gpu_numbers& g, double cold_weights,
                                       const std::string& name) {
    const moe_kernel_config& c = l.config;
    const double e = element_bytes(d);
    const double k_padded = double(ceil_div(l.k, c.bk) * c.bk);
    // EM: the sorted-id buffer, or min(buffer, rows * topk * BM) when A has fewer rows than BM.
    l.em = a.buffer;
    if (l.a_rows < c.bm) l.em = std::min(l.em, l.a_rows * (gather_by_token ? topk : 1) * c.bm);
    l.grid_m = ceil_div(l.em, c.bm);
    l.grid_n = ceil_div(l.n, c.bn);
    l.grid = l.grid_m * l.grid_n;
    const std::int64_t active_m = std::min(a.active_blocks, l.grid_m);
    const std::int64_t zero_m = std::min(a.dropped_blocks, l.grid_m - active_m);
    l.active_ctas = active_m * l.grid_n;
    l.zero_ctas = zero_m * l.grid_n;
    l.empty_ctas = l.grid - l.active_ctas - l.zero_ctas;
    set_resources(l, d);

    const double scale_loads = block_scales ? 4.0 * (k_padded / quant_group) : 0.0;  // fp32 scales per row
    const triton_dot dot = triton_dot_of(c.bm, d == moe_dtype::bf16 ? gpu::tensor_dtype::bf16 : gpu::tensor_dtype::fp8, g);
    const auto tile = [&](double rows, double m_blocks_of_expert) {
        work::task_work w;
        w.tensor_flop = 2.0 * c.bm * c.bn * k_padded;
        w.tensor_type = dot.type;
        w.tensor_issue = dot.issue;
        w.smem_bytes = double(c.bm + c.bn) * k_padded * e;
        const double b_tile = double(c.bn) * k_padded * e;
        w.l2_bytes = rows * (k_padded * e + scale_loads + 8.0) + b_tile + rows * c.bn * out_bytes;
        // The expert's weight tile comes from DRAM once per GROUP_SIZE_M group of its m-blocks (the group's
        // m-blocks run back to back for each pid_n, later groups find it evicted), shared within the group.
        w.dram_bytes = cold_weights * b_tile * double(ceil_div(std::int64_t(m_blocks_of_expert), c.group_m)) / m_blocks_of_expert;
        return w;
    };
    // Classes keyed by (valid rows, m-blocks of the expert); balanced routing gives a handful.
    struct cls {
        std::int64_t rows, blocks, count;
    };
    std::vector<cls> full, partial;
    const auto add = [](std::vector<cls>& v, std::int64_t rows, std::int64_t blocks, std::int64_t n) {
        for (auto& x : v)
            if (x.rows == rows && x.blocks == blocks) {
                x.count += n;
                return;
            }
        v.push_back({rows, blocks, n});
    };
    double useful_rows = 0;
    double active_weights = 0;
    for (std::int64_t cnt : r.counts) {
        if (cnt == 0) continue;
        const std::int64_t blocks = ceil_div(cnt, c.bm);
        const std::int64_t rem = cnt % c.bm;
        if (cnt / c.bm > 0) add(full, c.bm, blocks, (cnt / c.bm) * l.grid_n);
        if (rem > 0) add(partial, rem, blocks, l.grid_n);
        useful_rows += double(cnt);
        active_weights += double(l.n) * double(l.k) * e;
    }
    l.useful_flop = 2.0 * useful_rows * double(l.n) * double(l.k);
    l.padded_flop = 2.0 * double(l.active_ctas) * c.bm * c.bn * k_padded;
    l.weight_bytes = active_weights;

    work::kernel_launch k;
    k.name = name + "_" + std::to_string(c.bm) + "x" + std::to_string(c.bn) + "x" + std::to_string(c.bk) + "_g" +
             std::to_string(c.group_m) + "_w" + std::to_string(c.warps) + "_s" + std::to_string(c.stages);
    k.launch = {l.threads, l.regs, l.smem_bytes};
    k.dispatch = work::dispatch_kind::hardware;
    for (const auto& x : full) k.tasks.push_back({tile(double(x.rows), double(x.blocks)), x.count});
    for (const auto& x : partial) k.tasks.push_back({tile(double(x.rows), double(x.blocks)), x.count});
    if (l.zero_ctas > 0) {
        work::task_work zeros;  // the -1 bucket: write zeros to the block's rows of C
        zeros.l2_bytes = 32.0 + double(c.bm) * c.bn * out_bytes;
        k.tasks.push_back({zeros, l.zero_ctas});
    }
    if (l.empty_ctas > 0) {
        work::task_work empty;  // reads num_tokens_post_padded and returns
        empty.l2_bytes = 32.0;
        k.tasks.push_back({empty, l.empty_ctas});
    }
    // Bound: useful MMA flop; A, C and the active weights once, beyond L2 from DRAM, the rest at L2 speed.
    const double a_bytes = double(gather_by_token ? r.tokens : r.assignments()) * double(l.k) * e;
    const double c_bytes = useful_rows * double(l.n) * out_bytes;
    const double footprint = a_bytes + active_weights + c_bytes;
    work::task_work floor;
    floor.tensor_flop = l.useful_flop;
    floor.tensor_type = dot.type;
    floor.tensor_issue = dot.issue;  // the kernel's own instruction bounds it
    floor.dram_bytes = std::max(0.0, footprint - g.l2_bytes);
    floor.l2_bytes = footprint - floor.dram_bytes;
    k.compulsory = floor;
    return k;
}

/// Rejects a launch whose config cannot run on `g`: shared memory above the per-CTA limit, or no CTA fits an SM.
inline void require_launchable(const moe_gemm_launch& l, const gpu::gpu_numbers& g, std::string_view family) {
    const moe_kernel_config& c = l.config;
    const std::string config = std::string(family) + ": the " + std::to_string(c.bm) + "x" + std::to_string(c.bn) + "x" +
                               std::to_string(c.bk) + " config with " + std::to_string(c.stages) + " stages";
    if (l.smem_bytes > g.smem_per_cta_bytes)
        synperf::detail::report_error(config + " needs " + std::to_string(l.smem_bytes) +
                                      " bytes of shared memory per CTA, more than this GPU allows one CTA (smem_per_cta_bytes " +
                                      std::to_string(g.smem_per_cta_bytes) + ")");
    const work::launch_config launch{l.threads, l.regs, l.smem_bytes};
    if (gpu::ctas_per_sm(g, launch) < 1)
        synperf::detail::report_error(config + " does not fit on one SM of this GPU: " + gpu::no_fit_reason(g, launch));
}

/// Moves the launch's weight bytes into the DRAM term of its bound. For weights the kernel streams in the same order
/// every call and that do not fit in L2: none of them is left in L2 for the next call, whatever share of them L2 holds.
/// Used by `moe_kernel`; the block keeps the L2-sized share in L2 (docs/families/moe.md, "Measured and left out").
inline void bound_weights_by_dram(work::kernel_launch& k, const moe_gemm_launch& l) {
    if (!k.compulsory) return;
    const double moved = std::min(k.compulsory->l2_bytes, l.weight_bytes - k.compulsory->dram_bytes);
    if (moved <= 0) return;
    k.compulsory->dram_bytes += moved;
    k.compulsory->l2_bytes -= moved;
}

/// A small memory-bound kernel: `ctas` CTAs of `threads` moving `bytes` in all (read + written once).
inline work::kernel_launch small_kernel(const std::string& name, std::int64_t ctas, int threads, double bytes,
                                        double fma_ops, const gpu::gpu_numbers& g) {
    memory_bound::launch_shape s;
    s.name = name;
    s.ctas = std::max<std::int64_t>(1, ctas);
    s.threads = threads;
    s.cta.l2_bytes = bytes / double(s.ctas);
    s.cta.fma_ops = fma_ops / double(s.ctas);
    return memory_bound::make_launch(s, {fma_ops, 0.0, bytes}, g);
}

}  // namespace moe_detail

/// The fused-MoE family policy (SGLang Triton fused_moe).
struct moe {
    using problem_type = moe_problem;
    using plan_type = moe_plan;
    static constexpr std::string_view name = "moe";
    /// Its training latencies are CUDA-graph replays (aiconfigurator's collectors), so predictions include the in-graph launch gap.
    static constexpr bool timed_in_cuda_graph = true;

    /// One level: SGLang's Triton path as the aiconfigurator collector times it (CUDA graph).
    static constexpr std::array<std::string_view, 1> framework_levels{"sglang"};
    static std::size_t framework_level(std::string_view framework) {
        if (framework == "sglang" || framework == "sglang_fused_moe_triton") return 0;
        synperf::detail::report_error("moe: unknown framework '" + std::string(framework) + "'; known: sglang");
    }

    static constexpr std::array<std::string_view, 30> feature_names{
        "theoretical_us", "gemm_share", "w13_tensor_all_cycle", "w13_tensor_sm_max_cycle", "w13_smem_sm_max_cycle",
        "w13_dram_cycle", "w2_tensor_all_cycle", "w2_tensor_sm_max_cycle", "w2_smem_sm_max_cycle", "w2_dram_cycle",
        "small_kernels_us", "launches", "w13_waves", "w2_waves", "empty_cta_fraction", "padding_ratio",
        "active_experts", "rows_per_expert", "block_m", "block_n", "block_k", "warps", "stages", "weights_over_l2",
        "fp8", "block_scales", "l2_cycle", "zero_cta_fraction", "w13_dram_all_cycle", "w2_dram_all_cycle"};
    static constexpr std::size_t feature_count = feature_names.size();

    static constexpr work::dispatch_kind main_dispatch(const gpu::gpu_numbers&) noexcept { return work::dispatch_kind::hardware; }

    /// Bytes the block's tensors take in device memory on one rank: its experts' w13 and w2, the tokens in and out,
    /// and the routed intermediates (tokens x topk rows of 2 I / tp and of I / tp, and of H before the sum).
    [[nodiscard]] static double device_bytes(const moe_problem& p) noexcept {
        const double wb = p.dtype == moe_dtype::fp8 ? 1.0 : 2.0;
        const double local_inter = double(p.inter / std::max<std::int64_t>(p.tp, 1));
        const double weights = 3.0 * double(p.experts / std::max<std::int64_t>(p.ep, 1)) * double(p.hidden) * local_inter * wb;
        const double routed = double(p.tokens) * double(p.topk) * (3.0 * local_inter + double(p.hidden)) * 2.0;
        return weights + routed + 2.0 * double(p.tokens) * double(p.hidden) * 2.0;
    }

    /// Rejects sizes Triton's fused_moe or the sharding cannot run.
    static void validate(const moe_problem& p) { validate(p, name); }

    /// `validate`, its messages prefixed by `who` (the family whose problem this is: moe_kernel checks its launch so too).
    static void validate(const moe_problem& p, std::string_view who) {
        const auto fail = [who](const std::string& what) { synperf::detail::report_error(std::string(who) + ": " + what); };
        synperf::detail::require_enum(p.dtype, moe_dtype::fp8, [who] { return std::string(who) + ": unknown dtype"; });
        synperf::detail::require_enum(p.remote, moe_remote_slots::clamped_to_expert0,
                                      [who] { return std::string(who) + ": unknown remote-slot rule"; });
        const auto check = [&fail](std::int64_t v, const char* what, std::int64_t max) {
            if (v <= 0) fail(std::string() + what + " must be > 0, got " + std::to_string(v));
            if (v > max)
                fail(std::string() + what + " must be <= " + std::to_string(max) + ", got " + std::to_string(v));
        };
        check(p.tokens, "tokens", std::int64_t{1} << 24);
        check(p.hidden, "hidden", std::int64_t{1} << 20);
        check(p.inter, "inter", std::int64_t{1} << 22);
        check(p.experts, "experts", 4096);
        check(p.topk, "topk", 4096);
        check(p.tp, "tp", 1024);
        check(p.ep, "ep", 4096);
        if (!p.tuned_configs_gpu.empty() && !gpu::catalogue_id_of(p.tuned_configs_gpu))
            fail("tuned_configs_gpu '" + p.tuned_configs_gpu + "' is not a catalogue GPU (known: " +
                 gpu::detail::known_gpu_list() + "); leave it empty for SGLang's default rule");
        if (p.topk > p.experts)
            fail("topk (" + std::to_string(p.topk) + ") must be <= experts (" + std::to_string(p.experts) + ")");
        if (p.experts % p.ep != 0)
            fail("experts (" + std::to_string(p.experts) + ") must be divisible by ep (" + std::to_string(p.ep) + ")");
        if (p.inter % p.tp != 0)
            fail("inter (" + std::to_string(p.inter) + ") must be divisible by tp (" + std::to_string(p.tp) + ")");
        // One rank's expert weights (w13 and w2: 3 x hidden x inter / tp per local expert) and the routed activations.
        const double weights = 3.0 * double(p.experts / p.ep) * double(p.hidden) * double(p.inter / p.tp);
        if (weights > 0x1p40)
            fail("one rank's expert weights, " + synperf::detail::approx(weights) + " elements, exceed 2^40 (no GPU holds them)");
        const double routed = double(p.tokens) * double(p.topk) * double(std::max(p.hidden, 2 * (p.inter / p.tp)));
        if (routed > 0x1p40)
            fail("the routed activations (tokens x topk x width), " + synperf::detail::approx(routed) +
                 " elements, exceed 2^40 (no GPU holds them)");
        if (p.config) {
            const moe_kernel_config& c = *p.config;
            const auto pow2 = [](int v, int lo, int hi) { return v >= lo && v <= hi && (v & (v - 1)) == 0; };
            if (!pow2(c.bm, 16, 256) || !pow2(c.bn, 16, 256) || !pow2(c.bk, 16, 256))
                fail("config BLOCK_SIZE_M/N/K must be powers of two in [16, 256], got " + std::to_string(c.bm) + "," +
                     std::to_string(c.bn) + "," + std::to_string(c.bk));
            if (c.group_m < 1 || c.group_m > 1024)
                fail("config GROUP_SIZE_M must be in [1, 1024], got " + std::to_string(c.group_m));
            if (!pow2(c.warps, 1, 32))
                fail("config num_warps must be a power of two in [1, 32], got " + std::to_string(c.warps));
            if (c.stages < 1 || c.stages > 8)
                fail("config num_stages must be in [1, 8], got " + std::to_string(c.stages));
            if (p.dtype == moe_dtype::fp8 && block_quant(p) && c.bk % moe_detail::quant_group != 0 && moe_detail::quant_group % c.bk != 0)
                fail("fp8 block quantization needs BLOCK_SIZE_K to divide or be a multiple of 128");
        }
    }

    /// fp8 runs with 128x128 block scales when H and I / tp are multiples of 128 (the collector's rule).
    static constexpr bool block_quant(const moe_problem& p) noexcept {
        return p.dtype == moe_dtype::fp8 && p.hidden % moe_detail::quant_group == 0 && (p.inter / p.tp) % moe_detail::quant_group == 0;
    }

    /// The SGLang tuned-config file for this block on its GPU (E = local experts, N = I / tp), if SGLang ships one.
    static const sglang_tuned_file* tuned_file(const moe_problem& p) noexcept {
        if (p.config || p.tuned_configs_gpu.empty()) return nullptr;
        const auto id = gpu::catalogue_id_of(p.tuned_configs_gpu);  // an alias names its GPU's files
        if (!id) return nullptr;
        return sglang_tuned_file_for(*id, p.experts / p.ep, p.inter / p.tp, p.dtype, block_quant(p));
    }

    /// The config SGLang runs: the explicit one, else its tuned file's (`file`, from `tuned_file(p)`) entry nearest to
    /// the rank's token count, else the default rule for (tokens seen, local experts, dtype).
    static moe_kernel_config chosen_config(const moe_problem& p, const moe_routing& r, const sglang_tuned_file* file) {
        if (p.config) return *p.config;
        if (file) return nearest_entry(*file, r.tokens);
        return moe_detail::default_config(r.tokens, r.local_experts, p.dtype, block_quant(p));
    }

    static moe_plan plan(const moe_problem& p, const gpu::gpu_numbers& g) {
        using namespace moe_detail;
        validate(p);
        if (p.dtype == moe_dtype::fp8 && !(g.tensor_fp8_flop_per_clk > 0))
            synperf::detail::report_error("moe: fp8 needs FP8 tensor cores; this GPU (sm_" + std::to_string(g.sm_version()) + ") has none");
        moe_plan out;
        out.routing = balanced_routing(p.tokens, p.experts, p.topk, p.ep, p.remote);
        const moe_routing& r = out.routing;
        out.explicit_config = p.config.has_value();
        out.tuned_file = tuned_file(p);
        const moe_kernel_config c = chosen_config(p, r, out.tuned_file);
        out.alignment = align_block_size(r, p.topk, c.bm);
        const std::int64_t i_local = p.inter / p.tp;
        const std::int64_t t = r.tokens, assignments = t * p.topk;
        const double e = element_bytes(p.dtype);

        // Weights of the layer's active experts: read from DRAM when the two matrices do not fit in half of L2.
        const double layer_weights = double(r.active_experts()) * 3.0 * double(i_local) * double(p.hidden) * e;
        const double cold = layer_weights > 0.5 * g.l2_bytes ? 1.0 : 0.0;

        out.w13.config = c;
        out.w13.n = 2 * i_local;
        out.w13.k = p.hidden;
        out.w13.a_rows = t;
        out.w2.config = c;
        out.w2.n = p.hidden;
        out.w2.k = i_local;
        out.w2.a_rows = assignments;
        work::kernel_launch k13 = gemm_launch(out.w13, r, out.alignment, p.topk, true, p.dtype, block_quant(p), g, cold, "fused_moe_w13");
        work::kernel_launch k2 = gemm_launch(out.w2, r, out.alignment, p.topk, false, p.dtype, block_quant(p), g, cold, "fused_moe_w2");
        require_launchable(out.w13, g, name);
        require_launchable(out.w2, g, name);
        out.kernels.push_back(std::move(k13));
        out.kernels.push_back(std::move(k2));

        const double ta = double(t), asg = double(assignments), h = double(p.hidden), il = double(i_local);
        if (p.ep == 1) {
            // select_experts: topk_softmax (one warp per row) over fp32 logits, then the collector's copies of
            // topk_weights, topk_ids and router_logits.
            out.kernels.push_back(small_kernel("topk_softmax", ceil_div(t, 4), 128, ta * double(p.experts) * 4.0 + asg * 8.0,
                                               ta * double(p.experts) * 4.0, g));
            out.kernels.push_back(small_kernel("copy_topk_weights", ceil_div(assignments, 512), 128, asg * 8.0, 0.0, g));
            out.kernels.push_back(small_kernel("copy_topk_ids", ceil_div(assignments, 512), 128, asg * 8.0, 0.0, g));
            out.kernels.push_back(small_kernel("copy_router_logits", ceil_div(t * p.experts, 512), 128, ta * double(p.experts) * 8.0, 0.0, g));
        }
        // moe_align_block_size: counts and prefix sum in one CTA, then the scatter into sorted_token_ids.
        const double align_bytes = asg * 4.0 * 2.0 + double(out.alignment.buffer) * 4.0 + double(out.alignment.buffer / c.bm) * 4.0;
        out.kernels.push_back(small_kernel("moe_align_block_size", 1, 1024, align_bytes, asg, g));
        const bool blocks = block_quant(p);
        if (p.dtype == moe_dtype::fp8)
            out.kernels.push_back(small_kernel(blocks ? "per_token_group_quant_fp8_a1" : "static_scaled_fp8_quant_a1", ceil_div(t * p.hidden / quant_group, 16), 256,
                                               ta * h * 3.0 + ta * h / quant_group * 4.0, ta * h * 3.0, g));
        out.kernels.push_back(small_kernel("silu_and_mul", assignments, int(std::min<std::int64_t>(i_local, 1024)),
                                           asg * il * 3.0 * out_bytes, asg * il * 5.0, g));
        if (p.dtype == moe_dtype::fp8)
            out.kernels.push_back(small_kernel(blocks ? "per_token_group_quant_fp8_a2" : "static_scaled_fp8_quant_a2", ceil_div(assignments * i_local / quant_group, 16), 256,
                                               asg * il * 3.0 + asg * il / quant_group * 4.0, asg * il * 3.0, g));
        out.kernels.push_back(small_kernel(p.topk == 1 ? "copy_output" : "moe_sum_reduce", ceil_div(t, 4), 256,
                                           (asg + ta) * h * out_bytes, asg * h, g));
        return out;
    }

    static std::array<double, feature_count> features(const moe_problem& p, const moe_plan& plan,
                                                      std::span<const features::kernel_features> kf, const gpu::gpu_numbers& g) {
        double bound = 0, small = 0, l2 = 0;
        for (std::size_t i = 0; i < kf.size(); ++i) {
            bound += kf[i].theoretical_cycles;
            if (i >= 2) small += kf[i].theoretical_cycles;
            l2 += kf[i].all.l2;
        }
        const moe_kernel_config& c = plan.w13.config;
        const double grid = double(plan.w13.grid + plan.w2.grid);
        const double assignments = double(plan.routing.assignments());
        const double active = double(plan.routing.active_experts());
        const double weights = plan.w13.weight_bytes + plan.w2.weight_bytes;
        return {features::cycles_to_us(bound, g),
                bound > 0 ? (bound - small) / bound : 0.0,
                kf[0].all.tensor,
                kf[0].sm_max.tensor,
                kf[0].sm_max.smem,
                kf[0].compulsory_dram_cycles,
                kf[1].all.tensor,
                kf[1].sm_max.tensor,
                kf[1].sm_max.smem,
                kf[1].compulsory_dram_cycles,
                features::cycles_to_us(small, g),
                double(kf.size()),
                kf[0].waves,
                kf[1].waves,
                grid > 0 ? double(plan.w13.empty_ctas + plan.w2.empty_ctas) / grid : 0.0,
                assignments > 0 ? double(plan.alignment.post_padded) / assignments : 1.0,
                active,
                active > 0 ? assignments / active : 0.0,
                double(c.bm),
                double(c.bn),
                double(c.bk),
                double(c.warps),
                double(c.stages),
                weights / g.l2_bytes,
                p.dtype == moe_dtype::fp8 ? 1.0 : 0.0,
                block_quant(p) ? 1.0 : 0.0,
                l2,
                grid > 0 ? double(plan.w13.zero_ctas + plan.w2.zero_ctas) / grid : 0.0,
                kf[0].all.dram,
                kf[1].all.dram};
    }
};

static_assert(KernelFamily<moe>);

}  // namespace synperf::family
