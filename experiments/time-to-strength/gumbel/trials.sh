#!/usr/bin/env bash
# Runs ../run.sh once a line of LIST (`NAME|key=value key=value ...`, overrides of
# configs/GAME.toml), each stopped at MIN minutes (5.4 by default: the AMD EPYC's 3 minutes
# on the 2-core Intel Xeon) and measured against BASELINE, skipping those already measured.
# With RESUME=1 each run is resumed to MIN minutes in all and measured again.
# Usage: [GAME=infexion] [BASELINE=alphabeta:depth=2] [RESUME=1] MIN=5.4 trials.sh CONTAGION_BINARY OUT_DIR LIST
set -euo pipefail
bin=$1 out=$2 list=$3 min=${MIN:-5.4}
here=$(dirname "$0")
while IFS='|' read -r name sets; do
  [ -z "$name" ] && continue
  result="$out/vs-baseline-$name${RESUME:+-$min}.txt"
  [ -f "$result" ] && continue
  args=()
  for s in $sets; do args+=(--set "$s"); done
  "$here/../run.sh" "$bin" "$out" "$name" "${GAME:-infexion}" "$min" \
    "${BASELINE:-alphabeta:depth=2}" "${args[@]}" > /dev/null
  echo "$name${RESUME:+ at $min min}: $(grep 'A overall' "$result")"
done < "$list"
