#!/usr/bin/env bash
# Each seed's final of one arm against the other's (by default Gumbel's against PUCT's):
# 200 games at 200 simulations each, seeds 1-4; the runs are RUNS_DIR/A-sN and B-sN.
# Usage: matches.sh CONTAGION_BINARY RUNS_DIR OUT_DIR [A B]   (A, B: gum16 ctl by default)
set -euo pipefail
bin=$1 runs=$2 out=$3 a=${4:-gum16} b=${5:-ctl}
for s in 1 2 3 4; do
  "$bin" eval --game infexion --a "model:$runs/$a-s$s,sims=200" \
    --b "model:$runs/$b-s$s,sims=200" --games 200 --seed 1 --threads 2 \
    --time-per-game 0 -q > "$out/match-$a-vs-$b-s$s.txt" 2>&1
done
