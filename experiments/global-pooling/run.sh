#!/usr/bin/env bash
# Global pooling, A/B: for each seed, a run of configs/GAME.toml (the control) and the same
# run with network.global_pool = true, MINUTES each, one after the other on the 2 cores;
# then each pair's finals matched over 200 games at 200 simulations, and each final
# against BASELINE over 100 games.
# Usage: run.sh CONTAGION_BINARY OUT_DIR GAME MINUTES BASELINE SEED...
# A run already trained (OUT_DIR/runs/NAME/trained) is not trained again, nor a match whose result
# is already there played again.
set -euo pipefail
bin=$1 out=$2 game=$3 minutes=$4 baseline=$5
shift 5
mkdir -p "$out/runs"
for seed in "$@"; do
  for arm in control pool; do
    name=$game-$arm-s$seed
    [ -e "$out/runs/$name/trained" ] && continue
    extra=()
    [ "$arm" = pool ] && extra=(--set network.global_pool=true)
    "$bin" train --config "configs/$game.toml" --checkpoints "$out/runs" --quiet --fresh \
      --set run.name="$name" --set run.seed="$seed" --set run.max_minutes="$minutes" \
      "${extra[@]}" > "$out/train-$name.log" 2>&1
    touch "$out/runs/$name/trained"
  done
done
for seed in "$@"; do
  match=$out/match-$game-s$seed.txt
  [ -e "$match" ] || "$bin" eval --game "$game" \
    --a "model:$out/runs/$game-pool-s$seed,sims=200" --b "model:$out/runs/$game-control-s$seed,sims=200" \
    --games 200 --seed 1 --threads 2 --time-per-game 0 > "$match" 2>&1
  for arm in control pool; do
    vs=$out/vs-baseline-$game-$arm-s$seed.txt
    [ -e "$vs" ] || "$bin" eval --game "$game" --a "model:$out/runs/$game-$arm-s$seed,sims=200" \
      --b "$baseline" --games 100 --seed 1 --threads 2 --time-per-game 0 > "$vs" 2>&1
  done
done
