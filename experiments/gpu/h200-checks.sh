#!/bin/bash
# The GPU checks docs/gpu.md lists, on the device machine. $OUT gets the logs.
set -u
R=$PWD
for f in .gl/*.deb; do dpkg -x $f /; done; ldconfig
mkdir -p /work /work/tgt-gpu/release
[ -e /work/main ] || ln -s "$R" /work/main
for z in .dev/*.gz; do gunzip -c "$z" > ".dev/$(basename $z .gz)"; chmod +x ".dev/$(basename $z .gz)"; done
cp .dev/contagion /work/tgt-gpu/release/contagion
B=/work/tgt-gpu/release/contagion
export XDG_RUNTIME_DIR=$(mktemp -d)
log() { echo "### $*"; }
{
log facts; date -u; nvidia-smi -L; nvidia-smi --query-gpu=driver_version --format=csv,noheader; nproc; lscpu | grep -E "Model name|Flags" | cut -c1-200
ls /usr/share/vulkan/icd.d/ /etc/vulkan/icd.d/ /usr/local/nvidia/share/vulkan/icd.d/ 2>&1
if ! ls /usr/share/vulkan/icd.d/nvidia* /etc/vulkan/icd.d/nvidia* >/dev/null 2>&1; then
  export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json __EGL_VENDOR_LIBRARY_FILENAMES=/usr/local/nvidia/share/glvnd/egl_vendor.d/10_nvidia.json
  log "VK_DRIVER_FILES=$VK_DRIVER_FILES"
fi
log "wgpu tests"; (cd "$R" && timeout 240 .dev/wgpu-test --test-threads 1 --nocapture 2>&1 | grep -v "^\s*$" | tail -40)
for net in "4 32" "10 128"; do set -- $net
  log "train ${1}x${2} wgpu"; timeout 60 $B bench train --device wgpu --blocks $1 --channels $2 --batch 512 --steps 4 --rounds 3 --threads 2 2>&1 | tail -4
  log "train ${1}x${2} cpu 16 threads"; timeout 60 $B bench train --blocks $1 --channels $2 --batch 512 --steps 4 --rounds 3 --threads 16 2>&1 | tail -3
done
log "selfplay wgpu queue"; timeout 90 $B bench selfplay --device wgpu --sims 16 --moves 100 --workers 8 --concurrent 64 --inference-batch 512 --rounds 3 2>&1 | tail -4
for w in 1 2 4 8 16; do log "selfplay cpu workers $w"; timeout 40 $B bench selfplay --sims 16 --moves 100 --workers $w --rounds 3 2>&1 | tail -2; done
} 2>&1 | tee $OUT/gpu-check.log
