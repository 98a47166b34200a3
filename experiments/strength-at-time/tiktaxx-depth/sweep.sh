#!/bin/sh
# tiktaxx at fixed depths against ataxx-bundle-166min at 100 ms a move on 2 threads, 20
# games a depth, each match checked by python-ataxx. As run (the paths are the session's:
# tiktaxx built in /work/ext, outside the repository; the test venv's python-ataxx).
# Usage: sweep.sh 8 10 12
cd /work/main
for d in "$@"; do
  ./target/release/contagion eval --game ataxx --a model:models/ataxx-bundle-166min,threads=2,sims=1000000,ms=100 --b "engine:/work/ext/tiktaxx-depth.sh $d" --games 20 --threads 1 --pgn /work/runs/depth/depth$d.pgn > /work/runs/depth/depth$d.txt 2>/work/runs/depth/depth$d.err
  ./target/test-python/venv/bin/python /work/runs/check_pgn.py /work/runs/depth/depth$d.pgn >> /work/runs/depth/depth$d.txt
done
