"""Evaluates positions with a bundle, for comparison with the Rust engine.

    python -m czero.check BUNDLE POSITIONS OUT

``POSITIONS`` has one position per line, as the engine's ``position`` command takes it
(``startpos moves f2 a2``, or a notation); the game is the bundle's. ``OUT`` receives
JSON: for each position its notation, legal actions, policy logits and values, and
each auxiliary head's output by its key (flattened), plus timings.
"""

import json
import sys
import time

import numpy as np

from .games import Game
from .model import BundleError, Model


def main(argv):
    if len(argv) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    bundle, positions, out = argv
    try:
        model = Model(bundle)
    except BundleError as e:
        print(f"error: {e}", file=sys.stderr)
        return 1
    game = Game(model.manifest)
    with open(positions, encoding="utf-8") as f:
        states = [game.parse(line) for line in f if line.strip()]
    x = np.stack([s.encode() for s in states])
    t0 = time.perf_counter()
    outputs = model.outputs(x)
    logits, values = outputs["policy"], outputs["value"]
    aux = {k: v.reshape(len(x), -1) for k, v in outputs.items() if k not in ("policy", "value")}
    batch_seconds = time.perf_counter() - t0
    t0 = time.perf_counter()
    for row in x[:20]:
        model.forward(row[None])
    single_ms = (time.perf_counter() - t0) / min(20, len(x)) * 1000
    result = {
        "game": game.name,
        "positions": [
            {
                "notation": s.to_notation(),
                "legal": game.legal_actions(s),
                "logits": l.tolist(),
                "values": v.tolist(),
                "aux": {k: a[i].tolist() for k, a in aux.items()},
            }
            for i, (s, l, v) in enumerate(zip(states, logits, values))
        ],
        "batch_seconds": batch_seconds,
        "single_forward_ms": single_ms,
    }
    with open(out, "w", encoding="utf-8") as f:
        json.dump(result, f)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
