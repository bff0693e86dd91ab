#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Time kernels that PyTorch runs on the local GPU, as validation data for synperf.

  attention: torch SDPA forced onto its flash backend, which is Dao's FlashAttention-2 (flash_fwd_kernel, and
             flash_fwd_splitkv_kernel + combine for one-token queries): prefill (causal or not) and decode.
  gemm:      torch.mm in bf16, i.e. cuBLAS / cuBLASLt with PyTorch's defaults.
  elementwise: the two PyTorch ops Vidur profiled in vLLM's models: the residual add (x + y, fp16) and the
             embedding gather (F.embedding, i.e. index_select).

Each op is captured in a CUDA graph of back-to-back calls and timed with CUDA events (µs per call, the launch
gaps inside the graph included, as the aiconfigurator collectors time); the kernels each call launches and their
device time come from torch.profiler. The elementwise ops are timed as Vidur timed them: eager calls, the
profiler's device time of their kernels (mean of 20 calls).

Writes, under --out, files `synperf predict … --csv` reads as they are (sizes plus a measured_us column):
  attention_fa2_prefill.csv, attention_fa2_prefill_causal.csv   prefill, per mask
  attention_fa2_decode.csv    decode rows that ran the split-KV kernel, the kernel serving frameworks call
                              (flash_attn_with_kvcache always splits; SDPA's mha_fwd runs the prefill kernel
                              with a 128-row tile for a one-token query when its heuristic picks one split)
  gemm_bf16.csv               m, n, k, measured_us
  elementwise_residual_add.csv, elementwise_embedding.csv       tokens, hidden (, vocab), measured_us
and the full record with the kernels each call ran: attention_fa2_kernels.csv, gemm_bf16_kernels.csv,
elementwise_kernels.csv.

  python3 bench/measure/torch_kernels.py --out DIR [--only attention|gemm|elementwise] [--quick]
