#!/usr/bin/env bash
# Each seed's Gumbel final against its PUCT final: 200 games at 200 simulations each.
# Usage: matches.sh CONTAGION_BINARY RUNS_DIR OUT_DIR
set -euo pipefail
bin=$1 runs=$2 out=$3
for s in 1 2 3 4; do
  "$bin" eval --game infexion --a "model:$runs/gum16-s$s,sims=200" \
    --b "model:$runs/ctl-s$s,sims=200" --games 200 --seed 1 --threads 2 \
    --time-per-game 0 -q > "$out/match-gum16-vs-ctl-s$s.txt" 2>&1
done
