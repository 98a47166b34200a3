#!/usr/bin/env bash
# Self-play on bf16 (AMX tiles) against self-play on int8, on a CPU with AMX:
# configs/infexion.toml with Gumbel at 16 simulations (k = 8), seeds 1-4, each run
# stopped at 5.4 minutes, the two arms in turn. The bf16 arm runs as the code does there;
# CONTAGION_FORWARD=int8 puts the int8 arm's self-play (and its final's games against
# the baseline) on int8. Then gumbel/matches.sh BINARY OUT_DIR/runs DIR bf i8 plays the
# finals head to head on the default search. From the repository's root:
#   experiments/time-to-strength/amx-selfplay/ab.sh BINARY OUT_DIR
set -euo pipefail
bin=$1 out=$2
here=experiments/time-to-strength
mkdir -p "$out"
for s in 1 2 3 4; do
  grep "^bf-s$s|" "$here/amx-selfplay/bf16.txt" > "$out/one.txt"
  MIN=5.4 "$here/gumbel/trials.sh" "$bin" "$out" "$out/one.txt"
  grep "^i8-s$s|" "$here/int8-selfplay/int8.txt" > "$out/one.txt"
  CONTAGION_FORWARD=int8 MIN=5.4 "$here/gumbel/trials.sh" "$bin" "$out" "$out/one.txt"
done
