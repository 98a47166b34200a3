#!/usr/bin/env bash
# The int8 forward against the float one at a fixed number of simulations (so speed does
# not count, only the forward's numbers): the same engine and bundle (the game's current
# model), one with CONTAGION_FORWARD=int8, one thread each, two games at once, 2-ply
# random openings, colours balanced.
#   run-sims.sh CONTAGION_BINARY GAMES [GAME [SIMS [SEED]]]   (ataxx, 400 simulations, seed 1)
set -euo pipefail
bin=$1 games=$2 game=${3:-ataxx} sims=${4:-400} seed=${5:-1}
model="model:models/$game,sims=$sims"
"$bin" eval --game "$game" --games "$games" --seed "$seed" --threads 2 --time-per-game 0 \
  --a "engine:env CONTAGION_FORWARD=int8 $bin engine --game $game --agent $model" \
  --b "engine:$bin engine --game $game --agent $model"
