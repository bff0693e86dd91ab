#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Mutation fuzzing of the CLI's file loaders: weights (.mlp), GPU spec files, shape CSVs and model config.json.

Each case mutates one valid file (flipped and deleted bytes, inserted tokens such as nan, inf, -1, 1e308, NUL, a
byte-order mark, truncation, shuffled lines) and runs the `synperf` command that reads it. A case passes when the
command accepts the file (exit 0) or rejects it with a message on stderr (exit 1 or 2); it fails on a signal, any
other exit code, a silent rejection or a sanitizer report. Failing inputs are kept in the work directory.

    python3 scripts/fuzz-loaders.py SYNPERF [CASES=200] [SEED=1] [WORKDIR=/tmp/synperf-fuzz]

Build SYNPERF with -DSYNPERF_SANITIZERS=address,undefined to catch memory errors that do not crash.
"""
import os
import random
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TOKENS = [b"nan", b"inf", b"-1", b"0", b"-0", b"1e308", b"99999999999999999999", b"\n", b",", b" ", b"\x00", b"\xff\xfe"]


def seed_files():
    def read(path):
        with open(os.path.join(ROOT, path), "rb") as f:
            return f.read()
    single = read("models/rmsnorm.mlp")
    return {
        "weights": single,
        "ensemble": as_ensemble(single),
        "spec": read("test/data/gpu_specs/full.spec"),
        "csv": b"m,n,k,measured_us\n16,4096,4096,12.5\n4096,4096,4096,180\n1,8,8,3\n",
        "model": read("test/data/e2e/mixtral-8x7b.json"),
    }


def as_ensemble(single):
    """A version-2 file holding the network of `single` twice (`members 2`), so mutations reach the ensemble grammar."""
    head, rest = single.split(b"\nlayers ", 1)
    layers, tail = (b"layers " + rest).rsplit(b"end\n", 1)
    head = head.replace(b"synperf-mlp 1\n", b"synperf-mlp 2\n", 1)
    return head + b"\nmembers 2\n" + layers + layers + b"end\n" + tail


def mutate(data, rng):
    b = bytearray(data)
    for _ in range(rng.randint(1, 8)):
        if not b:
            b = bytearray(b"x")
        i = rng.randrange(len(b))
        op = rng.randrange(6)
        if op == 0:
            b[i] = rng.randrange(256)
        elif op == 1:
            del b[i:i + rng.randint(1, 64)]
        elif op == 2:
            b[i:i] = rng.choice(TOKENS)
        elif op == 3:
            j = rng.randrange(len(b))
            b[i:i] = b[j:j + rng.randint(1, 200)]
        elif op == 4:
            del b[i:]
        else:
            lines = bytes(b).split(b"\n")
            head = lines[:10]
            rng.shuffle(head)
            b = bytearray(b"\n".join(head + lines[10:]))
    return bytes(b)


def command(synperf, kind, path):
    if kind in ("weights", "ensemble"):
        return [synperf, "predict", "rmsnorm", "--gpu", "a100_sxm", "--tokens", "64", "--hidden", "4096", "--weights", path]
    if kind == "spec":
        return [synperf, "predict", "gemm", "--gpu-spec", path, "--m", "64", "--n", "4096", "--k", "4096"]
    if kind == "csv":
        return [synperf, "predict", "gemm", "--gpu", "h100_sxm", "--csv", path]
    return [synperf, "e2e", "--model", path, "--gpu", "h100_sxm", "--batch", "2", "--prompt-len", "128",
            "--decode-steps", "2", "--tp", "2"]


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    synperf = sys.argv[1]
    cases = int(sys.argv[2]) if len(sys.argv) > 2 else 200
    rng = random.Random(int(sys.argv[3]) if len(sys.argv) > 3 else 1)
    work = sys.argv[4] if len(sys.argv) > 4 else "/tmp/synperf-fuzz"
    os.makedirs(work, exist_ok=True)
    seeds = seed_files()
    outcomes, failures = {}, 0
    for case in range(cases):
        kind = rng.choice(sorted(seeds))
        data = mutate(seeds[kind], rng)
        path = os.path.join(work, f"case.{kind}")
        with open(path, "wb") as f:
            f.write(data)
        run = subprocess.run(command(synperf, kind, path), capture_output=True, timeout=300)
        err = run.stderr.decode(errors="replace")
        verdict = "accepted" if run.returncode == 0 else "rejected"
        sanitizer = "Sanitizer" in err or "runtime error:" in err
        if run.returncode not in (0, 1, 2) or sanitizer or (run.returncode != 0 and not err.strip()):
            verdict = "FAILED"
            failures += 1
            kept = os.path.join(work, f"failed_{case}.{kind}")
            with open(kept, "wb") as f:
                f.write(data)
            print(f"case {case} ({kind}): exit {run.returncode}, input kept as {kept}\n{err[-2000:]}", flush=True)
        outcomes[(kind, verdict)] = outcomes.get((kind, verdict), 0) + 1
    summary = ", ".join(f"{kind} {verdict} {n}" for (kind, verdict), n in sorted(outcomes.items()))
    print(f"fuzz-loaders: {cases} cases, {failures} failed ({summary})")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
