#!/usr/bin/env bash
# Self-play on int8 against self-play in floats: configs/infexion.toml with Gumbel at 16
# simulations (k = 8), seeds 1-4, each run stopped at 5.4 minutes, the two arms in turn.
# BINARY: a build of commit 585a6c4, whose self-play searched in floats and its model
# agents on int8; CONTAGION_FORWARD=int8 puts the int8 arm's self-play on int8 too, and
# both arms measure their finals on the same int8 search. From the repository's root:
#   experiments/time-to-strength/int8-selfplay/ab.sh BINARY OUT_DIR
set -euo pipefail
bin=$1 out=$2
here=experiments/time-to-strength/int8-selfplay
for s in 1 2 3 4; do
  grep "^i8-s$s|" "$here/int8.txt" > "$out/one.txt"
  CONTAGION_FORWARD=int8 MIN=5.4 experiments/time-to-strength/gumbel/trials.sh "$bin" "$out" "$out/one.txt"
  grep "^f32-s$s|" "$here/fp32.txt" > "$out/one.txt"
  MIN=5.4 experiments/time-to-strength/gumbel/trials.sh "$bin" "$out" "$out/one.txt"
done
