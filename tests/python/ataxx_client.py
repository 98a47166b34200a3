"""python-ataxx drives `contagion engine` over UAI and reads the PGN `contagion` wrote.

usage: ataxx_client.py CONTAGION_BINARY MODEL_BUNDLE PGN_FILE
Prints one summary line per check; exits non-zero (with a traceback) on any failure.
"""
import re
import sys

import ataxx
import ataxx.pgn
import ataxx.uai

binary, bundle, pgn_file = sys.argv[1:4]


def engine(agent):
    e = ataxx.uai.Engine([binary, "engine", "--game", "ataxx", "--agent", agent])
    e.uai()
    assert e.name and e.name.startswith("Contagion Zero"), e.name
    e.setoption("Threads", 1)
    e.isready(10)
    e.uainewgame()
    return e


# Full games over UAI: a network (searched by nodes) against alpha-beta (by movetime),
# colours swapped in the second game. Every bestmove must be legal for python-ataxx.
players = {"model": engine(f"model:{bundle},sims=32"), "alphabeta": engine("alphabeta:depth=1")}
players["model"].setoption("Hash", 16)
for game, (first, second) in enumerate([("model", "alphabeta"), ("alphabeta", "model")]):
    board = ataxx.Board()
    order = [first, second]
    plies = 0
    while not board.gameover() and plies < 400:
        name = order[plies % 2]
        e = players[name]
        e.position(board.get_fen())
        if name == "model":
            best, _ = e.go(nodes=32, maxwait=30)
        else:
            best, _ = e.go(movetime=20, maxwait=30)
        assert best is not None, f"{name} sent no bestmove"
        move = ataxx.Move.from_san(best)
        assert board.is_legal(move), f"{name} played illegal {best} in {board.get_fen()}"
        board.makemove(move)
        plies += 1
    assert board.gameover(), f"game {game} did not finish in 400 plies"
    print(f"uai game {game + 1}: {first} (x) vs {second} (o): {plies} plies, {board.result()}")
for e in players.values():
    e.quit()

# The PGN contagion wrote: every game parses, replays legally, and ends as recorded.
text = open(pgn_file).read()
chunks = [c for c in re.split(r"\n\n(?=\[)", text.strip()) if c]
assert chunks, "no games in the PGN"
for i, chunk in enumerate(chunks):
    game = ataxx.pgn.parse(chunk)
    board = ataxx.Board(game.headers.get("FEN", ataxx.FEN_STARTPOS))
    moves = 0
    for node in game.main_line():
        assert board.is_legal(node.move), f"game {i + 1}: illegal {node.move}"
        board.makemove(node.move)
        moves += 1
    recorded = game.headers["Result"]
    assert moves > 0, f"game {i + 1} has no moves"
    if "Termination" not in game.headers:
        assert board.gameover(), f"game {i + 1} ends before the game is over"
        assert board.result() == recorded, f"game {i + 1}: {board.result()} != {recorded}"
print(f"pgn: {len(chunks)} games read, replayed and their results confirmed")
