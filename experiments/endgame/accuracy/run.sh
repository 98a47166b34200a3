#!/usr/bin/env bash
# How often the move played at 100 ms keeps the exact result, on the endgames (1 to 6
# empty squares, 20 positions each) of the games in ../ataxx-vs-31b329f/games.pgn, for
# each agent spec given (default: this engine's model agent; the engine of 31b329f is
# "engine:OLD engine --game ataxx --agent model:MODEL,sims=1000000"). A position counts
# when the solver proves its result within 3 s.
set -euo pipefail
cd "$(dirname "$0")"
OLD="${OLD:-/tmp/old/contagion}"
BIN=../../../target/release/contagion
MODEL=../../../models/ataxx-bundle-166min
for agent in "${@:-model:$MODEL,sims=1000000}"; do
  "$BIN" bench --game ataxx endgame --pgn ../ataxx-vs-31b329f/games.pgn --size 6 --positions 20 \
    --ms 100 --exact-ms 3000 --agent "$agent"
done
