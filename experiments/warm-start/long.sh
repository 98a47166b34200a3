#!/usr/bin/env bash
# A run of configs/GAME.toml that starts from a network (run.init: a bundle, checkpoint or
# run directory) and trains MINUTES in all, every numbered checkpoint kept, with the
# overrides given. Run it again with the same arguments to resume where it stopped: the
# run keeps its own config, the minutes count the earlier sittings.
# Usage: long.sh CONTAGION_BINARY OUT_DIR NAME GAME INIT MINUTES [--set key=value ...]
#   long.sh target/release/contagion /tmp/long ataxx-from-301min ataxx \
#     experiments/warm-start/ataxx-from-226min/best.ckpt 110 --set mcts.simulations=96
set -euo pipefail
bin=$1 out=$2 name=$3 game=$4 init=$5 minutes=$6
shift 6
mkdir -p "$out"
"$bin" train --config "configs/$game.toml" --checkpoints "$out" --quiet \
  --set run.name="$name" --set run.init="$init" --set run.max_minutes="$minutes" \
  --set run.iterations=100000 --set run.keep_checkpoints=1000 \
  --set baseline.every=100 --set baseline.spec=alphabeta:depth=4 "$@" >> "$out/$name.log" 2>&1
