#!/usr/bin/env bash
# The ownership head, A/B: two 10-minute Ataxx runs of configs/ataxx.toml on 2 workers,
# one after the other, that differ only in train.ownership_weight (0, and KataGo's 1.5);
# then their finals matched over 200 games at 200 simulations, and each final against
# alphabeta:depth=3 over 100 games. Usage: run.sh CONTAGION_BINARY OUT_DIR
set -euo pipefail
bin=$1 out=$2
mkdir -p "$out"
for w in 0 1.5; do
  "$bin" train --config configs/ataxx.toml --checkpoints "$out/runs" --quiet \
    --set run.name="owner-$w" --set train.ownership_weight="$w" > "$out/train-owner-$w.log" 2>&1
done
"$bin" eval --game ataxx --a "model:$out/runs/owner-1.5,sims=200" --b "model:$out/runs/owner-0,sims=200" \
  --games 200 --seed 1 --threads 2 --time-per-game 0 > "$out/match.txt" 2>&1
for w in 0 1.5; do
  "$bin" eval --game ataxx --a "model:$out/runs/owner-$w,sims=200" --b alphabeta:depth=3 \
    --games 100 --seed 1 --threads 2 --time-per-game 0 > "$out/vs-alphabeta3-owner-$w.txt" 2>&1
done
