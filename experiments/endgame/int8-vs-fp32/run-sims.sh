#!/usr/bin/env bash
# One forward against another at a fixed number of simulations (so speed does not
# count, only the forward's numbers): the same engine and bundle (the game's current
# model), A with CONTAGION_FORWARD=A (int8 by default) and B with B (fp32), one thread
# each, THREADS games at once (2), 2-ply random openings, colours balanced.
#   run-sims.sh CONTAGION_BINARY GAMES [GAME [SIMS [SEED [A [B [THREADS]]]]]]
#   (ataxx, 400 simulations, seed 1, int8 against fp32, 2 games at once)
set -euo pipefail
bin=$1 games=$2 game=${3:-ataxx} sims=${4:-400} seed=${5:-1} a=${6:-int8} b=${7:-fp32}
threads=${8:-2}
model="model:models/$game,sims=$sims"
"$bin" eval --game "$game" --games "$games" --seed "$seed" --threads "$threads" --time-per-game 0 \
  --a "engine:env CONTAGION_FORWARD=$a $bin engine --game $game --agent $model" \
  --b "engine:env CONTAGION_FORWARD=$b $bin engine --game $game --agent $model"
