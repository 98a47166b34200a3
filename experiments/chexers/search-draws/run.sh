#!/usr/bin/env bash
# Draws priced in the self-play search: configs/chexers.toml for MINUTES (default 22),
# once as it is (control) and once with mcts.draw_value = -0.5 (draws), one after the
# other on 2 workers; then, 201 games at 200 simulations each (every seat, --seed 1):
# each final against two chexers-4x32-22min at contempt 0 and at contempt 35, each in one
# seat at contempt 35 against two of the other, and (99 games) against two
# alphabeta:depth=2. Run from the repository's root.
# Usage: run.sh CONTAGION_BINARY OUT_DIR [MINUTES]
set -euo pipefail
bin=$1 out=$2 minutes=${3:-22}
here=$(dirname "$0")
shipped="model:models/chexers-4x32-22min,sims=200"
GAMES=201 "$here/../../time-to-strength/run.sh" "$bin" "$out" control chexers "$minutes" "$shipped"
GAMES=201 "$here/../../time-to-strength/run.sh" "$bin" "$out" draws chexers "$minutes" "$shipped" \
  --set mcts.draw_value=-0.5
match() {
  "$bin" eval --game chexers --a "$1" --b "$2" --games "${4:-201}" --seed 1 --threads 2 \
    --time-per-game 0 -q > "$out/$3.txt" 2>&1
}
runs=$out/runs
match "model:$runs/control,sims=200,contempt=35" "$shipped" control-c35-vs-22min
match "model:$runs/draws,sims=200,contempt=35" "$shipped" draws-c35-vs-22min
match "model:$runs/draws,sims=200,contempt=35" "model:$runs/control,sims=200" draws-c35-vs-control
match "model:$runs/control,sims=200,contempt=35" "model:$runs/draws,sims=200" control-c35-vs-draws
match "model:$runs/draws,sims=200" "model:$runs/control,sims=200" draws-vs-control
for arm in control draws; do
  match "model:$runs/$arm,sims=200" alphabeta:depth=2 "$arm-vs-alphabeta2" 99
done
