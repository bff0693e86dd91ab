// SPDX-License-Identifier: Apache-2.0
// expect: scheduler S cannot place family F's main kernel
// cuBLAS GEMM on Hopper is a persistent kernel: composing it with the hardware dispatcher must not compile.
#include <synperf/cost/roofline_cost.hpp>
#include <synperf/family/gemm.hpp>
#include <synperf/hw/h100_sxm.hpp>
#include <synperf/predictor/predictor.hpp>

int main() {
    const synperf::predictor<synperf::hw::h100_sxm, synperf::family::gemm, synperf::scheduler::hardware_round_robin,
                             synperf::cost::roofline_cost>
        p{};
    return p.predict({1, 1, 1}).latency_us > 0 ? 0 : 1;
}
