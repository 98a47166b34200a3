#!/usr/bin/env bash
# One forward against another at equal time: the same engine and bundle (the game's
# current model), A with CONTAGION_FORWARD=A (int8 by default) and B with B (fp32),
# 100 ms a move, one thread each, two games at once (2 cores), 2-ply random openings,
# colours balanced.
#   run.sh CONTAGION_BINARY GAMES [GAME [SEED [A [B]]]]   (ataxx, seed 1, int8 against fp32)
set -euo pipefail
bin=$1 games=$2 game=${3:-ataxx} seed=${4:-1} a=${5:-int8} b=${6:-fp32}
model="model:models/$game,ms=100"
"$bin" eval --game "$game" --games "$games" --seed "$seed" --threads 2 --time-per-game 0 \
  --a "engine:env CONTAGION_FORWARD=$a $bin engine --game $game --agent $model" \
  --b "engine:env CONTAGION_FORWARD=$b $bin engine --game $game --agent $model"
