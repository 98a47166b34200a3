#!/usr/bin/env bash
# What the endgame solver adds: ataxx-4x32-166min with the engine's `Endgame` option on
# against the same with it off, 100 ms a move, one thread each, 100 games from 2-ply
# random openings (seed 1), GAMES_AT_ONCE at a time (1 by default), the games and the
# report into DIR (this folder by default). (The first recorded run, at commit fffcc27,
# played the solver's side in-process, where it was then the default.)
# Usage: [GAMES_AT_ONCE=1] run.sh [DIR]
set -euo pipefail
cd "$(dirname "$0")"
root="$(cd ../../.. && pwd)"
dir="${1:-.}"
mkdir -p "$dir"
model="$root/models/ataxx-4x32-166min,sims=1000000"
with="$root/experiments/endgame/engine-with.sh"
"$root/target/release/contagion" eval --game ataxx \
  --a "engine:$with Endgame 1 --game ataxx --agent model:$model" \
  --b "engine:$with Endgame 0 --game ataxx --agent model:$model" \
  --movetime 100 --games 100 --threads "${GAMES_AT_ONCE:-1}" --seed 1 --pgn "$dir/games.pgn" |
  tee "$dir/result.txt"
