// SPDX-License-Identifier: Apache-2.0
// The built-in GPU catalogue (hw/) and the run-time registry (gpu/registry.hpp).
#include <doctest/doctest.h>

#include <algorithm>
#include <cctype>
#include <cstddef>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include "synperf/gpu/registry.hpp"
#include "synperf/gpu/runtime_gpu.hpp"
#include "synperf/hw/catalogue.hpp"

namespace {

using synperf::gpu::tensor_dtype;

// The same name with its separators and case changed; the registry must not care.
std::string mangle(std::string_view s) {
    std::string out(s);
    for (char& c : out) {
        if (c == '_') c = '-';
        else if (c == ' ') c = '_';
        else c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    }
    return out;
}

}  // namespace

TEST_CASE_TEMPLATE_DEFINE("gpu policy", G, gpu_policy_suite) {
    static_assert(synperf::gpu::GpuSpec<G>);
    const auto& n = G::numbers;
    const auto& p = G::published;

    SUBCASE("derived dense tensor peaks are within 2 % of the published ones") {
        REQUIRE(p.bf16_tflops > 0);
        CHECK(n.tensor_tflops(tensor_dtype::bf16) == doctest::Approx(p.bf16_tflops).epsilon(0.02));
        // A type has a rate exactly where a figure is published (no FP8 on Ampere, FP4 only on Blackwell).
        CHECK((n.tensor_fp8_flop_per_clk > 0) == (p.fp8_tflops > 0));
        CHECK((n.tensor_fp4_flop_per_clk > 0) == (p.fp4_tflops > 0));
        if (p.fp8_tflops > 0) CHECK(n.tensor_tflops(tensor_dtype::fp8) == doctest::Approx(p.fp8_tflops).epsilon(0.02));
        if (p.fp4_tflops > 0) CHECK(n.tensor_tflops(tensor_dtype::fp4) == doctest::Approx(p.fp4_tflops).epsilon(0.02));
        CHECK((n.tensor_fp8_flop_per_clk == 0) == (n.cc_major == 8 && n.cc_minor < 9));
        CHECK((n.tensor_fp4_flop_per_clk > 0) == (n.cc_major >= 10));
    }
    SUBCASE("derived FP32 at the boost clock is within 2 % of the published figure") {
        if (p.fp32_tflops > 0) CHECK(n.fp32_tflops() == doctest::Approx(p.fp32_tflops).epsilon(0.02));
    }
    SUBCASE("per-architecture rules") {
        // The SM's FP32 lanes; a part whose power limit caps its published FP32 peak below its clock's (B300)
        // states its sustained rate, a little lower.
        const double fp32_lanes = n.sm_version() == 80 ? 64 : 128;
        CHECK(n.fma_fp32_per_clk <= fp32_lanes);
        CHECK(n.fma_fp32_per_clk >= 0.9 * fp32_lanes);
        CHECK(n.xu_per_clk == (n.sm_version() == 103 ? 32 : 16));
        // Warp-level mma.sync: at most 2730 BF16 flop per clock per SM on sm_90 (measured on H200) and sm_100/103
        // (H20's capped tensor rate is below it); elsewhere it is the dense rate.
        using synperf::gpu::mma_issue;
        using synperf::gpu::tensor_dtype;
        const double warp_bf16 = n.tensor_flop_per_clk(tensor_dtype::bf16, mma_issue::warp_sync);
        if (n.cc_major == 9 || n.cc_major == 10)
            CHECK(warp_bf16 == doctest::Approx(std::min(8192.0 / 3.0, n.tensor_bf16_flop_per_clk)));
        else
            CHECK(warp_bf16 == n.tensor_bf16_flop_per_clk);
        CHECK(n.tensor_flop_per_clk(tensor_dtype::bf16, mma_issue::native) == n.tensor_bf16_flop_per_clk);
        // e4m3 mma.sync: 6500 measured on H200, below FP8 wgmma's 8192.
        if (n.tensor_fp8_flop_per_clk > 0 && (n.cc_major == 9 || n.cc_major == 10))
            CHECK(n.tensor_flop_per_clk(tensor_dtype::fp8, mma_issue::warp_sync) == std::min(6500.0, n.tensor_fp8_flop_per_clk));
        CHECK(n.smem_bytes_per_clk == 128);
        CHECK(n.tensor_clock_mhz <= n.boost_clock_mhz);
        CHECK(n.tensor_fp8_flop_per_clk <= 2 * n.tensor_bf16_flop_per_clk + 1e-9);
        CHECK(n.l2_gbps > n.dram_gbps);                   // L2 is faster than DRAM on every part
        CHECK(n.l2_bytes < n.memory_bytes);
        CHECK(n.max_threads_per_cta == 1024);
        CHECK(n.regs_per_sm == 65536);
        CHECK(n.max_regs_per_thread == 255);
        const bool big_sm = n.cc_major == 8 ? n.cc_minor == 0 : n.cc_major < 12;  // 8.0, 9.x, 10.x
        CHECK(n.max_warps_per_sm == (big_sm ? 64 : 48));
        CHECK(n.smem_per_sm_bytes == (n.cc_major >= 9 && n.cc_major <= 10 ? 228 : big_sm ? 164 : 100) * 1024);
        CHECK(n.smem_per_cta_bytes == n.smem_per_sm_bytes - 1024);
    }
    SUBCASE("identity: id, display name and aliases") {
        CHECK(!G::name.empty());
        CHECK(!G::display_name.empty());
        for (std::string_view a : G::aliases) CHECK(!a.empty());
        // The CUDA device string is itself an alias.
        CHECK(std::find(G::aliases.begin(), G::aliases.end(), G::display_name) != G::aliases.end());
    }
    SUBCASE("find_gpu finds it by id, display name, every alias, and mangled spellings") {
        CHECK(synperf::gpu::find_gpu(G::name).name == G::name);
        CHECK(synperf::gpu::find_gpu(mangle(G::name)).name == G::name);
        CHECK(synperf::gpu::find_gpu(G::display_name).name == G::name);
        for (std::string_view a : G::aliases) {
            CAPTURE(a);
            CHECK(synperf::gpu::find_gpu(a).name == G::name);
            CHECK(synperf::gpu::find_gpu(mangle(a)).name == G::name);
        }
        const synperf::gpu::runtime_gpu g = synperf::gpu::find_gpu(G::name);
        const synperf::gpu::runtime_gpu r = synperf::gpu::to_runtime<G>();
        CHECK(g.display_name == r.display_name);
        CHECK(g.numbers.sm_count == n.sm_count);
        CHECK(g.numbers.dram_gbps == n.dram_gbps);
        CHECK(g.numbers.l2_gbps == n.l2_gbps);
    }
    SUBCASE("visit_gpu hands back the matching policy type") {
        const std::string_view visited =
            synperf::gpu::visit_gpu(mangle(G::name), [](auto t) { return decltype(t)::type::name; });
        CHECK(visited == G::name);
    }
}
TEST_CASE_TEMPLATE_APPLY(gpu_policy_suite, synperf::hw::all_gpus);

