#!/usr/bin/env bash
# Training signals, A/B, on top of the ownership head (kept after its own A/B): 10-minute
# Ataxx runs of configs/ataxx.toml with train.ownership_weight = 1.5 on 2 workers, one
# after the other, each arm differing from the control in one setting; then each arm's
# final network against the control's over 200 games at 200 simulations, and each final
# against alphabeta:depth=3 over 100 games.
# Usage: run.sh CONTAGION_BINARY OUT_DIR ARM...   (ARM: control surprise soft margin combined short
# soft-head). The short and soft-head arms were matched against the committed control:
# OUT_DIR/runs/control a link to experiments/training-signals/control.
# An arm whose run already finished in OUT_DIR/runs is not trained again, nor a match
# whose result is already there played again.
set -euo pipefail
bin=$1 out=$2
shift 2
mkdir -p "$out"
settings() {
  case $1 in
    control) echo "" ;;
    surprise) echo "--set train.policy_surprise_weight=0.5" ;;
    soft) echo "--set train.policy_target_power=0.25" ;;
    margin) echo "--set train.margin_weight=1" ;;
    combined) echo "--set train.policy_surprise_weight=0.5 --set train.margin_weight=1" ;;
    short) echo "--set train.short_value_weight=1 --set train.short_value_plies=8" ;;
    soft-head) echo "--set train.soft_policy_weight=8" ;;
    *) echo "unknown arm $1" >&2; exit 2 ;;
  esac
}
for arm in "$@"; do
  [ -e "$out/runs/$arm/finished" ] && continue
  # shellcheck disable=SC2046
  "$bin" train --config configs/ataxx.toml --checkpoints "$out/runs" --quiet \
    --set run.name="$arm" --set run.keep_checkpoints=1000 \
    --set train.ownership_weight=1.5 $(settings "$arm") > "$out/train-$arm.log" 2>&1
done
for arm in "$@"; do
  [ "$arm" = control ] || [ -e "$out/match-$arm.txt" ] && continue
  "$bin" eval --game ataxx --a "model:$out/runs/$arm,sims=200" --b "model:$out/runs/control,sims=200" \
    --games 200 --seed 1 --threads 2 --time-per-game 0 > "$out/match-$arm.txt" 2>&1
done
for arm in "$@"; do
  [ -e "$out/vs-alphabeta3-$arm.txt" ] && continue
  "$bin" eval --game ataxx --a "model:$out/runs/$arm,sims=200" --b alphabeta:depth=3 \
    --games 100 --seed 1 --threads 2 --time-per-game 0 > "$out/vs-alphabeta3-$arm.txt" 2>&1
done
