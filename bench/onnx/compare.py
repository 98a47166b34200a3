"""Contagion Zero's fast forward against ONNX Runtime, on the same bundle, in one run.

    python3 bench/onnx/compare.py --model models/infexion-bundle [--game infexion]

1. Turns the bundle into an equivalent ONNX graph (``bundle.onnx`` beside this script's
   output): the manifest's layer list, with the torus padding as slices and concats.
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
import sys
import tempfile
import time

import numpy as np
import onnx
import onnxruntime as ort
from onnx import TensorProto, helper, numpy_helper

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "frontends", "python"))
from czero import safetensors  # noqa: E402  (the repository's own reader)


def to_onnx(bundle):
    """The ONNX model equivalent to the bundle's manifest, batch dimension free."""
    with open(os.path.join(bundle, "manifest.json"), encoding="utf-8") as f:
        m = json.load(f)
    tensors = safetensors.load(os.path.join(bundle, "model.safetensors"))
    planes, height, width = m["input"]["shape"]
    nodes, inits = [], []
    counter = [0]

    def fresh(stem):
        counter[0] += 1
        return f"{stem}__{counter[0]}"

    def const(name, array):
        inits.append(numpy_helper.from_array(np.asarray(array), name))
        return name

    def act(y, kind):
        if kind in (None, "none"):
            return y
        out = fresh(y)
        nodes.append(helper.make_node({"relu": "Relu", "tanh": "Tanh"}[kind], [y], [out]))
        return out

    def circular(x, axis, size):
        last = fresh(x)
        first = fresh(x)
        nodes.append(helper.make_node("Slice", [x, const(fresh("s"), [size - 1]), const(fresh("e"), [size]), const(fresh("a"), [axis])], [last]))
        nodes.append(helper.make_node("Slice", [x, const(fresh("s"), [0]), const(fresh("e"), [1]), const(fresh("a"), [axis])], [first]))
        out = fresh(x)
        nodes.append(helper.make_node("Concat", [last, x, first], [out], axis=axis))
        return out

    for w in tensors:
        inits.append(numpy_helper.from_array(tensors[w], w))
    for layer in m["architecture"]["layers"]:
        op, out = layer["op"], layer["output"]
        if op == "conv2d":
            x, k, pads = layer["input"], layer["kernel"], [0, 0, 0, 0]
            if layer["padding"] == "circular":
                x = circular(circular(x, 2, height), 3, width)
            elif layer["padding"] == "zeros":
                pads = [k // 2] * 4
            y = fresh(out)
            nodes.append(helper.make_node("Conv", [x, layer["weight"], layer["bias"]], [y], kernel_shape=[k, k], pads=pads))
        elif op == "add":
            y = fresh(out)
            nodes.append(helper.make_node("Add", layer["inputs"], [y]))
        elif op == "flatten":
            y = fresh(out)
            nodes.append(helper.make_node("Flatten", [layer["input"]], [y], axis=1))
        elif op == "gather":
            node = m
            for part in layer["index"].split("."):
                node = node[part]
            y = fresh(out)
            nodes.append(helper.make_node("Gather", [layer["input"], const(fresh("index"), np.asarray(node, dtype=np.int64))], [y], axis=1))
        elif op == "global_average_pool":
            pooled = fresh(out)
            nodes.append(helper.make_node("GlobalAveragePool", [layer["input"]], [pooled]))
            y = fresh(out)
            nodes.append(helper.make_node("Flatten", [pooled], [y], axis=1))
        elif op == "linear":
            y = fresh(out)
            nodes.append(helper.make_node("Gemm", [layer["input"], layer["weight"], layer["bias"]], [y], transB=1))
        else:
            raise SystemExit(f"unknown layer op {op!r}")
        nodes.append(helper.make_node("Identity", [act(y, layer.get("activation"))], [out]))
    pol, val = m["outputs"]["policy"], m["outputs"]["value"]
    graph = helper.make_graph(
        nodes,
        "contagion",
        [helper.make_tensor_value_info("input", TensorProto.FLOAT, ["batch", planes, height, width])],
        [
            helper.make_tensor_value_info(pol["value"], TensorProto.FLOAT, ["batch", pol["shape"][0]]),
            helper.make_tensor_value_info(val["value"], TensorProto.FLOAT, ["batch", val["shape"][0]]),
        ],
        inits,
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
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
    ap.add_argument("--model", default=os.path.join(ROOT, "models", "infexion-bundle"))
    ap.add_argument("--game", default="infexion")
    ap.add_argument("--contagion", default=os.path.join(ROOT, "target", "release", "contagion"))
    ap.add_argument("--batch", default="1,8,64,256")
    ap.add_argument("--out", default=None, help="where to write the ONNX model (default: a temporary file)")
    args = ap.parse_args()
    model, manifest = to_onnx(args.model)
    if args.out:
        onnx.save(model, args.out)
    base = [args.contagion, "bench", "nn", "--game", args.game, "--model", args.model]
    with tempfile.TemporaryDirectory() as tmp:
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