TEST_CASE("gpu catalogue: 22 GPUs, unique ids, no alias shared between GPUs") {
    constexpr std::size_t count = std::tuple_size_v<synperf::hw::all_gpus>;
    static_assert(count == 22);
    static_assert(decltype(synperf::hana::length(synperf::hw::builtin_gpus))::value == count);

    const std::vector<std::string_view> ids = synperf::gpu::known_gpu_names();
    REQUIRE(ids.size() == count);
    CHECK(ids.front() == "a100_sxm");
    CHECK(ids.back() == "rtx_pro_6000_server");

    // known_gpu_names and all_gpus follow the order of builtin_gpus.
    std::vector<std::string_view> hana_order;
    synperf::hana::for_each(synperf::hw::builtin_gpus, [&](auto t) { hana_order.push_back(decltype(t)::type::name); });
    CHECK(hana_order == ids);
    const auto all = synperf::gpu::all_gpus();
    REQUIRE(all.size() == count);
    for (std::size_t i = 0; i < count; ++i) CHECK(all[i].name == ids[i]);

    // Every name a GPU answers to must resolve to that GPU and no other.
    for (const auto& e : synperf::gpu::detail::catalogue) {
        std::vector<std::string_view> names{e.name, e.display_name};
        names.insert(names.end(), e.aliases.begin(), e.aliases.end());
        for (const auto& other : synperf::gpu::detail::catalogue) {
            if (other.name == e.name) continue;
            for (std::string_view mine : names) {
                CAPTURE(mine);
                CHECK_FALSE(synperf::gpu::detail::same_gpu_name(mine, other.name));
                CHECK_FALSE(synperf::gpu::detail::same_gpu_name(mine, other.display_name));
                for (std::string_view theirs : other.aliases) CHECK_FALSE(synperf::gpu::detail::same_gpu_name(mine, theirs));
            }
        }
    }
}

