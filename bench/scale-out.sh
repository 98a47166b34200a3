#!/usr/bin/env bash
# Self-play throughput with 1, 2, 4 and 8 worker processes against one S3 store, then
# the trainer taking in and training on what the 8 workers made, in one iteration. Needs a running S3 server and the AWS_* variables set (see the
# README's "Scaling out"); uses the tiny Infexion config with selfplay.workers = 0.
#   bench/scale-out.sh s3://runs/bench [games per worker]
set -euo pipefail
store="${1:?usage: bench/scale-out.sh s3://bucket/prefix [games per worker]}"
games="${2:-16}"
bin="$(dirname "$0")/../target/release/contagion"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
sed -e 's/^workers = 2 .*/workers = 0/' -e 's/^name = .*/name = "scale-out"/' \
  "$(dirname "$0")/../configs/infexion-tiny.toml" > "$work/run.toml"
# The trainer publishes the first best network; then it is stopped.
"$bin" train --config "$work/run.toml" --store "$store" --lease-seconds 2 --quiet > "$work/t0.log" 2>&1 &
trainer=$!
for _ in $(seq 1 120); do
  "$bin" eval --a "model:$store/scale-out,sims=1" --b random --games 2 --quiet > /dev/null 2>&1 && break
  sleep 0.5
done
kill -9 "$trainer"; wait "$trainer" 2>/dev/null || true
for n in 1 2 4 8; do
  pids=()
  for i in $(seq 1 "$n"); do
    "$bin" selfplay --config "$work/run.toml" --store "$store" --worker-id "bench$n-$i" \
      --threads 1 --games "$games" --quiet > "$work/w$n-$i.log" 2>&1 &
    pids+=($!)
  done
  wait "${pids[@]}"
  cat "$work"/w$n-*.log | awk -v n="$n" '/positions\/s/ {
      for (i = 1; i <= NF; i++) { if ($(i+1) == "positions" && $(i+2) == "in") p += $i; if ($i ~ /^[0-9.]+$/ && $(i+1) == "s:") { if ($i > s) s = $i } }
    } END { printf "%d worker process(es): %d positions in %.1f s = %.0f positions/s\n", n, p, s, p / s }'
done
# The trainer takes in as many games as the 8 workers made, and trains on them.
sleep 3
sed -i "s/^games_per_iteration = .*/games_per_iteration = $((8 * games))/" "$work/run.toml"
"$bin" train --config "$work/run.toml" --store "$store" --lease-seconds 2 --quiet > "$work/t1.log" 2>&1
grep -o 'took in .*' "$work/t1.log" | sed 's/ |.*//' | head -1
grep -o '[0-9]* steps, [0-9]* samples/s' "$work/t1.log" | head -1 |
  sed "s/^/trained: /; s/\$/ (train.replay_ratio = $(grep -o '^replay_ratio = [0-9.]*' "$work/run.toml" | cut -d' ' -f3))/"
