"""The check of the perspective form's play (experiments/nnue/README.md, "The perspective
form"): a perspective bundle made from a single-accumulator one, the second view's
output weights zero, must play exactly as the one it was made from.

    python3 zero_view.py SRC DST    # SRC: a bundle of features "2x2", no dense layer
"""

import array
import hashlib
import json
import os
import struct
import sys


def main(src, dst):
    raw = open(os.path.join(src, "model.safetensors"), "rb").read()
    n = struct.unpack("<Q", raw[:8])[0]
    header, data = json.loads(raw[8 : 8 + n]), raw[8 + n :]
    tensors = {}
    for name, t in header.items():
        if name != "__metadata__":
            start, end = t["data_offsets"]
            values = array.array("f")
            values.frombytes(data[start:end])
            tensors[name] = (t["shape"], values)
    (outputs, hidden), w = tensors["out.weight"]
    wide = array.array("f")
    for row in range(outputs):
        wide.extend(w[row * hidden : (row + 1) * hidden])
        wide.extend([0.0] * hidden)
    tensors["out.weight"] = ([outputs, 2 * hidden], wide)
    dense = tensors["l1.weight"][0][0]
    tensors["l1.weight"] = ([dense, 2 * hidden], tensors["l1.weight"][1])
    table, blob, offset = {}, b"", 0
    for name in sorted(tensors):
        shape, values = tensors[name]
        b = values.tobytes()
        table[name] = {"dtype": "F32", "shape": shape, "data_offsets": [offset, offset + len(b)]}
        offset, blob = offset + len(b), blob + b
    head = json.dumps(table, separators=(",", ":")).encode()
    head += b" " * (-len(head) % 8)
    out = struct.pack("<Q", len(head)) + head + blob
    os.makedirs(dst, exist_ok=True)
    open(os.path.join(dst, "model.safetensors"), "wb").write(out)
    manifest = json.load(open(os.path.join(src, "manifest.json")))
    manifest["shape"]["perspective"] = True
    manifest["weights_sha256"] = hashlib.sha256(out).hexdigest()
    manifest["name"] += "-zero-view"
    json.dump(manifest, open(os.path.join(dst, "manifest.json"), "w"), indent=2)


if __name__ == "__main__":
    main(*sys.argv[1:3])
