// SPDX-License-Identifier: Apache-2.0
// Compose predictors at compile time and at run time, and compare one GEMM on three GPUs.
#include <cstdio>

#include <synperf.hpp>
#include <synperf/models.hpp>  // the shipped weights (synperf::models), generated at build time

int main() {
    using namespace synperf;
    const family::gemm_problem shape{4096, 4096, 4096};

    // Everything fixed at compile time: GPU policy, family, scheduler (defaulted) and the family's shipped weights.
    const predictor<hw::h100_sxm, family::gemm> h100;
    const prediction p = h100.predict(shape, "trtllm");
    std::printf("h100_sxm            %8.1f us  (efficiency %.2f, %s-bound, %lld tiles)\n", p.latency_us, p.efficiency,
                std::string(p.bottleneck).c_str(), static_cast<long long>(p.kernels.front().tasks));
    // How far from its ceiling: the bound's terms (the largest is the bound), and what the tiling's waves add to it.
    const kernel_report& main_kernel = p.kernels.front();
    std::printf("  bound: tensor %.1f us, DRAM %.1f us, L2 %.1f us; busiest SM %.1f us\n", main_kernel.bound.tensor_us,
                main_kernel.bound.dram_us, main_kernel.bound.l2_us, main_kernel.busiest_sm_us);

    // GPUs picked by name at run time: one instantiation of the family serves them all.
    for (const char* name : {"NVIDIA A100-SXM4-80GB", "rtx_pro_6000_server"}) {
        const gpu::runtime_gpu g = gpu::find_gpu(name);
        const runtime_predictor<family::gemm> rt(g.numbers);
        const prediction r = rt.predict(shape, "trtllm");
        std::printf("%-19s %8.1f us  (efficiency %.2f, %s-bound)\n", g.name.c_str(), r.latency_us, r.efficiency,
                    std::string(r.bottleneck).c_str());
    }
    return 0;
}
