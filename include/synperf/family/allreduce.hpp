// SPDX-License-Identifier: Apache-2.0
#pragma once
/// \file Collectives inside one node: all-reduce (and NCCL's all-gather / reduce-scatter) as the serving
/// frameworks run them.
///
/// The time of a collective is set by the links between GPUs, not by an SM pipe, so the decomposer is an
/// alpha-beta model per algorithm whose parameters come from the system policy (`system::system_spec`:
/// wiring, per-direction link bandwidth, per-hop latency) and the GPU:
/// - one-shot (vLLM/SGLang 1-stage, TRT-LLM ONESHOT): every GPU reads the n - 1 peers' full buffers;
/// - two-shot (2-stage, TWOSHOT): reduce-scatter then all-gather, 2(n - 1)/n of the bytes per GPU, 3 handshakes;
/// - ring (NCCL): 2(n - 1)/n of the bytes over the slowest link, 2(n - 1) steps;
/// - tree (NCCL, a chain inside a node): 2 log2(n) steps, internal GPUs carry the bytes twice per direction;
/// - NVLS (NCCL on NVSwitch with NVLink SHARP): the switch reduces, each GPU moves the bytes once per direction.
/// The implementation (TRT-LLM AUTO, SGLang/vLLM custom all-reduce, nccl-tests, torch.distributed) is an
/// input: its public selection rules decide which algorithm runs (the `policy` features), and it is the
/// model's categorical input. The op's theoretical time is the fastest algorithm the implementation can run
/// (a lower bound on every measured row; see docs/families/allreduce.md), so the MLP learns an efficiency
/// over it. The "kernel" is the collective's single launch: the custom kernels' grid as vLLM sizes it, NCCL's
/// one CTA per channel, with the analytical time as its compulsory work (link time expressed as the DRAM
/// bytes that would take as long: `task_work` has no link pipe).
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
#include "synperf/features/analysis.hpp"
#include "synperf/gpu/numbers.hpp"
#include "synperf/system/system.hpp"
#include "synperf/work/launch.hpp"
#include "synperf/work/task.hpp"

