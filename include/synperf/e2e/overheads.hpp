// SPDX-License-Identifier: Apache-2.0
#pragma once
/// \file What an iteration costs besides its kernels: the GPU's idle gap between consecutive kernels, the
/// host's time to issue them when it cannot run ahead (eager PyTorch), and the framework's fixed host work
/// per iteration (batch preparation, sampling, synchronisation) that a static-batch benchmark waits for.
///
/// iteration = max(sum over launches (kernel + gap), launches x host_launch) + per_iteration.
/// - gap: NVIDIA, "Getting Started with CUDA Graphs" (developer.nvidia.com/blog/cuda-graphs, 2019): a
///   chain of ~2.9 us kernels costs 3.8 us each when launched back to back on a stream and 3.4 us each
///   from a CUDA graph, i.e. ~0.9 us and ~0.5 us of idle GPU per kernel. Families trained on CUDA-graph
///   replays (aiconfigurator's collectors time N graph replays; such a family says so with
///   `timed_in_cuda_graph`) already carry the graph gap in their predictions, so they get only the eager surplus
///   (0.4 us) and nothing in a graph; families trained on profiler device time (Vidur's, PipeWeave's) get the
///   whole gap.
/// - host_launch: the host time of one eager PyTorch op (dispatcher, Python, cudaLaunchKernel), taken as
///   10 us, the usual order of magnitude of PyTorch's per-op overhead; it matters only when kernels are
///   shorter (eager decode of small batches); with CUDA graphs the host issues one replay.
/// - per_iteration: host work of the serving loop that the GPU waits for in a synchronised static batch
///   (SGLang bench_one_batch: prepare_for_decode, ForwardBatch, graph-replay input copies, sampling and the
///   .tolist() sync). No public measurement of it exists for every framework; `fitted_iteration_us` is the one
///   number fitted on measured runs (see docs/e2e.md, reported leave-one-case-out), used for every
///   framework until per-framework data exists. Prefill pays it too (same loop), without graph replay.
/// None of these depends on the GPU: every catalogue GPU runs from its spec alone.
#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>

#include "synperf/e2e/workload.hpp"

namespace synperf::e2e {

/// The overhead terms of one iteration (microseconds).
struct overhead_model {
    bool graph = false;           ///< kernels replayed from a CUDA graph (see `gap_us` per family)
    double host_launch_us = 0;    ///< host time to issue one kernel (0 when a graph replays them)
    double per_iteration_us = 0;  ///< fixed host work per iteration the GPU waits for
};

/// Idle GPU between kernels launched from a stream / replayed from a CUDA graph (NVIDIA CUDA Graphs blog).
inline constexpr double stream_gap_us = 0.9;
inline constexpr double graph_gap_us = 0.5;
/// Host time of one eager PyTorch op (see the file comment).
inline constexpr double eager_host_launch_us = 10.0;
/// Host work per iteration of the serving loop, fitted on the measured SGLang static-batch runs of
/// e2e_dev.json: the non-negative least-squares fit of the median decode step's relative error over all
/// cases (`synperf e2e --dev-set` prints it and reports each case leave-one-case-out; docs/e2e.md): 748 us
/// with the shipped weights.
inline constexpr double fitted_iteration_us = 748.0;

/// Whether family F's predictions come from CUDA-graph replays (and so include the in-graph launch gap): its
/// `F::timed_in_cuda_graph`, false when it has none.
template <class F>
inline constexpr bool timed_in_cuda_graph = [] {
    if constexpr (requires { F::timed_in_cuda_graph; })
        return bool(F::timed_in_cuda_graph);
    else
        return false;
}();

/// `timed_in_cuda_graph` of every family of `List`, by position.
template <class List>
inline constexpr auto timed_in_cuda_graph_by_index = [] {
    std::array<bool, List::size> out{};
    std::size_t i = 0;
    List::for_each([&](auto family) { out[i++] = timed_in_cuda_graph<typename decltype(family)::type>; });
    return out;
}();

/// The GPU idle time added after one launch of a family timed (or not) in CUDA graphs.
[[nodiscard]] constexpr double gap_us(bool family_timed_in_graph, bool graph) noexcept {
    if (family_timed_in_graph) return graph ? 0.0 : stream_gap_us - graph_gap_us;
    return graph ? graph_gap_us : stream_gap_us;
}

/// The overheads of an iteration under a framework. TensorRT-LLM runs decode from CUDA graphs too
/// (its PyTorch flow captures decode graphs by default); every framework runs prefill eagerly.
[[nodiscard]] constexpr overhead_model overheads(framework f, bool decode, bool cuda_graph, double per_iteration_us = fitted_iteration_us) {
    (void)f;  // no per-framework measurement yet: the same terms for each (see the file comment)
    overhead_model o;
    const bool graph = decode && cuda_graph;
    o.graph = graph;
    o.host_launch_us = graph ? 0.0 : eager_host_launch_us;
    o.per_iteration_us = per_iteration_us;
    return o;
}

/// An iteration's overhead (us) given its kernels' total time, the launch gaps they add (sum of
/// `gap_us` over launches) and the launch count.
[[nodiscard]] constexpr double overhead_us(const overhead_model& o, double kernel_us, double gaps_us, std::int64_t launches) {
    const double gpu = kernel_us + gaps_us;
    const double host = double(launches) * o.host_launch_us;
    return std::max(gpu, host) - kernel_us + o.per_iteration_us;
}

}  // namespace synperf::e2e
