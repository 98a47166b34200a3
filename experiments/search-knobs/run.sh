#!/usr/bin/env bash
# A model's search setting against its default: MODEL with KNOB (a spec parameter such
# as cpuct=250 or fpu=25) against MODEL at the defaults, SIMS simulations each (or, with
# SIMS = 0, 100 ms a move, one thread each), GAMES games, 2-ply random openings,
# colours balanced, seed 1, THREADS games at a time.
#   run.sh CONTAGION_BINARY GAME MODEL KNOB SIMS GAMES [THREADS]
#   run.sh target/release/contagion ataxx models/ataxx-4x32-166min fpu=25 800 200 2
set -euo pipefail
bin=$1 game=$2 model=$3 knob=$4 sims=$5 games=$6 threads=${7:-2}
if [ "$sims" -gt 0 ]; then
  budget="sims=$sims" clock=()
else
  budget="sims=1000000" clock=(--movetime 100)
fi
"$bin" eval --game "$game" --a "model:$model,$budget,$knob" --b "model:$model,$budget" \
  "${clock[@]}" --games "$games" --seed 1 --threads "$threads" --time-per-game 0 -q
