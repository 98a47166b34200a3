#!/bin/bash
# The Ataxx player's own games on every core (experiments/nnue/README.md, "Three
# million of its own positions"): two generators side by side, 8 and 12 random opening
# plies, each on half the cores, stopped by kill -9 after SECS seconds (a chunk loses
# only its games in flight), the stores packed into $OUT. Run on a 16-core machine as
#   SECS=500 S1=21 S2=22 bash gen.sh    and    SECS=250 S1=31 S2=32 bash gen.sh
# with B the release build of `contagion`, OUT a directory to pack into, and PLAYER the
# evaluator that plays (the current Ataxx one unless set).
B=${B:-target/release/contagion}
$B --version || exit 1
lscpu > $OUT/lscpu.txt; nproc >> $OUT/lscpu.txt
mkdir -p /tmp/d
gen() { # plies seed threads
  timeout -s KILL ${SECS:-480} $B distill --config configs/ataxx-nnue.toml --generate \
    --player nnue:${PLAYER:-models/ataxx},nodes=5000 --set distill.games=1000000 \
    --set distill.opening_filter=0.3 --set distill.adjudicate=0.95 \
    --set distill.opening_plies=$1 --set run.seed=$2 --threads $3 -q \
    --out /tmp/d/ataxx-own-p$1-s$2 > /tmp/d/log-p$1-s$2.txt 2>&1
}
T=$(( $(nproc) / 2 ))
gen 8 ${S1:-21} $T & gen 12 ${S2:-22} $T & wait
du -sb /tmp/d/* | tee $OUT/sizes.txt
tar cf - -C /tmp/d . | split -b 15m - $OUT/data.tar.
