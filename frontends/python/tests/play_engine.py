"""Plays the course-referee agent against ``contagion engine``, as the referee would.

    python tests/play_engine.py --engine PATH/contagion --opponent greedy --games 2 --clock 30

Run from ``frontends/python`` (or with it on ``PYTHONPATH``); the stand-in ``referee``
package next to this file provides ``referee.game``. Each game alternates the agent's
colour. Like the referee, it calls ``action`` on the mover with ``time_remaining`` (the
agent's CPU clock, which it charges) and ``space_remaining``, then ``turn`` with every
action. After every move it checks the engine and the Python rules agree on the
legal moves, and after each game on the final position. Prints a JSON summary; exits 1
on any disagreement, illegal move or lost clock.
"""

import argparse
import json
import resource
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent))

from agent import Agent  # noqa: E402
from agent.program import to_index, to_referee  # noqa: E402
from czero.infexion import Board, action_to_string, parse_action  # noqa: E402
from referee.game import PlayerColor  # noqa: E402


class Engine:
    def __init__(self, path, spec, seed):
        self.proc = subprocess.Popen(
            [path, "engine", "--agent", spec, "--seed", str(seed)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )

    def ask(self, line, until):
        self.proc.stdin.write(line + "\n")
        self.proc.stdin.flush()
        lines = []
        while True:
            reply = self.proc.stdout.readline()
            if not reply:
                raise RuntimeError(f"the engine exited after '{line}'")
            reply = reply.strip()
            if reply.startswith("error"):
                raise RuntimeError(f"engine: '{line}' -> {reply}")
            lines.append(reply)
            if until(reply):
                return lines

    def position(self, moves):
        """Sets the position (the command has no reply unless it is refused)."""
        line = " ".join(["position startpos", "moves", *moves] if moves else ["position startpos"])
        self.proc.stdin.write(line + "\n")

    def close(self):
        self.proc.stdin.write("quit\n")
        self.proc.stdin.flush()
        self.proc.wait(timeout=10)


def fail(why):
    print(json.dumps({"error": why}))
    sys.exit(1)


def play(engine, agent_color, clock):
    board = Board()
    agent = Agent(agent_color, time_remaining=clock, space_remaining=250.0)
    moves, times, sims = [], [], []
    left = clock
    while board.outcome() is None:
        mover = PlayerColor.RED if board.to_move == 0 else PlayerColor.BLUE
        if mover == agent_color:
            t0 = time.process_time()
            action = agent.action(time_remaining=left, space_remaining=250.0)
            spent = time.process_time() - t0
            left -= spent
            times.append(spent)
            sims.append(agent.last_info["sims"])
            if left <= 0:
                fail(f"the agent ran out of time at ply {board.ply}")
            index = to_index(action)
        else:
            engine.position(moves)
            reply = engine.ask("go", lambda r: r.startswith("bestmove"))[-1]
            index = parse_action(reply.split()[1])
        legal = board.legal_actions()
        engine.position(moves)
        listed = engine.ask("moves", lambda _: True)[-1].split()
        if sorted(parse_action(m) for m in listed) != legal:
            fail(f"legal moves differ at ply {board.ply}")
        if index not in legal:
            fail(f"illegal move {action_to_string(index)} at ply {board.ply}")
        action = to_referee(index)
        agent.turn(mover, action, time_remaining=left, space_remaining=250.0)
        board.apply(index)
        moves.append(action_to_string(index))
    engine.position(moves)
    shown = engine.ask("show", lambda r: r.startswith("position"))[-1]
    if shown != f"position {board.to_notation()}":
        fail(f"final positions differ: engine '{shown}', python '{board.to_notation()}'")
    if agent._board.to_notation() != board.to_notation():
        fail("the agent's own board drifted from the game")
    red, blue = board.outcome()
    mine = red if agent_color == PlayerColor.RED else blue
    return {
        "agent": agent_color.name,
        "result": {1.0: "win", 0.0: "draw", -1.0: "loss"}[mine],
        "plies": board.ply,
        "agent_moves": len(times),
        "agent_seconds_per_move": sum(times) / max(len(times), 1),
        "agent_max_seconds": max(times, default=0.0),
        "agent_sims_per_move": sum(sims) / max(len(sims), 1),
        "agent_cpu_seconds": clock - left,
    }


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--engine", required=True)
    p.add_argument("--opponent", default="greedy")
    p.add_argument("--games", type=int, default=2)
    p.add_argument("--clock", type=float, default=180.0, help="the agent's CPU seconds per game")
    args = p.parse_args()
    games = []
    for g in range(args.games):
        engine = Engine(args.engine, args.opponent, seed=g + 1)
        color = PlayerColor.RED if g % 2 == 0 else PlayerColor.BLUE
        games.append(play(engine, color, args.clock))
        engine.close()
    # Peak memory of this process (the agent and this driver together): an upper bound
    # on what the agent holds, for the referee's 250 MB limit.
    print(json.dumps({"opponent": args.opponent, "games": games, "peak_mb": peak_mb()}, indent=1))


def peak_mb():
    """This process's peak resident memory in MB. Linux's VmHWM belongs to the process's
    own address space; ``ru_maxrss`` is kept across ``exec`` and so also counts a parent
    that was bigger when it started this one (a test runner), so it is the fallback."""
    try:
        with open("/proc/self/status", encoding="ascii") as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


if __name__ == "__main__":
    main()
