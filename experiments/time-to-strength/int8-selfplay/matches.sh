#!/usr/bin/env bash
# Each seed's int8-self-play final against its fp32-self-play final: 200 games at 200 simulations each.
# Usage: matches.sh CONTAGION_BINARY RUNS_DIR OUT_DIR
set -euo pipefail
bin=$1 runs=$2 out=$3
for s in 1 2 3 4; do
  "$bin" eval --game infexion --a "model:$runs/i8-s$s,sims=200" \
    --b "model:$runs/f32-s$s,sims=200" --games 200 --seed 1 --threads 2 \
    --time-per-game 0 -q > "$out/match-i8-vs-f32-s$s.txt" 2>&1
done
