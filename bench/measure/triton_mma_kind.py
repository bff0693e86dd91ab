#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Which tensor-core instruction Triton emits for a tl.dot, by BLOCK_SIZE_M, warps and operand type.

A plain tiled matmul (the inner loop of Triton's fused_moe kernel) is compiled for the local GPU and its PTX searched
for wgmma (Hopper's warpgroup MMA) or mma.sync (the warp-level MMA). Prints one line per case with the first MMA
instruction found.

  python3 bench/measure/triton_mma_kind.py
"""
import re

import torch
import triton
import triton.language as tl


@triton.jit
def mm(a, b, c, M, N, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    pm = tl.program_id(0)
    pn = tl.program_id(1)
    rm = pm * BM + tl.arange(0, BM)
    rn = pn * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, K, BK):
        x = tl.load(a + rm[:, None] * K + (k + rk)[None, :])
        y = tl.load(b + (k + rk)[:, None] * N + rn[None, :])
        acc += tl.dot(x, y)
    tl.store(c + rm[:, None] * N + rn[None, :], acc.to(c.dtype.element_ty))


def main():
    M = N = K = 1024
    print(f"{torch.cuda.get_device_name()}, triton {triton.__version__}")
    for dt in (torch.bfloat16, torch.float8_e4m3fn):
        a = torch.randn(M, K, device="cuda").to(dt)
        b = torch.randn(K, N, device="cuda").to(dt)
        c = torch.empty(M, N, device="cuda", dtype=torch.bfloat16)
        for bm in (16, 32, 64, 128):
            for warps in (4, 8):
                k = mm[(M // bm, N // 64)](a, b, c, M, N, K, BM=bm, BN=64, BK=64, num_warps=warps, num_stages=3)
                found = re.search(r"\b(wgmma\.mma_async\S*|mma\.sync\S*)", k.asm["ptx"])
                print(f"{str(dt).removeprefix('torch.')} BM {bm} warps {warps}: {found.group(1) if found else 'no MMA'}")


if __name__ == "__main__":
    main()