namespace synperf::family {

/// Which collective.
enum class collective_op { all_reduce, all_gather, reduce_scatter };

/// Element type (sets the element size; reductions of any type move the same bytes).
enum class collective_dtype { bf16, fp16, fp32, int8 };

/// Who runs the collective: the categorical input of the model.
enum class collective_impl {
    trtllm,        ///< TensorRT-LLM AllReduce, strategy AUTO (custom one-/two-shot or NCCL), CUDA graph
    sglang,        ///< SGLang / vLLM custom all-reduce (falls back to NCCL), CUDA graph
    sglang_eager,  ///< the same without graph capture (host overhead per call)
    nccl,          ///< nccl-tests (`all_reduce_perf` ...), out-of-place
    torch,         ///< torch.distributed (NCCL) device time from the profiler
};

/// An algorithm a collective may run.
enum class collective_algorithm { one_shot, two_shot, ring, tree, nvls };

[[nodiscard]] constexpr std::string_view to_string(collective_op o) noexcept {
    switch (o) {
        case collective_op::all_reduce: return "all_reduce";
        case collective_op::all_gather: return "all_gather";
        case collective_op::reduce_scatter: return "reduce_scatter";
    }
    return "?";
}
[[nodiscard]] constexpr std::string_view to_string(collective_impl i) noexcept {
    switch (i) {
        case collective_impl::trtllm: return "trtllm";
        case collective_impl::sglang: return "sglang";
        case collective_impl::sglang_eager: return "sglang_eager";
        case collective_impl::nccl: return "nccl";
        case collective_impl::torch: return "torch";
    }
    return "?";
}
/// SGLang's custom all-reduce (vLLM's code), with or without CUDA graphs.
[[nodiscard]] constexpr bool is_sglang_custom(collective_impl i) noexcept {
    return i == collective_impl::sglang || i == collective_impl::sglang_eager;
}
[[nodiscard]] constexpr std::string_view to_string(collective_algorithm a) noexcept {
    switch (a) {
        case collective_algorithm::one_shot: return "one_shot";
        case collective_algorithm::two_shot: return "two_shot";
        case collective_algorithm::ring: return "ring";
        case collective_algorithm::tree: return "tree";
        case collective_algorithm::nvls: return "nvls";
    }
    return "?";
}

/// Bytes per element.
[[nodiscard]] constexpr int element_bytes(collective_dtype d) noexcept {
    switch (d) {
        case collective_dtype::bf16:
        case collective_dtype::fp16: return 2;
        case collective_dtype::fp32: return 4;
        case collective_dtype::int8: return 1;
    }
    return 2;
}

/// Parses "all_reduce" / "allreduce", "all_gather", "reduce_scatter".
[[nodiscard]] inline collective_op parse_collective_op(std::string_view s) {
    if (s == "all_reduce" || s == "allreduce") return collective_op::all_reduce;
    if (s == "all_gather" || s == "allgather") return collective_op::all_gather;
    if (s == "reduce_scatter" || s == "reducescatter") return collective_op::reduce_scatter;
    synperf::detail::report_error("allreduce: unknown collective '" + std::string(s) + "'; known: all_reduce, all_gather, reduce_scatter");
}
/// Parses "bf16"/"bfloat16", "fp16"/"half"/"float16", "fp32"/"float", "int8".
[[nodiscard]] inline collective_dtype parse_collective_dtype(std::string_view s) {
    if (s == "bf16" || s == "bfloat16") return collective_dtype::bf16;
    if (s == "fp16" || s == "half" || s == "float16") return collective_dtype::fp16;
    if (s == "fp32" || s == "float" || s == "float32") return collective_dtype::fp32;
    if (s == "int8") return collective_dtype::int8;
    synperf::detail::report_error("allreduce: unknown dtype '" + std::string(s) + "'; known: bf16, fp16, fp32, int8");
}
/// Parses an implementation: trtllm; sglang or vllm (custom all-reduce, graph); sglang_eager or vllm_eager;
/// nccl (nccl-tests); torch (torch.distributed).
[[nodiscard]] inline collective_impl parse_collective_impl(std::string_view s) {
    if (s == "trtllm") return collective_impl::trtllm;
    if (s == "sglang" || s == "vllm" || s == "sglang_graph") return collective_impl::sglang;
    if (s == "sglang_eager" || s == "vllm_eager") return collective_impl::sglang_eager;
    if (s == "nccl") return collective_impl::nccl;
    if (s == "torch" || s == "torch.distributed") return collective_impl::torch;
    synperf::detail::report_error("allreduce: unknown implementation '" + std::string(s) +
                                  "'; known: trtllm, sglang, vllm, sglang_eager, vllm_eager, nccl, torch");
}

/// One collective on `gpus` GPUs of one node.
struct allreduce_problem {
    system::system_spec system;                         ///< the node (wiring, links)
    collective_op op = collective_op::all_reduce;
    std::int64_t bytes = 0;  ///< message bytes: the buffer reduced (all-reduce), gathered output, or scattered input
    collective_dtype dtype = collective_dtype::bf16;
    int gpus = 0;                                       ///< GPUs taking part (the TP size)
    collective_impl implementation = collective_impl::sglang;

