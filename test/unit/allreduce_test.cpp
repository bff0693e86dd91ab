// SPDX-License-Identifier: Apache-2.0
// The all-reduce family: system policies, the alpha-beta algorithm times, the implementations' rules,
// input checks, and the one-call latency with the shipped model.
#include "synperf/family/allreduce.hpp"

#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <span>
#include <string>

#include "synperf/error.hpp"
#include "synperf/e2e/allreduce_latency.hpp"
#include "synperf/gpu/registry.hpp"
#include "synperf/predictor/predictor.hpp"
#include "synperf/system/catalogue.hpp"
#include "synperf/system/system.hpp"

namespace {

using namespace synperf;
using family::collective_algorithm;
using family::collective_dtype;
using family::collective_impl;
using family::collective_op;

family::allreduce_problem problem(const std::string& gpu, int n, std::int64_t bytes, collective_impl impl = collective_impl::nccl,
                                  collective_op op = collective_op::all_reduce) {
    return family::allreduce_problem{system::builtin_system(gpu), op, bytes, collective_dtype::bf16, n, impl};
}

}  // namespace

static_assert(family::KernelFamily<family::allreduce>);

TEST_CASE("allreduce: built-in systems carry the node's wiring and per-direction link numbers") {
    const system::system_spec h100 = system::builtin_system("NVIDIA H100 80GB HBM3");
    CHECK(h100.gpu == "h100_sxm");
    CHECK(h100.gpus_per_node == 8);
    CHECK(h100.wiring == system::topology::nvswitch);
    CHECK(h100.nvlink_gbps == doctest::Approx(450.0));  // 900 GB/s bidirectional
    CHECK(h100.in_switch_reduction);
    CHECK_FALSE(system::builtin_system("a100_sxm").in_switch_reduction);  // NVSwitch gen 2: no SHARP
    const system::system_spec gb200 = system::builtin_system("gb200");
    CHECK(gb200.gpus_per_node == 4);
    CHECK(gb200.nvlink_gbps == doctest::Approx(900.0));
    CHECK(system::builtin_system("l40s").wiring == system::topology::pcie);
    CHECK(system::builtin_system("rtx_pro_6000_server").collective_gbps(8) == doctest::Approx(64.0));
    CHECK(system::builtin_system("a40").wiring == system::topology::nvlink_pairwise);
    CHECK(system::builtin_systems().size() == gpu::known_gpu_names().size());
    // A GPU renamed at run time keeps the node of the GPU it was taken from, under its new name.
    gpu::runtime_gpu renamed = gpu::find_gpu("h100_sxm");
    renamed.name = "l40s";
    const system::system_spec kept = system::builtin_system_for("h100_sxm", renamed);
    CHECK(kept.wiring == system::topology::nvswitch);
    CHECK(kept.gpu == "l40s");
    CHECK(kept.name == "l40s" + h100.name.substr(std::string("h100_sxm").size()));
    CHECK(kept.collective_gbps(8) == doctest::Approx(h100.collective_gbps(8)));
}

TEST_CASE("allreduce: collective bandwidth follows the wiring") {
    // Direct mesh of 4: two GPUs use one of three link bundles.
    const gpu::runtime_gpu h100 = gpu::find_gpu("h100_sxm");
    const system::system_spec mesh = system::make_system(h100.name, h100.numbers, 4, system::topology::nvlink_mesh);
    CHECK(mesh.collective_gbps(2) == doctest::Approx(150.0));
    CHECK(mesh.collective_gbps(4) == doctest::Approx(450.0));
    // Pairwise bridges: a pair talks over NVLink, four GPUs over PCIe.
    const system::system_spec pair = system::builtin_system("a100_pcie_40gb");
    CHECK(pair.collective_gbps(2) == doctest::Approx(300.0));
    CHECK(pair.collective_gbps(4) == doctest::Approx(32.0));
    CHECK(pair.hop_latency_us(4) == doctest::Approx(system::pcie_hop_us));
    // L40S node: P2P in pairs, then a 16 GB/s host bridge shared by the ring: 2 * 16 / n per GPU.
    const system::system_spec l40s = system::builtin_system("l40s");
    CHECK(l40s.collective_gbps(2) == doctest::Approx(32.0));
    CHECK(l40s.collective_gbps(4) == doctest::Approx(8.0));
    CHECK(l40s.collective_gbps(8) == doctest::Approx(4.0));
}

