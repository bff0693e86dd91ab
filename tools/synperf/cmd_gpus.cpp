// SPDX-License-Identifier: Apache-2.0
// `synperf gpus`: the catalogue with its key numbers.
#include <fmt/core.h>
#include <nlohmann/json.hpp>

#include "synperf/common.hpp"

namespace synperf::cli {

void add_gpus_command(CLI::App& app) {
    auto* cmd = app.add_subcommand("gpus", "list the GPU catalogue with key specs");
    static bool json = false;
    cmd->add_flag("--json", json, "print JSON");
    cmd->callback([] {
        const auto all = gpu::all_gpus();
        if (json) {
            nlohmann::json out = nlohmann::json::array();
            for (const auto& g : all) {
                const auto& n = g.numbers;
                out.push_back({{"id", g.name}, {"name", g.display_name}, {"cc", fmt::format("{}.{}", n.cc_major, n.cc_minor)},
                               {"sms", n.sm_count}, {"tensor_clock_mhz", n.tensor_clock_mhz}, {"boost_clock_mhz", n.boost_clock_mhz},
                               {"bf16_tflops", n.tensor_tflops(gpu::tensor_dtype::bf16)},
                               {"fp8_tflops", n.tensor_tflops(gpu::tensor_dtype::fp8)},
                               {"fp32_tflops", n.fp32_tflops()}, {"dram_gbps", n.dram_gbps}, {"l2_mb", n.l2_bytes / 1048576.0},
                               {"l2_gbps", n.l2_gbps}, {"memory_gb", n.memory_bytes / 1e9}});
            }
            fmt::print("{}\n", out.dump(2));
            return;
        }
        fmt::print("{:<21} {:<48} {:>4} {:>4} {:>6} {:>7} {:>7} {:>7} {:>6} {:>6} {:>6}\n", "id", "device", "cc", "SMs",
                   "MHz", "bf16 TF", "fp8 TF", "DRAM", "L2 MB", "L2 GB/s", "mem GB");
        for (const auto& g : all) {
            const auto& n = g.numbers;
            fmt::print("{:<21} {:<48} {:>4} {:>4} {:>6.0f} {:>7.1f} {:>7.1f} {:>7.0f} {:>6.0f} {:>7.0f} {:>6.0f}\n", g.name,
                       g.display_name, fmt::format("{}.{}", n.cc_major, n.cc_minor), n.sm_count, n.tensor_clock_mhz,
                       n.tensor_tflops(gpu::tensor_dtype::bf16), n.tensor_tflops(gpu::tensor_dtype::fp8), n.dram_gbps,
                       n.l2_bytes / 1048576.0, n.l2_gbps, n.memory_bytes / 1e9);
        }
    });
}

}  // namespace synperf::cli
