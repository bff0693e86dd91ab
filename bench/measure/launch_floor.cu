// SPDX-License-Identifier: Apache-2.0
// Time per kernel of back-to-back launches of nearly empty kernels (each thread stores one value), from a CUDA
// graph and from a stream, per grid size: the floor that `work::back_to_back_launch_us` bounds every kernel by.
//
//   nvcc -O3 -std=c++17 -o launch_floor bench/measure/launch_floor.cu && ./launch_floor
//
// Prints CSV: grid CTAs (256 threads each), µs per kernel replayed from a graph of 200 launches, µs per kernel
// launched from a stream (the mean of 2000 launches after a warm-up).
#include <cstdio>
#include <cstdlib>

#include <cuda_runtime.h>

#include "cuda_check.cuh"

__global__ void store_one(int* out) { out[blockIdx.x * blockDim.x + threadIdx.x] = int(threadIdx.x); }

int main() {
    int sms = 0;
    CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
    const int grids[] = {1, sms, 8 * sms, 64 * sms};
    int* buf = nullptr;
    CHECK(cudaMalloc(&buf, sizeof(int) * 256 * 64 * sms));
    cudaStream_t s;
    CHECK(cudaStreamCreate(&s));
    cudaEvent_t t0, t1;
    CHECK(cudaEventCreate(&t0));
    CHECK(cudaEventCreate(&t1));
    std::printf("ctas,graph_us_per_kernel,stream_us_per_kernel\n");
    for (int grid : grids) {
        constexpr int in_graph = 200, replays = 20, stream_launches = 2000;
        cudaGraph_t g;
        cudaGraphExec_t ge;
        CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
        for (int i = 0; i < in_graph; ++i) store_one<<<grid, 256, 0, s>>>(buf);
        CHECK(cudaStreamEndCapture(s, &g));
        CHECK(cudaGraphInstantiate(&ge, g, 0));
        CHECK(cudaGraphLaunch(ge, s));
        CHECK(cudaStreamSynchronize(s));
        CHECK(cudaEventRecord(t0, s));
        for (int r = 0; r < replays; ++r) CHECK(cudaGraphLaunch(ge, s));
        CHECK(cudaEventRecord(t1, s));
        CHECK(cudaEventSynchronize(t1));
        float graph_ms = 0;
        CHECK(cudaEventElapsedTime(&graph_ms, t0, t1));

        for (int i = 0; i < 100; ++i) store_one<<<grid, 256, 0, s>>>(buf);
        CHECK(cudaStreamSynchronize(s));
        CHECK(cudaEventRecord(t0, s));
        for (int i = 0; i < stream_launches; ++i) store_one<<<grid, 256, 0, s>>>(buf);
        CHECK(cudaEventRecord(t1, s));
        CHECK(cudaEventSynchronize(t1));
        float stream_ms = 0;
        CHECK(cudaEventElapsedTime(&stream_ms, t0, t1));
        std::printf("%d,%.3f,%.3f\n", grid, graph_ms * 1e3 / (in_graph * replays), stream_ms * 1e3 / stream_launches);
        CHECK(cudaGraphExecDestroy(ge));
        CHECK(cudaGraphDestroy(g));
    }
    return 0;
}
