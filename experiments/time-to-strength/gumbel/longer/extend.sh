#!/usr/bin/env bash
# Resumes each run of LIST (as trials.sh named them, in OUT_DIR/runs) to MIN minutes in
# all, then measures its final against alphabeta:depth=2 again (vs-baseline-NAME-MIN.txt).
# Usage: MIN=14.5 extend.sh CONTAGION_BINARY OUT_DIR LIST   (after ../trials.sh with the same LIST)
set -euo pipefail
bin=$1 out=$2 list=$3 min=${MIN:?set MIN}
while IFS='|' read -r name sets; do
  [ -z "$name" ] && continue
  [ -f "$out/vs-baseline-$name-$min.txt" ] && continue
  args=()
  for s in $sets; do args+=(--set "$s"); done
  "$bin" train --config configs/infexion.toml --checkpoints "$out/runs" --quiet \
    --set run.name="$name" --set run.max_minutes="$min" "${args[@]}" >> "$out/train-$name.log" 2>&1
  "$bin" eval --game infexion --a "model:$out/runs/$name,sims=200" --b alphabeta:depth=2 \
    --games 100 --seed 1 --threads 2 --time-per-game 0 -q > "$out/vs-baseline-$name-$min.txt" 2>&1
  echo "$name at $min min: $(grep 'A overall' "$out/vs-baseline-$name-$min.txt")"
done < "$list"
