#!/usr/bin/env bash
# This engine with one option set before the client's first line:
#   engine-with.sh NAME VALUE [contagion engine's arguments…]
# For matches that compare an option's settings through `engine:` specs.
root="$(cd "$(dirname "$0")/../.." && pwd)"
name="$1" value="$2"
shift 2
(printf 'setoption name %s value %s\n' "$name" "$value"; cat) | "$root/target/release/contagion" engine "$@"