TEST_CASE("allreduce: alpha-beta times, hand-worked on 8 x H100 (450 GB/s, 0.6 us per hop, 1 us launch)") {
    const double s = 1 << 20;
    const family::allreduce_estimate e = family::estimate(problem("h100_sxm", 8, 1 << 20, collective_impl::sglang));
    const double per_us = 450e3;  // bytes per microsecond
    CHECK(e[collective_algorithm::one_shot].total_us() == doctest::Approx(1.0 + 2 * 0.6 + 7 * s / per_us));
    CHECK(e[collective_algorithm::two_shot].total_us() == doctest::Approx(1.0 + 3 * 0.6 + 2.0 * 7 / 8 * s / per_us));
    CHECK(e[collective_algorithm::ring].total_us() == doctest::Approx(1.0 + 14 * 0.6 + 2.0 * 7 / 8 * s / per_us));
    CHECK(e[collective_algorithm::tree].total_us() == doctest::Approx(1.0 + 6 * 0.6 + 2 * s / per_us));
    CHECK(e[collective_algorithm::nvls].total_us() == doctest::Approx(1.0 + 2 * 0.6 + s / per_us));
    CHECK(e.fastest == collective_algorithm::nvls);
    CHECK(e.theoretical_us == doctest::Approx(1.0 + 1.2 + s / per_us));
    // vLLM rule: 8 GPUs and >= 256 KiB -> 2-stage.
    CHECK(e.policy == collective_algorithm::two_shot);
    CHECK(e.policy_us == doctest::Approx(e[collective_algorithm::two_shot].total_us()));

    // All-gather over PCIe on 2 RTX PRO 6000: ring of (n - 1) / n of the bytes at 64 GB/s, one hop of 1 us.
    const family::allreduce_estimate ag =
        family::estimate(problem("rtx_pro_6000_server", 2, 64 << 20, collective_impl::nccl, collective_op::all_gather));
    CHECK(ag.theoretical_us == doctest::Approx(1.0 + 1.0 + 0.5 * double(64 << 20) / 64e3));
    CHECK_FALSE(ag[collective_algorithm::nvls].available);
}

TEST_CASE("allreduce: the implementations' public rules pick the algorithm") {
    using A = collective_algorithm;
    CHECK(family::estimate(problem("h100_sxm", 8, 128 << 10, collective_impl::sglang)).policy == A::one_shot);
    CHECK(family::estimate(problem("h100_sxm", 4, 384 << 10, collective_impl::sglang)).policy == A::one_shot);
    CHECK(family::estimate(problem("h100_sxm", 4, 1 << 20, collective_impl::sglang)).policy == A::two_shot);
    CHECK(family::estimate(problem("h100_sxm", 2, 4 << 20, collective_impl::sglang)).policy == A::one_shot);
    // 8 MiB and above: SGLang falls back to NCCL.
    CHECK(family::estimate(problem("h100_sxm", 8, 8 << 20, collective_impl::sglang)).policy == A::nvls);
    // PCIe: custom all-reduce only for 2 GPUs; TRT-LLM's custom kernels need NVLink.
    CHECK(family::estimate(problem("l40s", 2, 1 << 16, collective_impl::sglang)).policy == A::one_shot);
    const A l40s4 = family::estimate(problem("l40s", 4, 1 << 16, collective_impl::sglang)).policy;
    CHECK((l40s4 == A::ring || l40s4 == A::tree));
    const A trt = family::estimate(problem("l40s", 2, 1 << 16, collective_impl::trtllm)).policy;
    CHECK((trt == A::ring || trt == A::tree));
    // Without peer access (P2P groups of one GPU) the custom kernels cannot read the peer's buffer: NCCL, whose
    // ring crosses the host bridge (2 x 16 / 2 = 16 GB/s per GPU).
    family::allreduce_problem no_p2p = problem("rtx_6000_ada", 2, 1 << 16, collective_impl::sglang);
    no_p2p.system.p2p_group_size = 1;
    no_p2p.system.host_bridge_gbps = 16.0;
    CHECK_FALSE(no_p2p.system.peer_access(2));
    CHECK(system::builtin_system("l40s").peer_access(2));
    CHECK_FALSE(system::builtin_system("l40s").peer_access(4));
    CHECK(system::builtin_system("h100_sxm").peer_access(8));
    CHECK(no_p2p.system.collective_gbps(2) == doctest::Approx(16.0));
    const family::allreduce_estimate e = family::estimate(no_p2p);
    CHECK((e.policy == A::ring || e.policy == A::tree));
    CHECK(e[A::ring].bandwidth_us == doctest::Approx(double(1 << 16) / 16e3));
}

