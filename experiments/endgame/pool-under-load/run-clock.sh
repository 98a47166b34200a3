#!/usr/bin/env bash
# The model agent as an external engine at `go movetime 100` on 2 threads, Ataxx, against
# alphabeta:depth=1 (which answers at once), with LOAD busy loops beside it; the harness
# (HARNESS eval) reports the slowest of the engine's moves, timed from sending `go` to
# reading `bestmove`.
# Usage: run-clock.sh HARNESS ENGINE GAMES LOAD SEED
set -euo pipefail
harness=$1 engine=$2 games=$3 load=$4 seed=$5
pids=()
for _ in $(seq 1 "$load"); do (while :; do :; done) & pids+=($!); done
trap 'kill "${pids[@]}" 2>/dev/null || true' EXIT
"$harness" eval --game ataxx --games "$games" --seed "$seed" --threads 1 --movetime 100 \
  --time-per-game 0 --quiet \
  --a "engine:$engine engine --game ataxx --agent model:models/ataxx,ms=100,threads=2" \
  --b "alphabeta:depth=1"
