#!/bin/bash
set -u
for f in .gl/*.deb; do dpkg -x $f /; done; ldconfig
gunzip -c .dev/contagion.gz > /tmp/contagion; chmod +x /tmp/contagion; B=/tmp/contagion
export XDG_RUNTIME_DIR=$(mktemp -d)
{
for batch in 512 2048 8192; do echo "### train 10x128 batch $batch wgpu"; timeout 70 $B bench train --device wgpu --blocks 10 --channels 128 --batch $batch --steps 3 --rounds 2 --threads 16 2>&1 | tail -2; done
echo "### selfplay wgpu queue 16 workers"; timeout 60 $B bench selfplay --device wgpu --sims 16 --moves 100 --workers 16 --concurrent 128 --inference-batch 2048 --rounds 2 2>&1 | tail -3
echo "### selfplay 10x128 cpu 16 workers vs wgpu queue"; timeout 90 $B bench selfplay --device wgpu --blocks 10 --channels 128 --sims 16 --moves 60 --workers 16 --concurrent 64 --inference-batch 1024 --rounds 2 2>&1 | tail -3
timeout 60 $B bench selfplay --blocks 10 --channels 128 --sims 16 --moves 60 --workers 16 --rounds 2 2>&1 | tail -2
} 2>&1 | tee $OUT/gpu-scale.log
