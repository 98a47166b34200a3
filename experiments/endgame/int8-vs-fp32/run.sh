#!/usr/bin/env bash
# The int8 forward against the float one at equal time: the same engine and bundle (the
# game's current model), one with CONTAGION_FORWARD=int8, 100 ms a move, one thread each,
# two games at once (2 cores), 2-ply random openings, colours balanced.
#   run.sh CONTAGION_BINARY GAMES [GAME [SEED]]     (GAME: ataxx by default, SEED: 1)
set -euo pipefail
bin=$1 games=$2 game=${3:-ataxx} seed=${4:-1}
model="model:models/$game,ms=100"
"$bin" eval --game "$game" --games "$games" --seed "$seed" --threads 2 --time-per-game 0 \
  --a "engine:env CONTAGION_FORWARD=int8 $bin engine --game $game --agent $model" \
  --b "engine:$bin engine --game $game --agent $model"
