#!/usr/bin/env bash
# The size study: two Ataxx runs from nothing with configs/ataxx.toml that differ only in
# the network's size (blocks x channels), side by side on one core each (taskset), so that
# both get the same CPU time on the same machine. MINUTES counts every sitting: run it again
# with the same arguments (or more minutes) to resume both where they stopped.
# Usage: run.sh CONTAGION_BINARY OUT_DIR MINUTES [BLOCKSxCHANNELS ...]   (default 4x32 6x48)
#   run.sh target/release/contagion /tmp/size 120 4x32 6x48
set -euo pipefail
bin=$1 out=$2 minutes=$3
shift 3
sizes=("$@")
[ ${#sizes[@]} -gt 0 ] || sizes=(4x32 6x48)
mkdir -p "$out"
cores=$(nproc)
i=0
for size in "${sizes[@]}"; do
  blocks=${size%x*} channels=${size#*x}
  taskset -c $((i % cores)) "$bin" train --config configs/ataxx.toml --checkpoints "$out" --quiet \
    --set run.name="ataxx-$size" --set run.max_minutes="$minutes" \
    --set run.iterations=100000 --set run.keep_checkpoints=5 \
    --set network.blocks="$blocks" --set network.channels="$channels" \
    --set selfplay.workers=1 --set train.threads=1 \
    --set train.lr_decay_steps=50000 \
    --set baseline.every=20 --set baseline.spec=alphabeta:depth=4 \
    >> "$out/ataxx-$size.log" 2>&1 &
  i=$((i + 1))
done
wait
