"""Contagion Zero's fast forward against ONNX Runtime, on the same bundle, in one run.

    python3 bench/onnx/compare.py --model models/infexion-4x32-15min [--game infexion]

1. Exports the bundle's ONNX model with ``contagion export --format onnx`` (the one
   place the graph is built, ``src/nn/onnx.rs``) and checks it with ``onnx.checker``.
2. Checks ONNX Runtime's outputs against the Rust forward (``contagion bench nn --dump``)
   on 16 sample positions: max |difference| must be at most 1e-4, or the script fails.
3. Times ONNX Runtime at 1 and 2 intra-op threads and ``contagion bench nn`` at 1 and 2
   threads, batch sizes 1/8/64/256, medians of 5 rounds, and prints one table with the
   ratios. Needs ``numpy onnx onnxruntime`` (``pip install -r bench/onnx/requirements.txt``).
"""

import argparse
import json
import os
import platform
import statistics
import subprocess
import tempfile
import time

import numpy as np
import onnx
import onnxruntime as ort

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))


def to_onnx(contagion, bundle, tmp):
    """The bundle's ONNX model as `contagion export --format onnx` writes it."""
    out = os.path.join(tmp, "bundle")
    subprocess.run([contagion, "export", "--checkpoint", bundle, "--out", out, "--format", "onnx"], check=True, capture_output=True)
    with open(os.path.join(out, "manifest.json"), encoding="utf-8") as f:
        m = json.load(f)
    model = onnx.load(os.path.join(out, m["onnx"]))
    onnx.checker.check_model(model)
    return model, m


def session(model, threads):
    opts = ort.SessionOptions()
    opts.intra_op_num_threads = threads
    opts.inter_op_num_threads = 1
    return ort.InferenceSession(model.SerializeToString(), opts, providers=["CPUExecutionProvider"])


def time_ort(sess, x, rounds=5, positions=4096):
    batch = x.shape[0]
    reps = max(1, positions // batch)
    sess.run(None, {"input": x})
    rates = []
    for _ in range(rounds):
        t0 = time.perf_counter()
        for _ in range(reps):
            sess.run(None, {"input": x})
        rates.append(reps * batch / (time.perf_counter() - t0))
    return statistics.median(rates)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--model", default=os.path.join(ROOT, "models", "infexion-4x32-15min"))
    ap.add_argument("--game", default="infexion")
    ap.add_argument("--contagion", default=os.path.join(ROOT, "target", "release", "contagion"))
    ap.add_argument("--batch", default="1,8,64,256")
    ap.add_argument("--out", default=None, help="where to write the ONNX model (default: a temporary file)")
    args = ap.parse_args()
    base = [args.contagion, "bench", "nn", "--game", args.game, "--model", args.model]
    with tempfile.TemporaryDirectory() as tmp:
        model, manifest = to_onnx(args.contagion, args.model, tmp)
        if args.out:
            onnx.save(model, args.out)
        dump = os.path.join(tmp, "dump.json")
        subprocess.run(base + ["--batch", "1", "--rounds", "1", "--dump", dump], check=True, capture_output=True)
        with open(dump) as f:
            d = json.load(f)
    x = np.asarray(d["input"], dtype=np.float32).reshape([d["batch"]] + manifest["input"]["shape"])
    logits, values = session(model, 1).run(None, {"input": x})
    dl = float(np.max(np.abs(logits - np.asarray(d["logits"], np.float32).reshape(logits.shape))))
    dv = float(np.max(np.abs(values - np.asarray(d["values"], np.float32).reshape(values.shape))))
    print(f"ONNX Runtime {ort.__version__} vs the Rust forward on 16 positions: max |Δ logit| {dl:.2e}, max |Δ value| {dv:.2e}")
    if max(dl, dv) > 1e-4:
        raise SystemExit("the ONNX graph does not match the Rust forward (> 1e-4)")
    cpu = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo") as f:
            cpu = next(line.split(":", 1)[1].strip() for line in f if line.startswith("model name"))
    except (OSError, StopIteration):
        pass
    print(f"CPU: {cpu}")
    batches = [int(b) for b in args.batch.split(",")]
    print("| batch | threads | contagion positions/s | ONNX Runtime positions/s | ratio |")
    print("|---|---|---|---|---|")
    rows = []
    for threads in (1, 2):
        out = subprocess.run(base + ["--batch", args.batch, "--rounds", "5", "--threads", str(threads), "--json"], check=True, capture_output=True, text=True).stdout
        ours = {}
        for line in out.splitlines():
            r = json.loads(line)
            ours[r["batch"]] = r["positions_per_s"]
        sess = session(model, threads)
        for b in batches:
            xb = np.resize(x, (b,) + x.shape[1:]).astype(np.float32)
            theirs = time_ort(sess, xb)
            rows.append({"batch": b, "threads": threads, "contagion": ours[b], "onnxruntime": theirs})
            print(f"| {b} | {threads} | {ours[b]:.0f} | {theirs:.0f} | {ours[b] / theirs:.2f}x |", flush=True)
    return rows


if __name__ == "__main__":
    main()