"""
import argparse
import csv
import os
import sys
import time

import torch
import torch.nn.functional as F
from torch.nn.attention import SDPBackend, sdpa_kernel
from torch.profiler import ProfilerActivity, profile


def graph_time_us(fn, target_ms=40.0):
    """Mean µs per call of fn() replayed from a CUDA graph of back-to-back calls."""
    fn()
    torch.cuda.synchronize()
    t0 = torch.cuda.Event(enable_timing=True)
    t1 = torch.cuda.Event(enable_timing=True)
    t0.record()
    fn()
    t1.record()
    torch.cuda.synchronize()
    single_ms = max(t0.elapsed_time(t1), 1e-3)
    calls = int(min(max(target_ms / single_ms, 3), 200))
    stream = torch.cuda.Stream()
    stream.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(stream):
        for _ in range(2):
            fn()
    torch.cuda.current_stream().wait_stream(stream)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        for _ in range(calls):
            fn()
    graph.replay()
    torch.cuda.synchronize()
    replays = 3
    t0.record()
    for _ in range(replays):
        graph.replay()
    t1.record()
    torch.cuda.synchronize()
    return t0.elapsed_time(t1) * 1e3 / (replays * calls)


def kernels_of(fn, calls=3):
    """(kernel names in launch order of one call, mean device µs per call summed over its kernels)."""
    fn()
    torch.cuda.synchronize()
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        for _ in range(calls):
            fn()
        torch.cuda.synchronize()
    events = [e for e in prof.events() if e.device_type == torch.autograd.DeviceType.CUDA]
    events.sort(key=lambda e: e.time_range.start)
    total_us = sum(getattr(e, "device_time", None) or e.cuda_time for e in events) / calls
    per_call = len(events) // calls
    names = [e.name for e in events[:per_call]]
    return names, total_us


def attention_rows(quick, save):
    dtype = torch.bfloat16
    rows = []
    heads_sets = [(32, 32), (32, 8)] if not quick else [(32, 8)]
    dims = [64, 128, 256] if not quick else [128]
    prefill = [(1, 1024), (1, 4096), (1, 16384), (4, 512), (4, 2048), (4, 8192), (16, 256), (16, 1024), (64, 128)]
    decode = [(b, s) for b in (1, 4, 16, 64, 256) for s in (256, 1024, 4096, 16384)]
    if quick:
        prefill, decode = prefill[:2], decode[:3]
    budget_bytes = 16 << 30
    for heads, kv_heads in heads_sets:
        for d in dims:
            for phase, shapes in (("prefill", prefill), ("decode", decode)):
                for batch, seq in shapes:
                    for causal in ((False, True) if phase == "prefill" else (False,)):
                        q_len = seq if phase == "prefill" else 1
                        kv_bytes = 2 * batch * seq * kv_heads * d * 2
                        if kv_bytes > budget_bytes or d > 128 and phase == "decode":
                            continue
                        # (B, S, H, D) storage seen as (B, H, S, D): the layout the flash kernel reads in place.
                        q = torch.randn(batch, q_len, heads, d, device="cuda", dtype=dtype).transpose(1, 2)
                        k = torch.randn(batch, seq, kv_heads, d, device="cuda", dtype=dtype).transpose(1, 2)
                        v = torch.randn(batch, seq, kv_heads, d, device="cuda", dtype=dtype).transpose(1, 2)

                        def call():
                            with sdpa_kernel([SDPBackend.FLASH_ATTENTION]):
                                return F.scaled_dot_product_attention(q, k, v, is_causal=causal,
                                                                      enable_gqa=heads != kv_heads)

                        row = dict(phase=phase, batch=batch, seq=seq, heads=heads, kv_heads=kv_heads, head_dim=d,
                                   causal=int(causal), latency_us="", kernel_us="", kernels="", error="")
                        try:
                            row["latency_us"] = f"{graph_time_us(call):.3f}"
                            names, kernel_us = kernels_of(call)
                            row["kernel_us"] = f"{kernel_us:.3f}"
                            row["kernels"] = ";".join(names)
                        except Exception as e:  # record and go on: one unsupported shape must not end the sweep
                            row["error"] = str(e).splitlines()[0][:200]
                        rows.append(row)
                        save(rows)
                        print(phase, batch, seq, heads, kv_heads, d, causal, row["latency_us"], row["error"][:60],
                              flush=True)
                        del q, k, v
    return rows


def gemm_rows(quick, save):
    dtype = torch.bfloat16
    ms = [1, 16, 64, 256, 1024, 4096, 16384]
    nks = [(4096, 4096), (12288, 4096), (4096, 14336), (28672, 4096), (1024, 8192), (8192, 8192)]
    if quick:
        ms, nks = ms[:2], nks[:1]
    rows = []
    for n, k in nks:
        for m in ms:
            a = torch.randn(m, k, device="cuda", dtype=dtype)
            # nn.Linear's layout: weight (n, k) row-major, the product a @ w.T
            w = torch.randn(n, k, device="cuda", dtype=dtype)
            call = lambda: torch.mm(a, w.t())
            row = dict(m=m, n=n, k=k, latency_us="", kernel_us="", kernels="", error="")
            try:
                row["latency_us"] = f"{graph_time_us(call):.3f}"
                names, kernel_us = kernels_of(call)
                row["kernel_us"] = f"{kernel_us:.3f}"
                row["kernels"] = ";".join(names)
            except Exception as e:
                row["error"] = str(e).splitlines()[0][:200]
            rows.append(row)
            save(rows)
            print("gemm", m, n, k, row["latency_us"], flush=True)
    return rows


def elementwise_rows(quick, save):
    dtype = torch.float16
    tokens_list = [1, 16, 64, 256, 1024, 4096, 16384] if not quick else [16]
    rows = []
    for hidden in (4096, 5120, 8192):
        for tokens in tokens_list:
            x = torch.randn(tokens, hidden, device="cuda", dtype=dtype)
            y = torch.randn(tokens, hidden, device="cuda", dtype=dtype)
            rows.append(profile_row(lambda: x + y, op="residual_add", tokens=tokens, hidden=hidden, vocab=0))
            save(rows)
    # (hidden, table rows per rank): Llama-2 7B at TP 1 and 4, InternLM-20B at TP 2, Qwen-72B at TP 8.
    for hidden, vocab in ((4096, 32000), (4096, 8000), (5120, 51584), (8192, 19008)):
        table = torch.randn(vocab, hidden, device="cuda", dtype=dtype)
        for tokens in tokens_list:
            ids = torch.randint(0, vocab, (tokens,), device="cuda")
            rows.append(profile_row(lambda: F.embedding(ids, table), op="embedding", tokens=tokens, hidden=hidden,
                                    vocab=vocab))
            save(rows)
    return rows


def profile_row(call, **sizes):
    row = dict(sizes, kernel_us="", kernels="", error="")
    try:
        names, kernel_us = kernels_of(call, calls=20)
        row["kernel_us"] = f"{kernel_us:.3f}"
        row["kernels"] = ";".join(names)
    except Exception as e:
        row["error"] = str(e).splitlines()[0][:200]
    print(sizes, row["kernel_us"], row["error"][:60], flush=True)
    return row


def write(path, rows, fields=None):
    if not rows:
        return
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=fields or list(rows[0].keys()), extrasaction="ignore", lineterminator="\n")
        w.writeheader()
        w.writerows(rows)


def write_attention(out, rows):
    write(os.path.join(out, "attention_fa2_kernels.csv"), rows)
    sizes = ["batch", "seq", "heads", "kv_heads", "head_dim", "measured_us"]
    ok = [dict(r, measured_us=r["latency_us"]) for r in rows if not r["error"]]
    write(os.path.join(out, "attention_fa2_prefill.csv"),
          [r for r in ok if r["phase"] == "prefill" and not r["causal"]], sizes)
    write(os.path.join(out, "attention_fa2_prefill_causal.csv"),
          [r for r in ok if r["phase"] == "prefill" and r["causal"]], sizes)
    write(os.path.join(out, "attention_fa2_decode.csv"),
          [r for r in ok if r["phase"] == "decode" and "splitkv" in r["kernels"]], sizes)


def write_elementwise(out, rows):
    write(os.path.join(out, "elementwise_kernels.csv"), rows)
    ok = [dict(r, measured_us=r["kernel_us"]) for r in rows if not r["error"]]
    write(os.path.join(out, "elementwise_residual_add.csv"), [r for r in ok if r["op"] == "residual_add"],
          ["tokens", "hidden", "measured_us"])
    write(os.path.join(out, "elementwise_embedding.csv"), [r for r in ok if r["op"] == "embedding"],
          ["tokens", "hidden", "vocab", "measured_us"])


def write_gemm(out, rows):
    write(os.path.join(out, "gemm_bf16_kernels.csv"), rows)
    write(os.path.join(out, "gemm_bf16.csv"), [dict(r, measured_us=r["latency_us"]) for r in rows if not r["error"]],
          ["m", "n", "k", "measured_us"])


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", required=True)
    ap.add_argument("--only", choices=["attention", "gemm", "elementwise"])
    ap.add_argument("--quick", action="store_true", help="a few shapes, to check the set-up")
    args = ap.parse_args()
    if not torch.cuda.is_available():
        sys.exit("torch_kernels.py: no CUDA device")
    os.makedirs(args.out, exist_ok=True)
    torch.backends.cuda.matmul.allow_bf16_reduced_precision_reduction = True
    prop = torch.cuda.get_device_properties(0)
    print(f"device {prop.name}, {prop.multi_processor_count} SMs, torch {torch.__version__}, "
          f"cuda {torch.version.cuda}", flush=True)
    start = time.time()
    if args.only in (None, "attention"):
        attention_rows(args.quick, lambda rows: write_attention(args.out, rows))
    if args.only in (None, "gemm"):
        gemm_rows(args.quick, lambda rows: write_gemm(args.out, rows))
    if args.only in (None, "elementwise"):
        elementwise_rows(args.quick, lambda rows: write_elementwise(args.out, rows))
    print(f"done in {time.time() - start:.0f} s", flush=True)


if __name__ == "__main__":
    main()
