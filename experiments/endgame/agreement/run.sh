#!/usr/bin/env bash
# The low-precision forwards against the float one on the positions of real games, each
# game with its current bundle (Ataxx and Infexion: the 100-game matches against the
# engine of commit 31b329f; Virus and Chexers: the games in this folder, the bundle at 64
# simulations against alphabeta:depth=2, made by the commands in *-games.txt's heads).
# Usage: run.sh CONTAGION_BINARY
set -euo pipefail
bin=$1
cd "$(dirname "$0")/../../.."
for row in \
  "ataxx ataxx-4x32-166min experiments/endgame/ataxx-vs-31b329f/games.pgn" \
  "virus virus-3x32-87min experiments/endgame/agreement/virus.pgn" \
  "infexion infexion-4x32-100min experiments/endgame/infexion-vs-31b329f-bb22123/games.pgn" \
  "chexers chexers-4x32-22min experiments/endgame/agreement/chexers.pgn"; do
  set -- $row
  echo "$1, $2:"
  "$bin" bench --game "$1" agree --model "models/$2" --pgn "$3" --positions 1000000
done
