// SPDX-License-Identifier: Apache-2.0
// The one-CTA-per-token kernels Vidur profiled in sarathi-serve (vLLM before vectorization), written from their
// launch rules in docs/families/rmsnorm.md and silu_mul.md: RMSNorm and SiLU&Mul over fp16, one CTA per token,
// min(row, 1024) threads, one element per access. Built as a shared library that vllm_rowwise.py calls through
// ctypes, so that torch.profiler times them as Vidur's profiler did.
//
//   nvcc -O3 -std=c++17 -arch=sm_90 -shared -Xcompiler -fPIC -o libvllm_rowwise.so bench/measure/vllm_rowwise.cu
#include <cuda_fp16.h>
#include <cuda_runtime.h>

namespace {

// Sum of one float per thread over the CTA: warp shuffles, then the warps' partial sums through shared memory.
__device__ float block_sum(float v) {
    __shared__ float partial[32];
    for (int offset = 16; offset > 0; offset /= 2) v += __shfl_xor_sync(0xffffffffu, v, offset);
    const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    if (lane == 0) partial[warp] = v;
    __syncthreads();
    const int warps = (blockDim.x + 31) / 32;
    v = threadIdx.x < warps ? partial[threadIdx.x] : 0.0f;
    if (warp == 0)
        for (int offset = 16; offset > 0; offset /= 2) v += __shfl_xor_sync(0xffffffffu, v, offset);
    return v;
}

// out = x * rsqrt(mean(x^2) + eps) * w, row by row: a pass summing x^2, the reduction, a pass writing out.
__global__ void rms_norm_scalar(__half* out, const __half* x, const __half* w, int hidden, float eps) {
    __shared__ float inv_rms;
    const __half* row = x + static_cast<long long>(blockIdx.x) * hidden;
    float squares = 0.0f;
    for (int i = threadIdx.x; i < hidden; i += blockDim.x) {
        const float v = __half2float(row[i]);
        squares += v * v;
    }
    squares = block_sum(squares);
    if (threadIdx.x == 0) inv_rms = rsqrtf(squares / hidden + eps);
    __syncthreads();
    __half* dst = out + static_cast<long long>(blockIdx.x) * hidden;
    for (int i = threadIdx.x; i < hidden; i += blockDim.x)
        dst[i] = __hmul(__float2half(__half2float(row[i]) * inv_rms), w[i]);
}

// out[t, i] = silu(in[t, i]) * in[t, d + i], silu(x) = x / (1 + exp(-x)) in fp32.
__global__ void silu_and_mul_scalar(__half* out, const __half* in, int d) {
    const __half* row = in + static_cast<long long>(blockIdx.x) * 2 * d;
    __half* dst = out + static_cast<long long>(blockIdx.x) * d;
    for (int i = threadIdx.x; i < d; i += blockDim.x) {
        const float a = __half2float(row[i]);
        const float b = __half2float(row[d + i]);
        dst[i] = __float2half(a / (1.0f + __expf(-a)) * b);
    }
}

int threads_for(int row) { return row < 1024 ? row : 1024; }

}  // namespace

extern "C" {

// Each returns the launch's cudaError_t (0: launched).
int launch_rms_norm(void* out, const void* x, const void* w, int tokens, int hidden, float eps, void* stream) {
    rms_norm_scalar<<<tokens, threads_for(hidden), 0, static_cast<cudaStream_t>(stream)>>>(
        static_cast<__half*>(out), static_cast<const __half*>(x), static_cast<const __half*>(w), hidden, eps);
    return static_cast<int>(cudaGetLastError());
}

int launch_silu_and_mul(void* out, const void* in, int tokens, int d, void* stream) {
    silu_and_mul_scalar<<<tokens, threads_for(d), 0, static_cast<cudaStream_t>(stream)>>>(
        static_cast<__half*>(out), static_cast<const __half*>(in), d);
    return static_cast<int>(cudaGetLastError());
}

}  // extern "C"
