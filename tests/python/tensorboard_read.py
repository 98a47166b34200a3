"""Reads a run's TensorBoard event files with TensorBoard's own reader (tests/suite/tensorboard.rs).

    python tensorboard_read.py RUN_DIR/tensorboard OUT.json

OUT.json: every scalar tag and its events as [step, value] pairs, in the order the
reader returns them.
"""

import json
import sys

from tensorboard.backend.event_processing.event_accumulator import EventAccumulator


def main():
    directory, out = sys.argv[1], sys.argv[2]
    acc = EventAccumulator(directory, size_guidance={"scalars": 0})
    acc.Reload()
    scalars = {tag: [[e.step, e.value] for e in acc.Scalars(tag)] for tag in acc.Tags()["scalars"]}
    json.dump(scalars, open(out, "w"))


if __name__ == "__main__":
    main()
