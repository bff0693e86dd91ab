// SPDX-License-Identifier: Apache-2.0
// expect: uses family F's shipped weights, and none is visible here
// A default-constructed predictor takes its family's shipped weights; without the synperf::models headers it must
// not compile (never a run-time "no network loaded").
#include <synperf/family/gemm.hpp>
#include <synperf/hw/h100_sxm.hpp>
#include <synperf/predictor/predictor.hpp>

int main() {
    const synperf::predictor<synperf::hw::h100_sxm, synperf::family::gemm> p;
    return p.predict({64, 64, 64}).latency_us > 0 ? 0 : 1;
}
