#!/usr/bin/env bash
# The perspective form against the public engines' shape it extends, at equal data
# (experiments/nnue/README.md, "The perspective form"). DATA: the player's own games, made by
#   contagion distill --config configs/ataxx-nnue.toml --generate --player nnue:models/ataxx,nodes=5000 \
#     --set distill.games=8000 --set distill.opening_filter=0.3 --set distill.adjudicate=0.95 --out DATA
# Each arm trains to ../public-shape/train.toml's recipe, its shape on the command line.
set -euo pipefail
cd "$(dirname "$0")"
bin=${BIN:-../../../target/release/contagion}
data=${DATA:-/work/runs/ataxx-own}
out=${OUT:-/work/runs/perspective}
mkdir -p "$out"
train() { # name, then --set pairs
  local name=$1; shift
  "$bin" distill --config ../public-shape/train.toml --data "$data" --quiet --out "$out/$name" \
    --set distill.features=2x2 --set distill.dense=0 --set distill.activation=screlu "$@" | tee "$name.log"
}
train public
train perspective --set distill.perspective=true
match() { # file, a, b
  "$bin" eval --game ataxx --a "$2" --b "$3" --games 100 --opening-plies 2 --seed 1 --threads 2 \
    --time-per-game 0 | tee "$1"
}
match perspective-vs-public-20k.txt "nnue:$out/perspective,nodes=20000" "nnue:$out/public,nodes=20000"
match perspective-vs-public-100ms.txt "nnue:$out/perspective,ms=100" "nnue:$out/public,ms=100"
