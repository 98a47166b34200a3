#!/usr/bin/env bash
# ataxx-bundle-166min in this engine against the same bundle in the engine of 31b329f
# (OLD: a build of that commit), 100 ms a move, one thread each, 100 games from
# 2-ply random openings (seed 1), then python-ataxx referees every game.
set -euo pipefail
cd "$(dirname "$0")"
OLD="${OLD:-/tmp/old/contagion}"
../../../target/release/contagion eval --game ataxx \
  --a model:../../../models/ataxx-bundle-166min,sims=1000000 \
  --b "engine:$OLD engine --game ataxx --agent model:../../../models/ataxx-bundle-166min,sims=1000000" \
  --movetime 100 --games 100 --threads 1 --seed 1 --pgn games.pgn
