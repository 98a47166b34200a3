"""Replays a `contagion eval` PGN of Ataxx games through python-ataxx and tallies the
model's score (the seat whose tag starts with `model:`), and how many of the results
python-ataxx reaches agree with the PGN's. python-ataxx's "1-0" is a win for x, who
moves first (the PGN's Black).

Usage: python check_pgn.py GAMES.pgn   (with python-ataxx installed)
"""

import re
import sys

import ataxx

MOVE = re.compile(r"^([a-g][1-7]){1,2}$|^0000$")

wins = draws = losses = agree = games = 0
for game in open(sys.argv[1]).read().split("[Event ")[1:]:
    tags = dict(re.findall(r'\[(\w+) "([^"]*)"\]', game))
    moves = [t for t in game.split("\n\n", 1)[1].split() if MOVE.match(t)]
    board = ataxx.Board("startpos")
    for san in moves:
        move = ataxx.Move.from_san(san)
        assert board.is_legal(move), (san, board.get_fen())
        board.makemove(move)
    result = board.result()
    games += 1
    agree += result == tags["Result"]
    model_is_x = tags["Black"].startswith("model:")
    if result == "1/2-1/2":
        draws += 1
    elif (result == "1-0") == model_is_x:
        wins += 1
    else:
        losses += 1
score = (wins + draws / 2) / max(games, 1)
print(
    f"python-ataxx: {games} games, model: W {wins} D {draws} L {losses}, score {score:.3f}; "
    f"results agreeing with contagion's: {agree} of {games}"
)