    friend bool operator==(const allreduce_problem&, const allreduce_problem&) = default;
    friend std::size_t hash_value(const allreduce_problem& p) noexcept {
        return synperf::detail::hash_fields(p.system.name, p.op, p.bytes, p.dtype, p.gpus, p.implementation);
    }
};

/// Alpha-beta time of one algorithm.
struct algorithm_time {
    bool available = false;   ///< the implementation can run it for this problem
    double latency_us = 0;    ///< launch + handshakes / steps x hop latency
    double bandwidth_us = 0;  ///< link bytes per GPU / per-direction bandwidth
    double link_bytes = 0;    ///< bytes each GPU moves in one direction over its slowest link
    [[nodiscard]] constexpr double total_us() const noexcept { return latency_us + bandwidth_us; }
};

/// Every algorithm's analytical time for one problem, and the choices made from them.
struct allreduce_estimate {
    std::array<algorithm_time, 5> algorithms{};  ///< indexed by collective_algorithm
    collective_algorithm policy = collective_algorithm::ring;   ///< what the implementation's public rules run
    collective_algorithm fastest = collective_algorithm::ring;  ///< the fastest available algorithm
    double theoretical_us = 0;  ///< fastest available algorithm's time: the op's lower bound
    double policy_us = 0;       ///< the policy algorithm's time: the pure alpha-beta baseline
    double gbps = 0;            ///< per-direction bandwidth of the slowest link used
    double hop_us = 0;          ///< per-hop latency of the slowest link used
    [[nodiscard]] const algorithm_time& operator[](collective_algorithm a) const noexcept {
        return algorithms[static_cast<std::size_t>(a)];
    }
};

namespace allreduce_detail {

/// A kernel inside a CUDA graph starts about 1.5-3 us after the previous one in the measured data
/// (MANIFEST.md); 1 us keeps the bound below every row.
inline constexpr double launch_us = 1.0;
/// vLLM / SGLang custom all-reduce (csrc/custom_all_reduce.cuh, custom_all_reduce.py): default max_size 8 MiB,
/// world sizes 2, 4, 6, 8; 512 threads, at most 36 CTAs of 16-byte packs.
inline constexpr std::int64_t sglang_custom_max_bytes = 8ll << 20;
inline constexpr int custom_threads = 512;
inline constexpr std::int64_t custom_max_ctas = 36;
/// TensorRT-LLM's all-reduce workspace: 64 MiB (cpp/tensorrt_llm/common/customAllReduceUtils.h,
/// getMaxRequiredWorkspaceSize); above it AUTO runs NCCL.
inline constexpr std::int64_t trtllm_custom_max_bytes = 64ll << 20;
/// NCCL launches one CTA per channel; the count is NCCL's run-time choice (assumed here).
inline constexpr std::int64_t nccl_channels_nvlink = 16;
inline constexpr std::int64_t nccl_channels_pcie = 4;

constexpr std::size_t index(collective_algorithm a) noexcept { return static_cast<std::size_t>(a); }

/// Whether vLLM's rules allow its custom all-reduce: all-reduce, 16-byte aligned, under max_size, a
/// supported world size, and 2 GPUs with peer access or a fully NVLink-connected set (the custom kernels
/// read the peers' buffers directly; `gpu_p2p_access_check` turns them off without peer access).
inline bool sglang_custom_allowed(const allreduce_problem& p) {
    const int n = p.gpus;
    return p.op == collective_op::all_reduce && p.bytes % 16 == 0 && p.bytes < sglang_custom_max_bytes &&
           (n == 2 || n == 4 || n == 6 || n == 8) &&
           (n == 2 ? p.system.peer_access(n) : p.system.fully_nvlink_connected(n));
}

/// TRT-LLM's custom kernels need peer access over NVLink and the message in its workspace.
inline bool trtllm_custom_allowed(const allreduce_problem& p) {
    return p.op == collective_op::all_reduce && p.system.nvlink_only(p.gpus) && p.bytes <= trtllm_custom_max_bytes;
}

}  // namespace allreduce_detail

/// Checks a problem; throws `invalid_argument` with what was expected. With `allow_one_gpu`, one GPU passes as
/// the trivial collective that communicates nothing, but its node, size, element type and implementation are
/// checked all the same.
inline void validate(const allreduce_problem& p, bool allow_one_gpu = false) {
    system::validate(p.system);
    const auto bad = [](const std::string& what) { synperf::detail::report_error("allreduce: " + what); };
    synperf::detail::require_enum(p.op, collective_op::reduce_scatter, "allreduce: unknown op");
    synperf::detail::require_enum(p.dtype, collective_dtype::int8, "allreduce: unknown dtype");
    synperf::detail::require_enum(p.implementation, collective_impl::torch, "allreduce: unknown implementation");
    if (p.gpus < (allow_one_gpu ? 1 : 2))
        bad("gpus must be >= " + std::string(allow_one_gpu ? "1" : "2 for a collective") + ", got " + std::to_string(p.gpus) +
            (allow_one_gpu ? "" : " (one GPU needs no communication: allreduce_latency_us returns 0 for it)"));
    if (p.gpus > p.system.gpus_per_node)
        bad("gpus must be <= the GPUs per node, " + std::to_string(p.system.gpus_per_node) + " (system '" + p.system.name +
            "'; only single-node collectives are modelled), got " + std::to_string(p.gpus));
    if (p.bytes <= 0) bad("bytes must be > 0, got " + std::to_string(p.bytes));
    if (p.bytes > (std::int64_t{1} << 40)) bad("bytes must be <= 2^40, got " + std::to_string(p.bytes));
    const int eb = element_bytes(p.dtype);
    if (p.bytes % eb != 0)
        bad("bytes must be a multiple of the element size " + std::to_string(eb) + ", got " + std::to_string(p.bytes));
    if (p.op != collective_op::all_reduce) {
        if (p.implementation != collective_impl::nccl && p.implementation != collective_impl::torch)
            bad(std::string(to_string(p.op)) + " is modelled for nccl and torch only, got implementation " +
                std::string(to_string(p.implementation)) +
                (is_sglang_custom(p.implementation) ? " (the custom all-reduce that 'vllm' also names)" : ""));
        if (p.bytes % (std::int64_t(p.gpus) * eb) != 0)
            bad(std::string(to_string(p.op)) + ": bytes must split into " + std::to_string(p.gpus) +
                " equal whole-element parts, got " + std::to_string(p.bytes));
    }
}

/// The alpha-beta times of every algorithm, which ones the implementation can run, and which it runs.
[[nodiscard]] inline allreduce_estimate estimate(const allreduce_problem& p) {
    using allreduce_detail::index;
    using allreduce_detail::launch_us;
    const int n = p.gpus;
    const double s = double(p.bytes);
    allreduce_estimate e;
    e.gbps = p.system.collective_gbps(n);
    e.hop_us = p.system.hop_latency_us(n);
    const double bytes_per_us = e.gbps * 1e3;
    const double h = e.hop_us;
    const auto make = [&](bool available, double steps, double link_bytes) {
        return algorithm_time{available, launch_us + steps * h, link_bytes / bytes_per_us, link_bytes};
    };
    const bool reduce = p.op == collective_op::all_reduce;
    bool custom = false;
    if (p.implementation == collective_impl::trtllm) custom = allreduce_detail::trtllm_custom_allowed(p);
    if (is_sglang_custom(p.implementation)) custom = allreduce_detail::sglang_custom_allowed(p);

    auto& a = e.algorithms;
    if (reduce) {
        a[index(collective_algorithm::one_shot)] = make(custom, 2, double(n - 1) * s);
        a[index(collective_algorithm::two_shot)] = make(custom, 3, 2.0 * double(n - 1) / n * s);
        a[index(collective_algorithm::ring)] = make(true, 2.0 * (n - 1), 2.0 * double(n - 1) / n * s);
        a[index(collective_algorithm::tree)] = make(true, 2.0 * std::ceil(std::log2(double(n))), (n > 2 ? 2.0 : 1.0) * s);
        a[index(collective_algorithm::nvls)] = make(p.system.in_switch_reduction && n > 2, 2, s);
    } else {
        // All-gather / reduce-scatter: every GPU receives (sends) the n - 1 parts it does not own.
        a[index(collective_algorithm::ring)] = make(true, double(n - 1), double(n - 1) / n * s);
        for (auto alg : {collective_algorithm::one_shot, collective_algorithm::two_shot, collective_algorithm::tree,
                         collective_algorithm::nvls})
            a[index(alg)] = algorithm_time{};
    }

    // Fastest available (the bound) and the fastest NCCL algorithm (what NCCL's tuner aims for).
    double best = std::numeric_limits<double>::infinity(), best_nccl = best;
    collective_algorithm nccl_pick = collective_algorithm::ring;
    for (auto alg : {collective_algorithm::one_shot, collective_algorithm::two_shot, collective_algorithm::ring,
                     collective_algorithm::tree, collective_algorithm::nvls}) {
        const algorithm_time& t = a[index(alg)];
        if (!t.available) continue;
        if (t.total_us() < best) {
            best = t.total_us();
            e.fastest = alg;
        }
        const bool is_nccl = alg != collective_algorithm::one_shot && alg != collective_algorithm::two_shot;
        if (is_nccl && t.total_us() < best_nccl) {
            best_nccl = t.total_us();
            nccl_pick = alg;
        }
    }
    e.theoretical_us = best;

    // The implementation's own choice.
    e.policy = nccl_pick;
    if (custom && is_sglang_custom(p.implementation)) {
        // vLLM: 2 GPUs -> 1-stage; full NVLink: (<= 4 GPUs and < 512 KiB) or (<= 8 GPUs and < 256 KiB) -> 1-stage.
        const bool one = n == 2 || (n <= 4 && p.bytes < (512 << 10)) || (n <= 8 && p.bytes < (256 << 10));
        e.policy = one ? collective_algorithm::one_shot : collective_algorithm::two_shot;
    } else if (custom && p.implementation == collective_impl::trtllm) {
        // AUTO picks from a tuned table (customAllReduceUtils.h); we take the faster of its two custom kernels.
        e.policy = a[index(collective_algorithm::one_shot)].total_us() <= a[index(collective_algorithm::two_shot)].total_us()
                       ? collective_algorithm::one_shot
                       : collective_algorithm::two_shot;
    }
    e.policy_us = a[index(e.policy)].total_us();
    return e;
}

/// Kernels of one collective and the estimate they came from.
struct allreduce_plan {
    std::vector<work::kernel_launch> kernels;
    allreduce_estimate estimate;
    std::int64_t ctas = 0;  ///< grid of the launch
};

/// The all-reduce family policy (also all-gather / reduce-scatter for NCCL and torch.distributed).
struct allreduce {
    using problem_type = allreduce_problem;
    using plan_type = allreduce_plan;
    static constexpr std::string_view name = "allreduce";
    /// Its training latencies are CUDA-graph replays (aiconfigurator's collectors), so predictions include the in-graph launch gap.
    static constexpr bool timed_in_cuda_graph = true;

