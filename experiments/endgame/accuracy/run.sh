#!/usr/bin/env bash
# How often the move played at 100 ms keeps the exact result, on the endgames (1 to SIZE
# empty squares, POSITIONS positions each) of the games in ../ataxx-vs-31b329f/games.pgn,
# for each agent spec given (default: this engine's model agent; the engine of 31b329f is
# "engine:OLD engine --game ataxx --agent model:MODEL,sims=1000000"). A position counts
# when the solver proves its result within EXACT_MS.
# Usage: [BIN=contagion] [SIZE=6] [POSITIONS=20] [EXACT_MS=3000] run.sh [AGENT ...]
set -euo pipefail
cd "$(dirname "$0")"
BIN="${BIN:-../../../target/release/contagion}"
MODEL=../../../models/ataxx-4x32-166min
for agent in "${@:-model:$MODEL,sims=1000000}"; do
  "$BIN" bench --game ataxx endgame --pgn ../ataxx-vs-31b329f/games.pgn --size "${SIZE:-6}" \
    --positions "${POSITIONS:-20}" --ms 100 --exact-ms "${EXACT_MS:-3000}" --agent "$agent"
done
