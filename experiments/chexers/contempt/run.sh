#!/usr/bin/env bash
# Contempt in Chexers: MODEL at 200 simulations with contempt=C (a draw by the rules
# scored -C/100 for every seat in its search) in one seat against two copies of
# models/chexers-4x32-22min at 200 simulations (contempt 0), 201 games over every
# seating, seed 1, for each C given (default: 0 20 35 50 70 100); one file per C.
# Usage: run.sh CONTAGION_BINARY OUT_DIR [MODEL [C ...]]
#   run.sh target/release/contagion experiments/chexers/contempt
set -euo pipefail
bin=$1 out=$2 model=${3:-models/chexers-4x32-22min}
shift $(( $# < 3 ? $# : 3 ))
levels=${*:-0 20 35 50 70 100}
mkdir -p "$out"
for c in $levels; do
  "$bin" eval --game chexers --a "model:$model,sims=200,contempt=$c" \
    --b "model:models/chexers-4x32-22min,sims=200" --games 201 --seed 1 --threads 1 \
    --time-per-game 0 -q > "$out/$(basename "$model")-contempt$c.txt" 2>&1
done