    /// Implementations, in `collective_impl` order; vLLM is SGLang's level (the same custom all-reduce code).
    static constexpr std::array<std::string_view, 5> framework_levels{"trtllm", "sglang", "sglang_eager", "nccl", "torch"};
    static std::size_t framework_level(std::string_view framework) {
        return static_cast<std::size_t>(parse_collective_impl(framework));
    }
    /// The framework level (`level`, parsed from `framework`) is the problem's implementation: another one would feed
    /// the model one implementation's level with another's kernels.
    static void check_framework(const allreduce_problem& p, std::size_t level, std::string_view framework) {
        if (level != static_cast<std::size_t>(p.implementation))
            synperf::detail::report_error("allreduce: framework '" + std::string(framework) + "' is not the problem's implementation '" +
                                          std::string(to_string(p.implementation)) + "' (pass to_string(p.implementation))");
    }

    static constexpr std::array<std::string_view, 22> feature_names{
        "theoretical_us", "latency_term_us", "bandwidth_term_us", "policy_us", "one_shot_us", "two_shot_us", "ring_us",
        "nvls_us", "policy_one_shot", "policy_two_shot", "policy_nccl", "gpus", "message_bytes", "policy_link_bytes",
        "hop_latency_us", "link_gbps", "pcie_only", "in_switch_reduction", "all_gather", "reduce_scatter", "ctas",
        "bytes_per_cta"};
    static constexpr std::size_t feature_count = feature_names.size();

