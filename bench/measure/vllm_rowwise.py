#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Time the RMSNorm and SiLU&Mul kernels of vllm_rowwise.cu on the local GPU, as Vidur timed its ops: eager calls,
torch.profiler's device time of the kernel (mean of 20 calls). The scalar kernels are those Vidur profiled
(sarathi-serve, vLLM before vectorization); the 16-byte-access ones run with the block sizes of current vLLM and of
FlashInfer / sgl-kernel.

Two orders of calls:
  warm   back-to-back calls on the same tensors (a row small enough stays in L2 between calls);
  cold   each call after a kernel that writes a 256 MiB buffer, so the inputs come from DRAM, as inside a layer's
         forward pass where GEMMs stream their weights through L2 between these ops.

Writes, under --out, files `synperf predict rmsnorm|silu_mul --csv` reads as they are, each as <name>.csv (warm)
and <name>_cold.csv:
  rmsnorm_vllm_scalar              tokens, hidden, measured_us   (--kernel vllm_scalar)
  rmsnorm_vllm_vectorized          tokens, hidden, measured_us   (--kernel vllm_vectorized)
  rmsnorm_flashinfer               tokens, hidden, measured_us   (--kernel flashinfer)
  rmsnorm_vllm_vectorized_fused    tokens, hidden, measured_us   (--kernel vllm_vectorized --fused-add)
  silu_mul_vllm_scalar             tokens, d, measured_us        (--kernel vllm_scalar)
  silu_mul_flashinfer              tokens, d, measured_us        (--kernel flashinfer)

  nvcc -O3 -std=c++17 -arch=sm_90 -shared -Xcompiler -fPIC -o libvllm_rowwise.so bench/measure/vllm_rowwise.cu
  python3 bench/measure/vllm_rowwise.py --lib ./libvllm_rowwise.so --out DIR [--quick]