TEST_CASE("allreduce: the theoretical time grows with the message and stays below the policy's time") {
    for (const auto& sys : system::builtin_systems()) {
        for (int n : {2, 4, 8}) {
            if (n > sys.gpus_per_node) continue;
            for (auto impl : {collective_impl::trtllm, collective_impl::sglang, collective_impl::nccl, collective_impl::torch}) {
                double previous = 0;
                for (std::int64_t bytes = 256; bytes <= (std::int64_t{1} << 31); bytes *= 2) {
                    const family::allreduce_estimate e =
                        family::estimate(family::allreduce_problem{sys, collective_op::all_reduce, bytes, collective_dtype::bf16, n, impl});
                    CHECK(e.theoretical_us >= previous);
                    CHECK(e.theoretical_us <= e.policy_us * (1 + 1e-12));
                    previous = e.theoretical_us;
                }
            }
        }
    }
}

TEST_CASE("allreduce: the launch carries the analytical time as compulsory work") {
    const gpu::runtime_gpu g = gpu::find_gpu("h100_sxm");
    const family::allreduce_problem p = problem("h100_sxm", 8, 1 << 20, collective_impl::sglang);
    const family::allreduce_plan plan = family::allreduce::plan(p, g.numbers);
    REQUIRE(plan.kernels.size() == 1);
    CHECK(plan.ctas == 36);  // vLLM: min(36, ceil(65536 packs / 512 threads) = 128)
    CHECK(family::allreduce::plan(problem("h100_sxm", 8, 4096, collective_impl::sglang), g.numbers).ctas == 1);
    const prediction r = predictor_detail::analyze<family::allreduce>(p, g.numbers, predictor_detail::schedule_by_dispatch{});
    CHECK(r.theoretical_us == doctest::Approx(family::estimate(p).theoretical_us));
    CHECK(r.features.size() == family::allreduce::feature_count);
    for (double f : r.features) CHECK(f >= 0);
}