    /// One CTA per work slice, placed by the hardware.
    static constexpr work::dispatch_kind main_dispatch(const gpu::gpu_numbers&) noexcept { return work::dispatch_kind::hardware; }

    /// Bytes one GPU holds for the collective: its message (`bytes`: the reduced buffer, the gathered output or the
    /// scattered input) and, for custom all-reduce, as much again in its registered buffer.
    [[nodiscard]] static double device_bytes(const allreduce_problem& p) noexcept {
        const bool staged = p.implementation == collective_impl::trtllm || is_sglang_custom(p.implementation);
        return double(p.bytes) * (staged ? 2.0 : 1.0);
    }

    static void validate(const allreduce_problem& p) { family::validate(p); }

    /// The collective's single launch, with the analytical time as its compulsory work.
    static allreduce_plan plan(const allreduce_problem& p, const gpu::gpu_numbers& g) {
        validate(p);
        allreduce_plan out;
        out.estimate = family::estimate(p);
        const allreduce_estimate& e = out.estimate;
        const bool custom = e.policy == collective_algorithm::one_shot || e.policy == collective_algorithm::two_shot;
        work::kernel_launch k;
        if (custom) {
            // vLLM: blocks = min(36, ceil(packs / threads)) with 16-byte packs.
            const std::int64_t packs = (p.bytes + 15) / 16;
            out.ctas = std::clamp<std::int64_t>((packs + allreduce_detail::custom_threads - 1) / allreduce_detail::custom_threads, 1,
                                                allreduce_detail::custom_max_ctas);
            k.name = std::string(to_string(p.implementation)) + "_custom_allreduce_" +
                     (e.policy == collective_algorithm::one_shot ? "1stage" : "2stage");
        } else {
            out.ctas = p.system.nvlink_only(p.gpus) ? allreduce_detail::nccl_channels_nvlink : allreduce_detail::nccl_channels_pcie;
            k.name = "nccl_" + std::string(to_string(p.op)) + "_" + std::string(to_string(e.policy));
        }
        k.launch = {allreduce_detail::custom_threads, 32, 0};
        k.dispatch = work::dispatch_kind::hardware;
        work::task_work slice;
        slice.l2_bytes = e[e.policy].link_bytes / double(out.ctas);  // what each CTA streams over the links
        k.tasks.push_back({slice, out.ctas});
        work::task_work floor;
        floor.dram_bytes = e.theoretical_us * g.dram_gbps * 1e3;  // link time as DRAM-equivalent bytes
        k.compulsory = floor;
        out.kernels.push_back(std::move(k));
        return out;
    }

