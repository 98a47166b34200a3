#!/usr/bin/env bash
# What the endgame solver adds: ataxx-bundle-166min with the engine's `Endgame` option on
# against the same with it off, 100 ms a move, one thread each, 100 games from 2-ply
# random openings (seed 1). (The recorded run, at commit fffcc27, played the solver's
# side in-process, where it was then the default; the other side as this script's B.)
set -euo pipefail
cd "$(dirname "$0")"
root="$(cd ../../.. && pwd)"
model="$root/models/ataxx-bundle-166min,sims=1000000"
with="$root/experiments/endgame/engine-with.sh"
"$root/target/release/contagion" eval --game ataxx \
  --a "engine:$with Endgame 1 --game ataxx --agent model:$model" \
  --b "engine:$with Endgame 0 --game ataxx --agent model:$model" \
  --movetime 100 --games 100 --threads 1 --seed 1 --pgn games.pgn | tee result.txt
