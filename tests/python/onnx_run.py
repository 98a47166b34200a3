"""Runs a bundle's model.onnx in ONNX Runtime on encoded positions (tests/suite/onnx_export.rs).

    python onnx_run.py MODEL.onnx INPUT.f32 BATCH OUT.json

INPUT.f32 holds BATCH encoded positions as little-endian float32 in the shape the
graph's input declares (batch first). OUT.json gets the graph's input and output names
and shapes, and the outputs, each as a flat list.
"""

import json
import sys

import numpy as np
import onnxruntime as ort


def main():
    model, inputs, batch, out = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
    opts = ort.SessionOptions()
    opts.intra_op_num_threads = 1
    sess = ort.InferenceSession(model, opts, providers=["CPUExecutionProvider"])
    (inp,) = sess.get_inputs()
    shape = [batch] + [int(d) for d in inp.shape[1:]]
    x = np.fromfile(inputs, dtype="<f4").reshape(shape)
    results = sess.run(None, {inp.name: x})
    json.dump(
        {
            "input": {"name": inp.name, "shape": [str(d) for d in inp.shape]},
            "outputs": [
                {"name": o.name, "shape": [str(d) for d in o.shape], "values": r.ravel().tolist()}
                for o, r in zip(sess.get_outputs(), results)
            ],
            "onnxruntime": ort.__version__,
        },
        open(out, "w"),
    )


if __name__ == "__main__":
    main()
