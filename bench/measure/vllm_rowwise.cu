// SPDX-License-Identifier: Apache-2.0
// RMSNorm and SiLU&Mul over fp16, one CTA per token, written from the launch rules in docs/families/rmsnorm.md and
// silu_mul.md: the scalar kernels Vidur profiled in sarathi-serve (vLLM before vectorization; min(row, 1024) threads,
// one element per access) and the 16-byte-access kernels of current vLLM, FlashInfer and sgl-kernel (the block size
// is the caller's). Built as a shared library that vllm_rowwise.py calls through ctypes, so that torch.profiler
// times them as Vidur's profiler did.
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

// Eight fp16 in one 16-byte access.
union vec8 {
    uint4 raw;
    __half h[8];
};

// The vectorized RMSNorm (current vLLM, FlashInfer): the same two passes over 16-byte accesses; hidden % 8 == 0.
__global__ void rms_norm_vec8(__half* out, const __half* x, const __half* w, int hidden, float eps) {
    __shared__ float inv_rms;
    const int vecs = hidden / 8;
    const uint4* row = reinterpret_cast<const uint4*>(x + static_cast<long long>(blockIdx.x) * hidden);
    const uint4* weight = reinterpret_cast<const uint4*>(w);
    uint4* dst = reinterpret_cast<uint4*>(out + static_cast<long long>(blockIdx.x) * hidden);
    float squares = 0.0f;
    for (int i = threadIdx.x; i < vecs; i += blockDim.x) {
        vec8 v{row[i]};
        for (int j = 0; j < 8; ++j) squares += __half2float(v.h[j]) * __half2float(v.h[j]);
    }
    squares = block_sum(squares);
    if (threadIdx.x == 0) inv_rms = rsqrtf(squares / hidden + eps);
    __syncthreads();
    for (int i = threadIdx.x; i < vecs; i += blockDim.x) {
        vec8 v{row[i]}, g{weight[i]}, o;
        for (int j = 0; j < 8; ++j) o.h[j] = __hmul(__float2half(__half2float(v.h[j]) * inv_rms), g.h[j]);
        dst[i] = o.raw;
    }
}

// The fused residual add + RMSNorm, in place as vLLM runs it: r = x + r (stored), then x = norm(r) * w.
__global__ void fused_add_rms_norm_vec8(__half* x, __half* residual, const __half* w, int hidden, float eps) {
    __shared__ float inv_rms;
    const int vecs = hidden / 8;
    uint4* in = reinterpret_cast<uint4*>(x + static_cast<long long>(blockIdx.x) * hidden);
    uint4* res = reinterpret_cast<uint4*>(residual + static_cast<long long>(blockIdx.x) * hidden);
    const uint4* weight = reinterpret_cast<const uint4*>(w);
    float squares = 0.0f;
    for (int i = threadIdx.x; i < vecs; i += blockDim.x) {
        vec8 a{in[i]}, b{res[i]};
        for (int j = 0; j < 8; ++j) {
            a.h[j] = __hadd(a.h[j], b.h[j]);
            squares += __half2float(a.h[j]) * __half2float(a.h[j]);
        }
        res[i] = a.raw;
    }
    squares = block_sum(squares);
    if (threadIdx.x == 0) inv_rms = rsqrtf(squares / hidden + eps);
    __syncthreads();
    for (int i = threadIdx.x; i < vecs; i += blockDim.x) {
        vec8 r{res[i]}, g{weight[i]}, o;
        for (int j = 0; j < 8; ++j) o.h[j] = __hmul(__float2half(__half2float(r.h[j]) * inv_rms), g.h[j]);
        in[i] = o.raw;
    }
}

// SiLU&Mul over 16-byte accesses (FlashInfer's act_and_mul as sgl-kernel launches it); d % 8 == 0.
__global__ void silu_and_mul_vec8(__half* out, const __half* in, int d) {
    const int vecs = d / 8;
    const uint4* row = reinterpret_cast<const uint4*>(in + static_cast<long long>(blockIdx.x) * 2 * d);
    uint4* dst = reinterpret_cast<uint4*>(out + static_cast<long long>(blockIdx.x) * d);
    for (int i = threadIdx.x; i < vecs; i += blockDim.x) {
        vec8 a{row[i]}, b{row[vecs + i]}, o;
        for (int j = 0; j < 8; ++j) {
            const float v = __half2float(a.h[j]);
            o.h[j] = __float2half(v / (1.0f + __expf(-v)) * __half2float(b.h[j]));
        }
        dst[i] = o.raw;
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

// The vectorized kernels take their block size: each launch rule picks its own.
int launch_rms_norm_vec8(void* out, const void* x, const void* w, int tokens, int hidden, float eps, int threads, void* stream) {
    rms_norm_vec8<<<tokens, threads, 0, static_cast<cudaStream_t>(stream)>>>(
        static_cast<__half*>(out), static_cast<const __half*>(x), static_cast<const __half*>(w), hidden, eps);
    return static_cast<int>(cudaGetLastError());
}

int launch_fused_add_rms_norm_vec8(void* x, void* residual, const void* w, int tokens, int hidden, float eps, int threads,
                                   void* stream) {
    fused_add_rms_norm_vec8<<<tokens, threads, 0, static_cast<cudaStream_t>(stream)>>>(
        static_cast<__half*>(x), static_cast<__half*>(residual), static_cast<const __half*>(w), hidden, eps);
    return static_cast<int>(cudaGetLastError());
}

int launch_silu_and_mul_vec8(void* out, const void* in, int tokens, int d, int threads, void* stream) {
    silu_and_mul_vec8<<<tokens, threads, 0, static_cast<cudaStream_t>(stream)>>>(
        static_cast<__half*>(out), static_cast<const __half*>(in), d);
    return static_cast<int>(cudaGetLastError());
}

}  // extern "C"
