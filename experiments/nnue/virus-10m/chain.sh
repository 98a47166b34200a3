#!/bin/bash
# Virus evaluator on 24,000 teacher games: generate two more 6,000-game sets, train, match.
set -x
cd /work/main
CZ=/tmp/cz
R=/work/runs
for pair in "D 25" "E 26"; do
  set -- $pair
  if [ ! -f $R/virus-full-$1/done ]; then
    rm -rf $R/virus-full-$1
    /usr/bin/time -v $CZ distill --config configs/virus-nnue.toml --generate --teacher models/virus --out $R/virus-full-$1 --set distill.games=6000 --set selfplay.max_plies=0 --set run.seed=$2 --threads 2 > $R/v10m/generate-$1.log 2>&1 && touch $R/virus-full-$1/done
  fi
done
/usr/bin/time -v $CZ distill --config configs/virus-nnue.toml --data $R/virus-full --data $R/virus-full-B --data $R/virus-full-C --data $R/virus-full-D --data $R/virus-full-E --teacher models/virus --out $R/virus-10m --set distill.epochs=16 > $R/v10m/train.log 2>&1
for s in 1 2 3; do
  $CZ eval --game virus --a nnue:$R/virus-10m,nodes=2000 --b nnue:models/virus-nnue-128x32-5m,nodes=2000 --games 40 --seed $s --threads 2 --time-per-game 0 > $R/v10m/vs-5m-2k-s$s.txt 2>&1
done
$CZ eval --game virus --a nnue:$R/virus-10m,ms=100 --b model:models/virus,ms=100 --games 100 --seed 1 --threads 2 --time-per-game 0 > $R/v10m/vs-model-100ms.txt 2>&1
echo chain done
