#!/usr/bin/env bash
# Time to strength: one run of configs/GAME.toml stopped at MINUTES (with the overrides
# given), then its final against BASELINE over 100 games at 200 simulations.
# Usage: run.sh CONTAGION_BINARY OUT_DIR NAME GAME MINUTES BASELINE [--set key=value ...]
set -euo pipefail
bin=$1 out=$2 name=$3 game=$4 minutes=$5 baseline=$6
shift 6
mkdir -p "$out/runs"
"$bin" train --config "configs/$game.toml" --checkpoints "$out/runs" --quiet --fresh \
  --set run.name="$name" --set run.max_minutes="$minutes" "$@" > "$out/train-$name.log" 2>&1
"$bin" eval --game "$game" --a "model:$out/runs/$name,sims=200" --b "$baseline" \
  --games 100 --seed 1 --threads 2 --time-per-game 0 -q > "$out/vs-baseline-$name.txt" 2>&1
