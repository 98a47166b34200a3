#!/usr/bin/env bash
# Runs ../run.sh once a line of LIST (`NAME|key=value key=value ...`, overrides of
# configs/infexion.toml), each stopped at MIN minutes (5.4 by default: the AMD EPYC's 3
# minutes on the 2-core Intel Xeon), skipping those already measured.
# Usage: MIN=5.4 trials.sh CONTAGION_BINARY OUT_DIR LIST
set -euo pipefail
bin=$1 out=$2 list=$3
here=$(dirname "$0")
while IFS='|' read -r name sets; do
  [ -z "$name" ] && continue
  [ -f "$out/vs-baseline-$name.txt" ] && continue
  args=()
  for s in $sets; do args+=(--set "$s"); done
  "$here/../run.sh" "$bin" "$out" "$name" infexion "${MIN:-5.4}" alphabeta:depth=2 "${args[@]}"
  echo "$name: $(grep 'A overall' "$out/vs-baseline-$name.txt")"
done < "$list"