TEST_CASE("gpu catalogue: only two parts lack a checkable FP32 figure") {
    // h20 (the quoted 44 TFLOPS does not fit its 78 SMs) and rtx_pro_6000_server (only the
    // workstation card's figure is published); every other part is checked.
    std::vector<std::string_view> unchecked;
    synperf::hana::for_each(synperf::hw::builtin_gpus, [&](auto t) {
        using G = typename decltype(t)::type;
        if (G::published.fp32_tflops == 0) unchecked.push_back(G::name);
    });
    CHECK(unchecked == std::vector<std::string_view>{"h20", "rtx_pro_6000_server"});
}

TEST_CASE("find_gpu: unknown names list every known id") {
    CHECK_THROWS_WITH_AS((void)synperf::gpu::find_gpu("H2000"),
                         doctest::Contains("synperf: unknown GPU 'H2000'; known: a100_sxm, a100_pcie_40gb, a40, a10"),
                         synperf::invalid_argument);
    try {
        (void)synperf::gpu::find_gpu("");
        FAIL("expected an exception");
    } catch (const synperf::invalid_argument& e) {
        const std::string what = e.what();
        for (std::string_view id : synperf::gpu::known_gpu_names()) CHECK(what.find(std::string(id)) != std::string::npos);
    }
    CHECK_THROWS_WITH_AS(synperf::gpu::visit_gpu("tpu_v5", [](auto) {}), doctest::Contains("unknown GPU 'tpu_v5'"),
                         synperf::invalid_argument);
    // Matching is exact up to case and separators: no prefixes, no substrings.
    CHECK(synperf::gpu::find_gpu("h100").name == "h100_sxm");
    CHECK_THROWS_AS((void)synperf::gpu::find_gpu("h100_sx"), synperf::invalid_argument);
    CHECK_THROWS_AS((void)synperf::gpu::find_gpu("NVIDIA H100 80GB"), synperf::invalid_argument);
}

