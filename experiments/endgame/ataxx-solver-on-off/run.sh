#!/usr/bin/env bash
# What the endgame solver adds: ataxx-bundle-166min in this engine with the solver (the
# default) against the same engine with it off (../no-endgame.sh), 100 ms a move, one
# thread each, 100 games from 2-ply random openings (seed 1).
set -euo pipefail
cd "$(dirname "$0")"
root="$(cd ../../.. && pwd)"
model="$root/models/ataxx-bundle-166min,sims=1000000"
"$root/target/release/contagion" eval --game ataxx --a "model:$model" \
  --b "engine:$root/experiments/endgame/no-endgame.sh --game ataxx --agent model:$model" \
  --movetime 100 --games 100 --threads 1 --seed 1 --pgn games.pgn | tee result.txt
