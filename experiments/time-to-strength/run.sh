#!/usr/bin/env bash
# Time to strength: one run of configs/GAME.toml stopped at MINUTES (with the overrides
# given), then its final against BASELINE over GAMES games (default 100) at 200
# simulations (vs-baseline-NAME.txt). With RESUME=1 the run OUT_DIR/runs/NAME is resumed to MINUTES in
# all instead of started afresh, and its final measured into vs-baseline-NAME-MINUTES.txt.
# Usage: [RESUME=1] run.sh CONTAGION_BINARY OUT_DIR NAME GAME MINUTES BASELINE [--set key=value ...]
set -euo pipefail
bin=$1 out=$2 name=$3 game=$4 minutes=$5 baseline=$6
shift 6
mkdir -p "$out/runs"
if [ -n "${RESUME:-}" ]; then
  fresh=() result="$out/vs-baseline-$name-$minutes.txt"
else
  fresh=(--fresh) result="$out/vs-baseline-$name.txt"
  : > "$out/train-$name.log"
fi
"$bin" train --config "configs/$game.toml" --checkpoints "$out/runs" --quiet "${fresh[@]}" \
  --set run.name="$name" --set run.max_minutes="$minutes" "$@" >> "$out/train-$name.log" 2>&1
"$bin" eval --game "$game" --a "model:$out/runs/$name,sims=200" --b "$baseline" \
  --games "${GAMES:-100}" --seed 1 --threads 2 --time-per-game 0 -q > "$result" 2>&1
echo "$result"
