#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Time the sarathi-serve / early-vLLM RMSNorm and SiLU&Mul kernels (vllm_rowwise.cu) on the local GPU, as Vidur
timed them: eager calls, torch.profiler's device time of the kernel (mean of 20 calls).

Two orders of calls:
  warm   back-to-back calls on the same tensors (a row small enough stays in L2 between calls);
  cold   each call after a kernel that writes a 256 MiB buffer, so the inputs come from DRAM, as inside a layer's
         forward pass where GEMMs stream their weights through L2 between these ops.

Writes, under --out, files `synperf predict rmsnorm|silu_mul --csv` reads as they are:
  rmsnorm_vllm_scalar.csv, rmsnorm_vllm_scalar_cold.csv     tokens, hidden, measured_us
  silu_mul_vllm_scalar.csv, silu_mul_vllm_scalar_cold.csv   tokens, d, measured_us

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


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--lib", required=True, help="libvllm_rowwise.so built from vllm_rowwise.cu")
    ap.add_argument("--out", required=True, help="output folder")
    ap.add_argument("--quick", action="store_true", help="two shapes per op")
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    lib = ctypes.CDLL(a.lib)
    lib.launch_rms_norm.argtypes = [ctypes.c_void_p] * 3 + [ctypes.c_int, ctypes.c_int, ctypes.c_float, ctypes.c_void_p]
    lib.launch_silu_and_mul.argtypes = [ctypes.c_void_p] * 2 + [ctypes.c_int, ctypes.c_int, ctypes.c_void_p]
    stream = ctypes.c_void_p(torch.cuda.current_stream().cuda_stream)
    flush = torch.empty(256 << 20, dtype=torch.uint8, device="cuda")
    tokens_list = [16, 4096] if a.quick else [1, 4, 16, 64, 256, 512, 1024, 2048, 4096, 8192, 16384]

    def checked(rc):
        if rc != 0:
            raise RuntimeError(f"kernel launch failed: cudaError {rc}")

    norm = {"warm": [], "cold": []}
    for hidden in (4096, 5120, 8192):
        w = torch.randn(hidden, device="cuda", dtype=torch.float16)
        for tokens in tokens_list:
            x = torch.randn(tokens, hidden, device="cuda", dtype=torch.float16)
            out = torch.empty_like(x)
            call = lambda: checked(lib.launch_rms_norm(out.data_ptr(), x.data_ptr(), w.data_ptr(), tokens, hidden, 1e-6, stream))
            for mode, f in (("warm", None), ("cold", flush)):
                us = device_us(call, "rms_norm_scalar", f)
                norm[mode].append((tokens, hidden, f"{us:.3f}"))
                print("rmsnorm", mode, tokens, hidden, f"{us:.3f}", flush=True)
    silu = {"warm": [], "cold": []}
    # Intermediate sizes per rank: Llama-2-7B at TP 1 and 2, Llama-3-8B, Llama-2-70B at TP 8.
    for d in (11008, 5504, 14336, 3584):
        for tokens in tokens_list:
            x = torch.randn(tokens, 2 * d, device="cuda", dtype=torch.float16)
            out = torch.empty(tokens, d, device="cuda", dtype=torch.float16)
            call = lambda: checked(lib.launch_silu_and_mul(out.data_ptr(), x.data_ptr(), tokens, d, stream))
            for mode, f in (("warm", None), ("cold", flush)):
                us = device_us(call, "silu_and_mul_scalar", f)
                silu[mode].append((tokens, d, f"{us:.3f}"))
                print("silu_mul", mode, tokens, d, f"{us:.3f}", flush=True)
    for mode, suffix in (("warm", ""), ("cold", "_cold")):
        write(os.path.join(a.out, f"rmsnorm_vllm_scalar{suffix}.csv"), ["tokens", "hidden", "measured_us"], norm[mode])
        write(os.path.join(a.out, f"silu_mul_vllm_scalar{suffix}.csv"), ["tokens", "d", "measured_us"], silu[mode])


if __name__ == "__main__":
    main()
