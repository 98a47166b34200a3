"""A reader for the safetensors format (float32 tensors only), with numpy alone.

Layout: an 8-byte little-endian header length ``n``; ``n`` bytes of JSON mapping each
tensor name to ``{"dtype", "shape", "data_offsets": [begin, end]}`` (offsets into the
data section; ``__metadata__`` is skipped); then the data, little-endian, row-major.
"""

import json
import struct

import numpy as np


class SafetensorsError(ValueError):
    """The file is not a valid float32 safetensors file."""


def load(path):
    """Returns ``{name: np.ndarray(float32)}`` for the file at ``path``."""
    with open(path, "rb") as f:
        raw = f.read()
    return parse(raw)


def parse(raw):
    if len(raw) < 8:
        raise SafetensorsError("truncated: no header")
    (n,) = struct.unpack("<Q", raw[:8])
    if n > len(raw) - 8:
        raise SafetensorsError(f"truncated: the header claims {n} bytes")
    try:
        header = json.loads(raw[8 : 8 + n])
    except ValueError as e:
        raise SafetensorsError(f"the header is not JSON: {e}") from None
    data = memoryview(raw)[8 + n :]
    tensors = {}
    for name, entry in header.items():
        if name == "__metadata__":
            continue
        if entry.get("dtype") != "F32":
            raise SafetensorsError(f"tensor '{name}': dtype {entry.get('dtype')}, expected F32")
        shape = tuple(entry["shape"])
        begin, end = entry["data_offsets"]
        count = int(np.prod(shape, dtype=np.int64))
        if not 0 <= begin <= end <= len(data) or end - begin != 4 * count:
            raise SafetensorsError(f"tensor '{name}': bad data offsets {begin}..{end}")
        tensors[name] = np.frombuffer(data[begin:end], dtype="<f4").reshape(shape).copy()
    return tensors
