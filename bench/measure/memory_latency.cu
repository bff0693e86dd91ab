// SPDX-License-Identifier: Apache-2.0
// Latency of one dependent global load, by footprint: a single thread chases pointers through a random cyclic
// permutation of 128-byte lines, loading through L2 only (__ldcg skips L1). Footprints well inside L2 give the L2
// hit latency, footprints far beyond it the DRAM latency: the two round trips the memory-bound families' floors
// count (`features::nominal_l2_hit_cycles`, `features::nominal_memory_latency_cycles`).
//
//   nvcc -O3 -std=c++17 -arch=sm_90 -o memory_latency bench/measure/memory_latency.cu && ./memory_latency
//
// Prints CSV: footprint bytes, SM cycles per load (clock64), ns per load.
#include <algorithm>
#include <cstdio>
#include <numeric>
#include <random>
#include <vector>

#include <cuda_runtime.h>

#include "cuda_check.cuh"

namespace {

constexpr int line_words = 128 / sizeof(unsigned);  // one pointer per 128-byte line

__global__ void chase(const unsigned* next, long long loads, unsigned* sink, long long* cycles) {
    unsigned i = 0;
    for (long long n = 0; n < 1024; ++n) i = __ldcg(next + i);  // warm the TLB and the lines
    const long long start = clock64();
    for (long long n = 0; n < loads; ++n) i = __ldcg(next + i);
    const long long stop = clock64();
    *sink = i;
    *cycles = stop - start;
}

}  // namespace

int main() {
    int clock_khz = 0;
    CHECK(cudaDeviceGetAttribute(&clock_khz, cudaDevAttrClockRate, 0));
    std::printf("footprint_bytes,cycles_per_load,ns_per_load\n");
    const long long loads = 200000;
    for (long long bytes : {1LL << 20, 4LL << 20, 16LL << 20, 32LL << 20, 256LL << 20, 1LL << 30, 4LL << 30}) {
        const long long lines = bytes / 128;
        std::vector<unsigned> order(lines);
        std::iota(order.begin(), order.end(), 0u);
        std::shuffle(order.begin() + 1, order.end(), std::mt19937_64(42));
        std::vector<unsigned> next(bytes / sizeof(unsigned), 0u);
        for (long long k = 0; k < lines; ++k)
            next[std::size_t(order[k]) * line_words] = order[(k + 1) % lines] * line_words;
        unsigned* d_next = nullptr;
        unsigned* sink = nullptr;
        long long* d_cycles = nullptr;
        CHECK(cudaMalloc(&d_next, bytes));
        CHECK(cudaMalloc(&sink, sizeof(unsigned)));
        CHECK(cudaMalloc(&d_cycles, sizeof(long long)));
        CHECK(cudaMemcpy(d_next, next.data(), bytes, cudaMemcpyHostToDevice));
        cudaEvent_t t0, t1;
        CHECK(cudaEventCreate(&t0));
        CHECK(cudaEventCreate(&t1));
        CHECK(cudaEventRecord(t0));
        chase<<<1, 1>>>(d_next, loads, sink, d_cycles);
        CHECK(cudaEventRecord(t1));
        CHECK(cudaGetLastError());
        CHECK(cudaEventSynchronize(t1));
        float ms = 0;
        CHECK(cudaEventElapsedTime(&ms, t0, t1));
        long long cycles = 0;
        CHECK(cudaMemcpy(&cycles, d_cycles, sizeof cycles, cudaMemcpyDeviceToHost));
        // The event time includes the warm-up loads and the launch; the cycle count does not.
        std::printf("%lld,%.1f,%.1f\n", bytes, double(cycles) / loads, double(cycles) / loads / (clock_khz * 1e-6));
        CHECK(cudaFree(d_next));
        CHECK(cudaFree(sink));
        CHECK(cudaFree(d_cycles));
    }
    return 0;
}
