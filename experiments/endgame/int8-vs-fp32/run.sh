#!/usr/bin/env bash
# The int8 forward against the float one at equal time: the same engine and bundle, one
# with CONTAGION_FORWARD=int8, Ataxx, 100 ms a move, one thread each, two games at once
# (2 cores), 2-ply random openings, colours balanced.
#   run.sh CONTAGION_BINARY GAMES
set -euo pipefail
bin=$1 games=$2
model="model:models/ataxx,ms=100"
"$bin" eval --game ataxx --games "$games" --seed 1 --threads 2 --time-per-game 0 \
  --a "engine:env CONTAGION_FORWARD=int8 $bin engine --game ataxx --agent $model" \
  --b "engine:$bin engine --game ataxx --agent $model"