"""
import argparse
import ctypes
import csv
import os

import torch
from torch.profiler import ProfilerActivity, profile

CALLS = 20


def device_us(call, kernel, flush=None):
    """Mean device µs per call of the kernels whose name contains `kernel`."""
    call()
    torch.cuda.synchronize()
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        for _ in range(CALLS):
            if flush is not None:
                flush.zero_()
            call()
        torch.cuda.synchronize()
    events = [e for e in prof.events() if e.device_type == torch.autograd.DeviceType.CUDA and kernel in e.name]
    if len(events) != CALLS:
        raise RuntimeError(f"expected {CALLS} '{kernel}' kernels in the profile, got {len(events)}")
    return sum(getattr(e, "device_time", None) or e.cuda_time for e in events) / CALLS


def write(path, fields, rows):
    with open(path, "w", newline="") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(fields)
        w.writerows(rows)


def round_up(n, m):
    return (n + m - 1) // m * m


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--lib", required=True, help="libvllm_rowwise.so built from vllm_rowwise.cu")
    ap.add_argument("--out", required=True, help="output folder")
    ap.add_argument("--quick", action="store_true", help="two token counts per shape")
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    lib = ctypes.CDLL(a.lib)
    ptr, i32, f32 = ctypes.c_void_p, ctypes.c_int, ctypes.c_float
    lib.launch_rms_norm.argtypes = [ptr, ptr, ptr, i32, i32, f32, ptr]
    lib.launch_silu_and_mul.argtypes = [ptr, ptr, i32, i32, ptr]
    lib.launch_rms_norm_vec8.argtypes = [ptr, ptr, ptr, i32, i32, f32, i32, ptr]
    lib.launch_fused_add_rms_norm_vec8.argtypes = [ptr, ptr, ptr, i32, i32, f32, i32, ptr]
    lib.launch_silu_and_mul_vec8.argtypes = [ptr, ptr, i32, i32, i32, ptr]
    stream = ptr(torch.cuda.current_stream().cuda_stream)
    flush = torch.empty(256 << 20, dtype=torch.uint8, device="cuda")
    tokens_list = [16, 4096] if a.quick else [1, 4, 16, 64, 256, 512, 1024, 2048, 4096, 8192, 16384]
    half = dict(device="cuda", dtype=torch.float16)

    def checked(rc):
        if rc != 0:
            raise RuntimeError(f"kernel launch failed: cudaError {rc}")

    # Each variant: (output name, size column, sizes, kernel name in the profile, call(tokens, size) -> launcher).
    def rms(kind):
        def make(tokens, hidden):
            x, r, w = torch.randn(tokens, hidden, **half), torch.randn(tokens, hidden, **half), torch.randn(hidden, **half)
            out = torch.empty_like(x)
            if kind == "scalar":
                return lambda: checked(lib.launch_rms_norm(out.data_ptr(), x.data_ptr(), w.data_ptr(), tokens, hidden, 1e-6, stream))
            if kind == "fused":  # vLLM: min(hidden, 1024) threads below 256 tokens, else 256
                threads = min(hidden, 1024 if tokens < 256 else 256)
                return lambda: checked(lib.launch_fused_add_rms_norm_vec8(x.data_ptr(), r.data_ptr(), w.data_ptr(), tokens,
                                                                          hidden, 1e-6, threads, stream))
            # vLLM: min(hidden, 1024) threads; FlashInfer: min(1024, hidden / 8) rounded up to warps
            threads = min(hidden, 1024) if kind == "vllm" else round_up(min(1024, hidden // 8), 32)
            return lambda: checked(lib.launch_rms_norm_vec8(out.data_ptr(), x.data_ptr(), w.data_ptr(), tokens, hidden, 1e-6,
                                                            threads, stream))
        return make

    def silu(kind):
        def make(tokens, d):
            x, out = torch.randn(tokens, 2 * d, **half), torch.empty(tokens, d, **half)
            if kind == "scalar":
                return lambda: checked(lib.launch_silu_and_mul(out.data_ptr(), x.data_ptr(), tokens, d, stream))
            threads = min(d // 8, 1024)
            return lambda: checked(lib.launch_silu_and_mul_vec8(out.data_ptr(), x.data_ptr(), tokens, d, threads, stream))
        return make

    hiddens = (4096, 5120, 8192)
    # Intermediate sizes per rank: Llama-2-7B at TP 1 and 2, Llama-3-8B, Llama-2-70B at TP 8.
    ds = (11008, 5504, 14336, 3584)
    variants = [
        ("rmsnorm_vllm_scalar", "hidden", hiddens, "rms_norm_scalar", rms("scalar")),
        ("rmsnorm_vllm_vectorized", "hidden", hiddens, "rms_norm_vec8", rms("vllm")),
        ("rmsnorm_flashinfer", "hidden", hiddens, "rms_norm_vec8", rms("flashinfer")),
        ("rmsnorm_vllm_vectorized_fused", "hidden", hiddens, "fused_add_rms_norm_vec8", rms("fused")),
        ("silu_mul_vllm_scalar", "d", ds, "silu_and_mul_scalar", silu("scalar")),
        ("silu_mul_flashinfer", "d", ds, "silu_and_mul_vec8", silu("flashinfer")),
    ]
    for name, column, sizes, kernel, make in variants:
        rows = {"warm": [], "cold": []}
        for size in sizes:
            for tokens in tokens_list:
                call = make(tokens, size)
                for mode, f in (("warm", None), ("cold", flush)):
                    us = device_us(call, kernel, f)
                    rows[mode].append((tokens, size, f"{us:.3f}"))
                    print(name, mode, tokens, size, f"{us:.3f}", flush=True)
        write(os.path.join(a.out, f"{name}.csv"), ["tokens", column, "measured_us"], rows["warm"])
        write(os.path.join(a.out, f"{name}_cold.csv"), ["tokens", column, "measured_us"], rows["cold"])


if __name__ == "__main__":
    main()
