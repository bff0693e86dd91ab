// SPDX-License-Identifier: Apache-2.0
// expect: scheduler S cannot place family F's main kernel
// cuBLAS GEMM on Ampere launches one CTA per tile: the persistent min-heap scheduler is the wrong model.
#include <synperf/cost/roofline_cost.hpp>
#include <synperf/family/gemm.hpp>
#include <synperf/hw/a100_sxm.hpp>
#include <synperf/predictor/predictor.hpp>

int main() {
    const synperf::predictor<synperf::hw::a100_sxm, synperf::family::gemm, synperf::scheduler::min_heap_persistent,
                             synperf::cost::roofline_cost>
        p{};
    return p.predict({1, 1, 1}).latency_us > 0 ? 0 : 1;
}