    /// Model inputs: the algorithms' times, the policy, and the system's link numbers.
    static std::array<double, feature_count> features(const allreduce_problem& p, const allreduce_plan& plan,
                                                      std::span<const features::kernel_features>, const gpu::gpu_numbers&) {
        const allreduce_estimate& e = plan.estimate;
        const auto t = [&](collective_algorithm a) { return e[a].available ? e[a].total_us() : 0.0; };
        const algorithm_time& best = e[e.fastest];
        const bool custom = e.policy == collective_algorithm::one_shot || e.policy == collective_algorithm::two_shot;
        return {e.theoretical_us,
                best.latency_us,
                best.bandwidth_us,
                e.policy_us,
                t(collective_algorithm::one_shot),
                t(collective_algorithm::two_shot),
                t(collective_algorithm::ring),
                t(collective_algorithm::nvls),
                e.policy == collective_algorithm::one_shot ? 1.0 : 0.0,
                e.policy == collective_algorithm::two_shot ? 1.0 : 0.0,
                custom ? 0.0 : 1.0,
                double(p.gpus),
                double(p.bytes),
                e[e.policy].link_bytes,
                e.hop_us,
                e.gbps,
                p.system.nvlink_only(p.gpus) ? 0.0 : 1.0,
                p.system.in_switch_reduction ? 1.0 : 0.0,
                p.op == collective_op::all_gather ? 1.0 : 0.0,
                p.op == collective_op::reduce_scatter ? 1.0 : 0.0,
                double(plan.ctas),
                double(p.bytes) / double(plan.ctas)};
    }
};

static_assert(KernelFamily<allreduce>);

}  // namespace synperf::family
