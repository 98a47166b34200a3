#!/usr/bin/env bash
# BUNDLE in this engine against the same bundle in the engine of 31b329f (OLD: a build
# of that commit), 100 ms a move, one thread each, GAMES games of GAME from 2-ply random
# openings (seed 1); the report and the games go to DIR (result.txt, games.pgn), and for
# Ataxx python-ataxx referees every game (referee.txt; needs the tests' venv).
#   OLD=/path/to/old/contagion ./match.sh ataxx ataxx-bundle-166min 100 ataxx-vs-31b329f-2
set -euo pipefail
cd "$(dirname "$0")"
game="${1:?usage: match.sh GAME BUNDLE GAMES DIR}" bundle="$2" games="$3" dir="$4"
OLD="${OLD:-/tmp/old/contagion}"
root="$(cd ../.. && pwd)"
model="$root/models/$bundle"
mkdir -p "$dir"
"$root/target/release/contagion" eval --game "$game" --a "model:$model,sims=1000000" \
  --b "engine:$OLD engine --game $game --agent model:$model,sims=1000000" \
  --movetime 100 --games "$games" --threads 1 --seed 1 --pgn "$dir/games.pgn" | tee "$dir/result.txt"
if [ "$game" = ataxx ]; then
  {
    echo "the old engine's results (ours are their reverse):"
    "$root/target/test-python/venv/bin/python" "$root/bench/ataxx/referee.py" "$dir/games.pgn" "engine:$OLD"
  } | tee "$dir/referee.txt"
fi
