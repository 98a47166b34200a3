#!/usr/bin/env bash
# Playout caps late in a run: two forks of one network trained side by side for MINUTES,
# one worker and one training thread each, that differ only in the self-play search:
# `control` as the network was trained (PUCT, 48 simulations a move), `caps` with
# playout-cap randomisation (a quarter of the moves searched with 192 simulations and
# trained on, the rest with 32 and not). Then each final against the other and against
# ANCHOR, 200 games at 200 simulations each. Run it again to resume both and re-measure.
# Usage: run.sh CONTAGION_BINARY OUT_DIR INIT ANCHOR MINUTES [--set key=value ...]
#   run.sh target/release/contagion /tmp/caps \
#     experiments/size/ataxx-grow-6x48/ckpt-000700.ckpt models/ataxx-4x32-166min 60 \
#     --set network.blocks=6 --set network.channels=48
set -euo pipefail
bin=$1 out=$2 init=$3 anchor=$4 minutes=$5
shift 5
long=$(dirname "$0")/../warm-start/long.sh
common=(--set selfplay.workers=1 --set train.threads=1 --set train.learning_rate=0.0001
  --set train.lr_min=0.00003 --set train.lr_decay_steps=10000 "$@")
"$long" "$bin" "$out" control ataxx "$init" "$minutes" "${common[@]}" &
"$long" "$bin" "$out" caps ataxx "$init" "$minutes" "${common[@]}" \
  --set mcts.simulations=192 --set mcts.full_search_fraction=0.25 --set mcts.fast_simulations=32 &
wait
match() {
  "$bin" eval --game ataxx --a "model:$out/$1,sims=200" --b "model:$2,sims=200" \
    --games 200 --seed 1 --threads 2 --time-per-game 0 -q > "$out/$3" 2>&1
  echo "$3: $(grep 'A overall' "$out/$3")"
}
match caps "$out/control" caps-vs-control-$minutes.txt
match caps "$anchor" caps-vs-anchor-$minutes.txt
match control "$anchor" control-vs-anchor-$minutes.txt
