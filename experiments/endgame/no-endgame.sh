#!/usr/bin/env bash
# This engine with its endgame solver off (`setoption name Endgame value 0` before the
# client's first line); the arguments are `contagion engine`'s. For matches measuring
# what the solver adds: --b "engine:experiments/endgame/no-endgame.sh --game ataxx ...".
root="$(cd "$(dirname "$0")/../.." && pwd)"
(printf 'setoption name Endgame value 0\n'; cat) | "$root/target/release/contagion" engine "$@"
