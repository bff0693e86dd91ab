// SPDX-License-Identifier: Apache-2.0
// Sustained tensor-core rate of the warp-level mma.sync instruction, per SM and clock: m16n8k16 with BF16 in (what
// FlashAttention-2, FlashInfer's FA2 path and other Ampere-style kernels issue) and m16n8k32 with e4m3 in (what
// Triton emits for a small FP8 dot), FP32 accumulate. On Hopper and Blackwell the full dense rate needs wgmma /
// tcgen05; this measures what mma.sync reaches there.
//
//   nvcc -O3 -std=c++17 -arch=sm_90 -o mma_sync_rate bench/measure/mma_sync_rate.cu && ./mma_sync_rate
// (-arch: the GPU's own; the e4m3 form needs sm_89 or newer)
//
// Prints one CSV line per type and warps-per-SM setting: flops per SM per clock, from clock64() cycles of each CTA.
#include <cstdio>
#include <cstdlib>
#include <vector>

#include <cuda_runtime.h>

#include "cuda_check.cuh"

constexpr int chains = 8;  // independent accumulators per warp hide the instruction's latency

/// One m16n8k16 BF16 (`Fp8` false) or m16n8k32 e4m3 (`Fp8` true) mma.sync, FP32 accumulate.
template <bool Fp8>
__device__ __forceinline__ void mma(float (&acc)[4], const unsigned (&a)[4], const unsigned (&b)[2]) {
    if constexpr (Fp8)
        asm volatile(
            "mma.sync.aligned.m16n8k32.row.col.f32.e4m3.e4m3.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};\n"
            : "+f"(acc[0]), "+f"(acc[1]), "+f"(acc[2]), "+f"(acc[3])
            : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
    else
        asm volatile(
            "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};\n"
            : "+f"(acc[0]), "+f"(acc[1]), "+f"(acc[2]), "+f"(acc[3])
            : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
}

template <bool Fp8>
__global__ void mma_loop(int iterations, float* sink, long long* cycles) {
    unsigned a[4], b[2];
    float acc[chains][4];
    for (int i = 0; i < 4; ++i) a[i] = 0x3f803f80u + threadIdx.x + i;  // bf16 pairs near 1.0 (e4m3: small values)
    for (int i = 0; i < 2; ++i) b[i] = 0x3f803f80u + threadIdx.x * 3 + i;
    for (int c = 0; c < chains; ++c)
        for (int i = 0; i < 4; ++i) acc[c][i] = 0.f;
    __syncthreads();
    const long long start = clock64();
    for (int it = 0; it < iterations; ++it) {
#pragma unroll
        for (int c = 0; c < chains; ++c) mma<Fp8>(acc[c], a, b);
    }
    __syncthreads();
    const long long stop = clock64();
    float total = 0.f;
    for (int c = 0; c < chains; ++c) total += acc[c][0] + acc[c][1] + acc[c][2] + acc[c][3];
    if (total == 12345.f) sink[0] = total;  // keeps the loop alive
    if (threadIdx.x == 0) cycles[blockIdx.x] = stop - start;
}

int main() {
    int device = 0, sms = 0, clock_khz = 0;
    CHECK(cudaGetDevice(&device));
    CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
    CHECK(cudaDeviceGetAttribute(&clock_khz, cudaDevAttrClockRate, device));
    cudaDeviceProp prop{};
    CHECK(cudaGetDeviceProperties(&prop, device));
    float* sink = nullptr;
    long long* cycles = nullptr;
    CHECK(cudaMalloc(&sink, sizeof(float)));
    CHECK(cudaMalloc(&cycles, sizeof(long long) * sms * 4));
    std::printf("device,sms,type,warps_per_sm,flops_per_sm_per_clock,tflops_at_measured_time,mean_cta_cycles\n");
    const int iterations = 20000;
    for (bool fp8 : {false, true}) {
        for (int warps : {4, 8, 16, 32}) {
            // One CTA per SM, `warps` warps in it: every SM runs the same instruction stream.
            const int threads = 32 * warps;
            const auto launch = [&](int iters) {
                if (fp8) mma_loop<true><<<sms, threads>>>(iters, sink, cycles);
                else mma_loop<false><<<sms, threads>>>(iters, sink, cycles);
            };
            launch(100);  // warm-up, clocks up
            CHECK(cudaDeviceSynchronize());
            cudaEvent_t t0, t1;
            CHECK(cudaEventCreate(&t0));
            CHECK(cudaEventCreate(&t1));
            CHECK(cudaEventRecord(t0));
            launch(iterations);
            CHECK(cudaEventRecord(t1));
            CHECK(cudaEventSynchronize(t1));
            float ms = 0.f;
            CHECK(cudaEventElapsedTime(&ms, t0, t1));
            std::vector<long long> host(sms);
            CHECK(cudaMemcpy(host.data(), cycles, sizeof(long long) * sms, cudaMemcpyDeviceToHost));
            double mean_cycles = 0;
            for (long long c : host) mean_cycles += double(c) / sms;
            const double k = fp8 ? 32.0 : 16.0;
            const double flops_per_cta = double(iterations) * chains * warps * (2.0 * 16 * 8 * k);
            std::printf("%s,%d,%s,%d,%.1f,%.1f,%.0f\n", prop.name, sms, fp8 ? "e4m3" : "bf16", warps,
                        flops_per_cta / mean_cycles, flops_per_cta * sms / (ms * 1e-3) / 1e12, mean_cycles);
        }
    }
    return 0;
}
