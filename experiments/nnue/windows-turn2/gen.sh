#!/bin/bash
# The fourth window of the Ataxx player's own games (experiments/nnue/README.md, "A
# second turn of the windows' own games"): own-3m/gen.sh's commands with the first
# turn's evaluator as the player, two generators of one thread each on the project's
# 2-core machine, 8 and 12 random opening plies, seeds 81 and 82, stopped by kill -9
# after SECS seconds (a chunk loses only its games in flight). Run from the repository
# root as   SECS=3000 OUT=DIR bash experiments/nnue/windows-turn2/gen.sh
B=${B:-target/release/contagion}
$B --version || exit 1
gen() { # plies seed
  timeout -s KILL ${SECS:-3000} $B distill --config configs/ataxx-nnue.toml --generate \
    --player nnue:models/ataxx-nnue-256x32-windows-19m,nodes=5000 \
    --set distill.games=1000000 --set distill.opening_filter=0.3 \
    --set distill.adjudicate=0.95 --set distill.opening_plies=$1 --set run.seed=$2 \
    --threads 1 -q --out $OUT/ataxx-own-p$1-s$2 > $OUT/log-p$1-s$2.txt 2>&1
}
gen 8 81 & gen 12 82 & wait
du -sb $OUT/ataxx-own-* | tee $OUT/sizes.txt
