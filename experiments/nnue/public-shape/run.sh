#!/usr/bin/env bash
# The two shapes trained on the same data, then matched (experiments/nnue/README.md,
# "Streaming and the public shape"). DATA: the player's own games, made by
#   contagion distill --config configs/ataxx-nnue.toml --generate --player nnue:models/ataxx,nodes=5000 \
#     --set distill.games=60000 --set distill.opening_filter=0.3 --set distill.adjudicate=0.95 --out DATA
set -euo pipefail
cd "$(dirname "$0")"
bin=${BIN:-../../../target/release/contagion}
data=${DATA:-/work/runs/ataxx-own}
out=${OUT:-/work/runs/public-shape}
mkdir -p "$out"
train() { # name, then --set pairs
  local name=$1; shift
  "$bin" distill --config train.toml --data "$data" --quiet --out "$out/$name" "$@" | tee "$name.log"
}
train ours --set distill.features=encoding-set+2x2 --set distill.dense=32 --set distill.activation=crelu
train public --set distill.features=2x2 --set distill.dense=0 --set distill.activation=screlu
match() { # file, a, b
  "$bin" eval --game ataxx --a "$2" --b "$3" --games 100 --opening-plies 2 --seed 1 --threads 2 \
    --time-per-game 0 | tee "$1"
}
match public-vs-ours-20k.txt "nnue:$out/public,nodes=20000" "nnue:$out/ours,nodes=20000"
match public-vs-ours-100ms.txt "nnue:$out/public,ms=100" "nnue:$out/ours,ms=100"