TEST_CASE("allreduce: bad inputs give clear errors") {
    CHECK_THROWS_WITH_AS(family::validate(problem("h100_sxm", 1, 1024)), doctest::Contains("gpus must be >= 2"), invalid_argument);
    CHECK_THROWS_WITH_AS(family::validate(problem("gb200", 8, 1024)), doctest::Contains("the GPUs per node, 4"), invalid_argument);
    CHECK_THROWS_WITH_AS(family::validate(problem("h100_sxm", 8, 0)), doctest::Contains("bytes must be > 0"), invalid_argument);
    CHECK_THROWS_WITH_AS(family::validate(problem("h100_sxm", 8, 1023)), doctest::Contains("multiple of the element size 2"),
                         invalid_argument);
    CHECK_THROWS_WITH_AS(family::validate(problem("h100_sxm", 8, 4096, collective_impl::trtllm, collective_op::all_gather)),
                         doctest::Contains("nccl and torch only"), invalid_argument);
    CHECK_THROWS_WITH_AS((void)family::parse_collective_impl("mpi"), doctest::Contains("unknown implementation 'mpi'"), invalid_argument);
    CHECK_THROWS_WITH_AS((void)system::parse_topology("torus"), doctest::Contains("unknown topology 'torus'"), invalid_argument);
    const gpu::runtime_gpu l40s = gpu::find_gpu("l40s");
    CHECK_THROWS_WITH_AS((void)system::make_system(l40s.name, l40s.numbers, 8, system::topology::nvswitch),
                         doctest::Contains("has no NVLink"), invalid_argument);
    CHECK_THROWS_WITH_AS((void)system::builtin_system("tpu_v5"), doctest::Contains("unknown GPU 'tpu_v5'"), invalid_argument);
    CHECK_THROWS_AS((void)e2e::allreduce_latency_us("h100_sxm", 16, 1 << 20), invalid_argument);
    // Link numbers beyond any system (an infinite latency otherwise).
    const gpu::runtime_gpu h100 = gpu::find_gpu("h100_sxm");
    system::system_spec slow = system::make_system("x", h100.numbers, 8, system::topology::pcie);
    slow.pcie_gbps = 1e-300;
    CHECK_THROWS_WITH_AS((void)system::validate(slow), doctest::Contains("pcie_gbps must be in 0.1..1e5"), invalid_argument);
    slow = system::make_system("x", h100.numbers, 8, system::topology::pcie);
    slow.p2p_group_size = 2;
    slow.host_bridge_gbps = 1e-300;
    CHECK_THROWS_WITH_AS((void)system::validate(slow), doctest::Contains("host_bridge_gbps must be 0 (none) or in 0.1..1e6, got 1e-300"),
                         invalid_argument);
    // Values outside the enumerations (a cast integer) are refused, not read as a default size or level.
    auto odd = problem("h100_sxm", 8, 1024);
    odd.dtype = static_cast<collective_dtype>(9);
    CHECK_THROWS_WITH_AS(family::validate(odd), doctest::Contains("unknown dtype 9"), invalid_argument);
    odd = problem("h100_sxm", 8, 1024);
    odd.implementation = static_cast<collective_impl>(9);
    CHECK_THROWS_WITH_AS(family::validate(odd), doctest::Contains("unknown implementation 9"), invalid_argument);
    odd = problem("h100_sxm", 8, 1024);
    odd.op = static_cast<collective_op>(7);
    CHECK_THROWS_WITH_AS(family::validate(odd), doctest::Contains("unknown op 7"), invalid_argument);
    slow = system::make_system("x", h100.numbers, 8, system::topology::nvswitch);
    slow.nvlink_latency_us = 1e300;
    CHECK_THROWS_WITH_AS((void)system::validate(slow), doctest::Contains("link latencies must be in (0, 1000] us"), invalid_argument);
}

TEST_CASE("allreduce: one call gives the latency, one GPU needs no communication") {
    CHECK(e2e::allreduce_latency_us("h100_sxm", 1, 1 << 20) == 0.0);
    CHECK_THROWS_WITH_AS((void)e2e::allreduce_latency_us("h100_sxm", 1, -1), doctest::Contains("bytes must be > 0"), invalid_argument);
    // One GPU communicates nothing, but its message must still be whole elements.
    CHECK_THROWS_WITH_AS((void)e2e::allreduce_latency_us("h100_sxm", 1, 3, "sglang", collective_dtype::fp32),
                         doctest::Contains("multiple of the element size 4"), invalid_argument);
    CHECK_NOTHROW(family::validate(problem("h100_sxm", 1, 1024), true));
    CHECK_THROWS_WITH_AS(family::validate(problem("h100_sxm", 1, 1024, collective_impl::trtllm, collective_op::reduce_scatter), true),
                         doctest::Contains("nccl and torch only"), invalid_argument);
    CHECK_THROWS_WITH_AS(family::validate(problem("h100_sxm", 0, 1024), true), doctest::Contains("gpus must be >= 1, got 0"),
                         invalid_argument);
    CHECK_THROWS_AS((void)e2e::allreduce_latency_us("h900", 1, 1 << 20), invalid_argument);
    const double small = e2e::allreduce_latency_us("h100_sxm", 8, 16 << 10);
    const double large = e2e::allreduce_latency_us("h100_sxm", 8, 64 << 20);
    CHECK(small > family::estimate(problem("h100_sxm", 8, 16 << 10, collective_impl::sglang)).theoretical_us);
    CHECK(large > 10 * small);
    CHECK(std::isfinite(large));
}

