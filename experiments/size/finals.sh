#!/usr/bin/env bash
# The size study's finals: the two runs' final networks (every network is promoted, so
# best.ckpt is the last) over 200 games at 200 simulations each, then 100 games at 100 ms
# a move each, one thread each, two games at a time.
# Usage: finals.sh CONTAGION_BINARY OUT_DIR SIZE_A SIZE_B   (finals.sh BIN /work/runs/size 6x48 4x32)
set -euo pipefail
bin=$1 out=$2 a=$3 b=$4
"$bin" eval --game ataxx --a "model:$out/ataxx-$a,sims=200" --b "model:$out/ataxx-$b,sims=200" \
  --games 200 --seed 1 --threads 2 --time-per-game 0 | tee "$out/sims200-$a-vs-$b.txt"
"$bin" eval --game ataxx --a "model:$out/ataxx-$a,sims=1000000,ms=100" \
  --b "model:$out/ataxx-$b,sims=1000000,ms=100" \
  --games 100 --seed 1 --threads 2 --time-per-game 0 | tee "$out/ms100-$a-vs-$b.txt"
