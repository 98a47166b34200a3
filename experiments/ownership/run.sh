#!/usr/bin/env bash
# The ownership head, A/B: two runs of configs/GAME.toml (its own minutes, 2 workers),
# one after the other, that differ only in train.ownership_weight (0, and KataGo's 1.5);
# then their finals matched over 200 games at 200 simulations, and each final against
# BASELINE over 100 games.
# Usage: run.sh CONTAGION_BINARY OUT_DIR [GAME [BASELINE]]
#   (GAME: ataxx, the default, or infexion; BASELINE: alphabeta:depth=3 for Ataxx,
#   alphabeta:depth=2 for Infexion)
set -euo pipefail
bin=$1 out=$2 game=${3:-ataxx}
baseline=${4:-$([ "$game" = ataxx ] && echo alphabeta:depth=3 || echo alphabeta:depth=2)}
mkdir -p "$out"
for w in 0 1.5; do
  "$bin" train --config "configs/$game.toml" --checkpoints "$out/runs" --quiet \
    --set run.name="owner-$w" --set train.ownership_weight="$w" > "$out/train-owner-$w.log" 2>&1
done
"$bin" eval --game "$game" --a "model:$out/runs/owner-1.5,sims=200" --b "model:$out/runs/owner-0,sims=200" \
  --games 200 --seed 1 --threads 2 --time-per-game 0 > "$out/match.txt" 2>&1
for w in 0 1.5; do
  "$bin" eval --game "$game" --a "model:$out/runs/owner-$w,sims=200" --b "$baseline" \
    --games 100 --seed 1 --threads 2 --time-per-game 0 > "$out/vs-baseline-owner-$w.txt" 2>&1
done