TEST_CASE("find_gpu: every device string and folder name in the data resolves") {
    struct expect {
        std::string_view name;
        std::string_view id;
    };
    // device_name columns of data/inventory.csv and data/aiconfigurator_sglang/inventory.csv,
    // NeuSight device names, PipeWeave file and "name" fields, and data folder names.
    const expect cases[] = {
        {"NVIDIA A100-SXM4-80GB", "a100_sxm"},
        {"NVIDIA B200", "b200_sxm"},
        {"NVIDIA B300 SXM6 AC", "b300_sxm"},
        {"NVIDIA GB200", "gb200"},
        {"NVIDIA GB300", "gb300"},
        {"NVIDIA H100 80GB HBM3", "h100_sxm"},
        {"NVIDIA H200", "h200_sxm"},
        {"NVIDIA L40S", "l40s"},
        {"NVIDIA RTX PRO 6000 Blackwell Server Edition", "rtx_pro_6000_server"},
        {"NVIDIA GeForce RTX 5090", "rtx_5090"},
        {"NVIDIA A100-PCIE-40GB", "a100_pcie_40gb"},
        {"NVIDIA_A100-PCIE-40GB", "a100_pcie_40gb"},
        {"NVIDIA_H100_80GB_HBM3", "h100_sxm"},
        {"NVIDIA L4", "l4"},
        {"NVIDIA_L4", "l4"},
        // PipeWeave hardware/*.json file names and "name" fields
        {"A100", "a100_sxm"},
        {"A40", "a40"},
        {"NVIDIA A40", "a40"},
        {"H100", "h100_sxm"},
        {"NVIDIA H100", "h100_sxm"},
        {"H20", "h20"},
        {"NVIDIA H20", "h20"},
        {"H200", "h200_sxm"},
        {"H800", "h800"},
        {"NVIDIA H800", "h800"},
        {"L20", "l20"},
        {"NVIDIA L20", "l20"},
        {"L40", "l40"},
        {"NVIDIA L40", "l40"},
        {"RTX_6000_Ada", "rtx_6000_ada"},
        {"NVIDIA RTX 6000 Ada Generation", "rtx_6000_ada"},
        {"RTX_A6000", "rtx_a6000"},
        {"NVIDIA RTX A6000", "rtx_a6000"},
        {"RTX_PRO_6000_S", "rtx_pro_6000_server"},
        // aiconfigurator data and systems folders, vidur folders
        {"a100_sxm", "a100_sxm"},
        {"b200_sxm", "b200_sxm"},
        {"b300_sxm", "b300_sxm"},
        {"h100_sxm", "h100_sxm"},
        {"h200_sxm", "h200_sxm"},
        {"h100_pcie", "h100_pcie"},
        {"l4", "l4"},
        {"l40s", "l40s"},
        {"rtx_5090", "rtx_5090"},
        {"rtx_pro_6000_server", "rtx_pro_6000_server"},
        {"a100", "a100_sxm"},
        {"a40", "a40"},
        {"h100", "h100_sxm"},
        {"a100_dgx", "a100_sxm"},
        {"h100_dgx", "h100_sxm"},
        {"a40_pairwise_nvlink", "a40"},
    };
    for (const auto& c : cases) {
        CAPTURE(c.name);
        CHECK(synperf::gpu::find_gpu(c.name).name == c.id);
    }
    // Memory variants of catalogue parts are not silently mapped onto them (their DRAM differs):
    // H20-3e (4.8 TB/s, see examples/specs/h20_3e.spec), the 80 GB A100 PCIe and the 40 GB A100 SXM.
    // Older NeuSight parts (P4, P100, T4, V100) are not in the catalogue.
    for (std::string_view absent : {"NVIDIA H20-3e", "h20_3e", "NVIDIA A100 80GB PCIe", "a100_pcie",
                                     "NVIDIA A100-SXM4-40GB", "Tesla T4", "Tesla V100-PCIE-32GB"}) {
        CAPTURE(absent);
        CHECK_THROWS_AS((void)synperf::gpu::find_gpu(absent), synperf::invalid_argument);
    }
}

TEST_CASE("visit_gpu: results by value and by reference, and void") {
    const int sms = synperf::gpu::visit_gpu("NVIDIA B300 SXM6 AC", [](auto t) { return decltype(t)::type::numbers.sm_count; });
    CHECK(sms == 160);
    const synperf::gpu::gpu_numbers& ref =
        synperf::gpu::visit_gpu("h100_sxm", [](auto t) -> const synperf::gpu::gpu_numbers& { return decltype(t)::type::numbers; });
    CHECK(&ref == &synperf::hw::h100_sxm::numbers);
    int calls = 0;
    synperf::gpu::visit_gpu("l40s", [&](auto t) {
        ++calls;
        CHECK(decltype(t)::type::name == "l40s");
    });
    CHECK(calls == 1);
}
