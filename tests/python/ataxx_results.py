"""Replays games through python-ataxx, and through Contagion Zero's own Python front end
(czero.ataxx, from frontends/python), and prints both results for each game.

Input (stdin), one game a line: the start FEN, a tab, the moves space-separated.
Output: one line a game: python-ataxx's result ("1-0", "0-1", "1/2-1/2" or "*"), a
space, czero's in the same notation.
"""

import os
import sys

import ataxx

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "frontends", "python"))
from czero.ataxx import Ataxx  # noqa: E402

SETTINGS = {"size": 7, "no_move": "pass", "halfmove_limit": 100}
NAMES = {(1.0, -1.0): "1-0", (-1.0, 1.0): "0-1", (0.0, 0.0): "1/2-1/2", None: "*"}

for line in sys.stdin:
    fen, _, moves = line.rstrip("\n").partition("\t")
    board = ataxx.Board(fen)
    ours = Ataxx.from_notation(fen, SETTINGS)
    for san in moves.split():
        move = ataxx.Move.from_san(san)
        if not board.is_legal(move):
            sys.exit(f"illegal move {san} in {board.get_fen()}")
        board.makemove(move)
        ours.play(san)
    print(board.result(), NAMES[ours.outcome()])
