#!/bin/bash
# Infexion's player's own games (experiments/nnue/README.md, "Infexion's own
# positions"): two generators side by side, one thread each, from 8 and 12 random opening
# plies, stopped by kill -9 after SECS seconds (a chunk loses only its games in flight).
# Run from the repository's root as    SECS=3600 OUT=DIR bash experiments/nnue/infexion-own/gen.sh
# with B the release build of `contagion`; the stores are made under $OUT.
B=${B:-target/release/contagion}
$B --version || exit 1
mkdir -p "$OUT"
gen() { # plies seed
  timeout -s KILL ${SECS:-3600} $B distill --config configs/infexion-nnue.toml --generate \
    --player nnue:models/infexion,nodes=5000 --set distill.games=1000000 \
    --set distill.opening_filter=0.3 --set distill.adjudicate=0.95 \
    --set distill.opening_plies=$1 --set run.seed=$2 --threads 1 -q \
    --out "$OUT/infexion-own-p$1-s$2" > "$OUT/log-p$1-s$2.txt" 2>&1
}
gen 8 ${S1:-61} & gen 12 ${S2:-62} & wait
du -sb "$OUT"/infexion-own-* | tee "$OUT/sizes.txt"
