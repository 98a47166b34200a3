#!/usr/bin/env bash
# Forced playouts and policy target pruning, A/B: two 8-minute Infexion runs of
# configs/infexion.toml on 2 workers, one after the other, that differ only in
# mcts.forced_playouts (0 and KataGo's 2); then their finals matched over 200 games at
# 200 simulations. Usage: run.sh CONTAGION_BINARY OUT_DIR
set -euo pipefail
bin=$1 out=$2
mkdir -p "$out"
for k in 0 2; do
  "$bin" train --config configs/infexion.toml --checkpoints "$out/runs" --quiet \
    --set run.name="forced-$k" --set mcts.forced_playouts="$k" > "$out/train-forced-$k.log" 2>&1
done
"$bin" eval --a "model:$out/runs/forced-2,sims=200" --b "model:$out/runs/forced-0,sims=200" \
  --games 200 --seed 1 --threads 2 --time-per-game 0 > "$out/match.txt" 2>&1
