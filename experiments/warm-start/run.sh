#!/usr/bin/env bash
# A run of configs/GAME.toml that starts from the shipped model FROM (run.init) and trains
# MINUTES at the learning rate the shipped runs ended at (0.0002, decaying), every
# numbered checkpoint kept, with any further overrides given; then its final against
# FROM over 200 games at 200 simulations each (201 in Chexers: every seat of every
# opening, FROM in the other two), and over GAMES games at 100 ms a move (one thread
# each, two games at a time; GAMES = 0 skips it). A later --set overrides an earlier one.
# Usage: run.sh CONTAGION_BINARY OUT_DIR GAME FROM MINUTES GAMES [--set key=value ...]
#   run.sh target/release/contagion /tmp/warm ataxx ataxx-4x32-166min 60 100
#   run.sh target/release/contagion /tmp/warm infexion infexion-4x32-100min 40 40 --set selfplay.max_plies=0
#   run.sh target/release/contagion /tmp/warm chexers chexers-4x32-22min 45 0 \
#     --set baseline.spec=alphabeta:depth=2 --set selfplay.opponent=model:models/chexers-4x32-22min,sims=32
set -euo pipefail
bin=$1 out=$2 game=$3 from=$4 minutes=$5 games=$6
shift 6
name="$game-from-${from##*-}"
sims_games=200
[ "$game" = chexers ] && sims_games=201
"$(dirname "$0")/long.sh" "$bin" "$out" "$name" "$game" "models/$from" "$minutes" \
  --set train.learning_rate=0.0002 --set train.lr_min=0.00002 --set train.lr_decay_steps=80000 "$@"
"$bin" eval --game "$game" --a "model:$out/$name,sims=200" --b "model:models/$from,sims=200" \
  --games "$sims_games" --seed 1 --threads 2 --time-per-game 0 -q > "$out/$name-sims200.txt" 2>&1
[ "$games" -gt 0 ] || exit 0
"$bin" eval --game "$game" --a "model:$out/$name,sims=1000000" --b "model:models/$from,sims=1000000" \
  --movetime 100 --games "$games" --seed 1 --threads 2 --time-per-game 0 -q > "$out/$name-100ms.txt" 2>&1
