"""Referees Ataxx games recorded by `contagion eval/tournament/ladder --pgn` with
python-ataxx: every game is replayed move by move (each move checked legal), the result
is python-ataxx's own, and the recorded one must agree. Prints one agent's W/D/L.

    target/test-python/venv/bin/python bench/ataxx/referee.py GAMES.pgn AGENT

AGENT is a substring of the agent's name in the PGN headers (its spec). Games that
ended by forfeit (a Termination header) count as recorded.
"""

import re
import sys

import ataxx
import ataxx.pgn


def main(path, agent):
    text = open(path).read()
    chunks = [c for c in re.split(r"\n\n(?=\[)", text.strip()) if c]
    wins = draws = losses = agreed = forfeits = 0
    for i, chunk in enumerate(chunks):
        game = ataxx.pgn.parse(chunk)
        board = ataxx.Board(game.headers.get("FEN", ataxx.FEN_STARTPOS))
        for node in game.main_line():
            if not board.is_legal(node.move):
                sys.exit(f"game {i + 1}: illegal move {node.move} in {board.get_fen()}")
            board.makemove(node.move)
        recorded = game.headers["Result"]
        if "Termination" in game.headers:
            result, forfeits = recorded, forfeits + 1
        else:
            if not board.gameover():
                sys.exit(f"game {i + 1} ends before the game is over")
            result = board.result()
            agreed += result == recorded
        # python-ataxx: "1-0" is a win for x, who is Black in the PGN headers.
        black, white = agent in game.headers["Black"], agent in game.headers["White"]
        if black == white:
            which = "both players" if black else "no player"
            sys.exit(f"game {i + 1}: '{agent}' names {which}; give more of the agent's name")
        side = "x" if black else "o"
        if result == "1/2-1/2":
            draws += 1
        elif (result == "1-0") == (side == "x"):
            wins += 1
        else:
            losses += 1
    n = len(chunks)
    score = (wins + draws / 2) / max(n, 1)
    print(f"python-ataxx: {n} games, {agent}: W {wins} D {draws} L {losses}, score {score:.3f}")
    print(f"results recorded by contagion that python-ataxx confirms: {agreed} of {n - forfeits}"
          f" ({forfeits} forfeits)")
    if agreed != n - forfeits:
        sys.exit("a recorded result differs from python-ataxx's")


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    main(sys.argv[1], sys.argv[2])