TEST_CASE("allreduce: a system with no data is predicted from its spec alone (H20, 8 GPUs, Llama-3.1-70B TP8)") {
    // One decode step's all-reduce: 8192 hidden x 64 tokens x 2 bytes.
    const system::system_spec h20 = system::builtin_system("h20");
    CHECK(h20.gpus_per_node == 8);
    CHECK(h20.nvlink_gbps == doctest::Approx(450.0));
    const double us = e2e::allreduce_latency_us("h20", 8, 8192 * 64 * 2, "sglang");
    CHECK(us > family::estimate(problem("h20", 8, 8192 * 64 * 2, collective_impl::sglang)).theoretical_us);
    CHECK(us < 100.0);
    // A node built at run time from a GPU and a wiring.
    gpu::gpu_numbers g = gpu::find_gpu("h100_sxm").numbers;
    g.nvlink_gbps = 1800;
    const system::system_spec fast = system::make_system("my_gpu", g, 8, system::topology::nvswitch);
    CHECK(fast.nvlink_gbps == doctest::Approx(900.0));
    family::allreduce_problem p{fast, collective_op::all_reduce, 256 << 20, collective_dtype::bf16, 8, collective_impl::nccl};
    const double fast_us = e2e::predict_collective(p, g).latency_us;
    p.system = system::builtin_system("h100_sxm");
    CHECK(fast_us < e2e::predict_collective(p, gpu::find_gpu("h100_sxm").numbers).latency_us);
    // The least NVLink a GPU may have (1 GB/s both ways) still makes a node: 0.5 GB/s per direction.
    g.nvlink_gbps = 1;
    CHECK(system::make_system("slow_link", g, 8, system::topology::nvswitch).nvlink_gbps == doctest::Approx(0.5));
    // A hand-filled GPU spec is validated before it is used, and the error names the field.
    g.l2_gbps = std::numeric_limits<double>::infinity();
    CHECK_THROWS_WITH_AS((void)e2e::predict_collective(p, g), doctest::Contains("l2_gbps"), invalid_argument);
}

namespace {
/// A fixed efficiency and the framework level the predictor passed in.
struct level_recording_cost {
    std::size_t* level;
    [[nodiscard]] double efficiency(std::span<const double>, std::size_t framework_level) const {
        *level = framework_level;
        return 0.5;
    }
};
}  // namespace

TEST_CASE("allreduce: the framework a prediction names is the problem's implementation") {
    const gpu::runtime_gpu h100 = gpu::find_gpu("h100_sxm");
    std::size_t level = 99;
    const runtime_predictor<family::allreduce, level_recording_cost> pred(h100.numbers, level_recording_cost{&level});
    const family::allreduce_problem p = problem("h100_sxm", 8, 1 << 20, collective_impl::sglang);
    CHECK_NOTHROW((void)pred.predict(p, "sglang"));
    CHECK(level == family::allreduce::framework_level("sglang"));
    CHECK_NOTHROW((void)pred.predict(p, "vllm"));  // vLLM runs SGLang's custom all-reduce: the same level
    // Another implementation's level with this one's kernels would be a silent mix; the default level is trtllm's.
    CHECK_THROWS_WITH_AS((void)pred.predict(p, "trtllm"),
                         doctest::Contains("framework 'trtllm' is not the problem's implementation 'sglang'"), invalid_argument);
    CHECK_THROWS_WITH_AS((void)pred.predict(p), doctest::Contains("is not the problem's implementation"), invalid_argument);
}
