#!/usr/bin/env bash
# The model agent on 2 threads at `go movetime 100`, on a persistent pool (commit
# 1e24e5d) against the same agent with scoped threads (commit 3d7cea6), Ataxx, both as
# external engines, with two busy loops beside them (LOAD=2) or none (LOAD=0).
# Usage: run.sh POOL_BINARY PREPOOL_BINARY GAMES LOAD
set -euo pipefail
pool=$1 prepool=$2 games=$3 load=$4
pids=()
for _ in $(seq 1 "$load"); do (while :; do :; done) & pids+=($!); done
trap 'kill "${pids[@]}" 2>/dev/null || true' EXIT
"$pool" eval --game ataxx --games "$games" --seed 1 --threads 1 --movetime 100 --time-per-game 0 \
  --a "engine:$pool engine --game ataxx --agent model:models/ataxx,ms=100,threads=2" \
  --b "engine:$prepool engine --game ataxx --agent model:models/ataxx,ms=100,threads=2"
