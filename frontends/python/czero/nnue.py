"""The fast evaluator (``contagion distill``'s bundles, ``nnue:`` in contagion) and an
alpha-beta search over it, with numpy alone.

:class:`Evaluator` reads an evaluator bundle (format ``contagion-evaluator``: the
manifest, ``model.safetensors`` and its SHA-256) and computes the float form of the
network: the features are the entries of the game's encoding that are at least 0.5,
the accumulator sums their rows of ``ft.weight`` (plus ``ft.bias``), clipped to [0, 1],
a dense layer clipped the same, and one ``tanh`` a seat, relative to the mover. The
Rust player runs the integer form of the same weights (``docs/nnue.md``).

:class:`AlphaBeta` searches a position by negamax with alpha-beta, iterative deepening
within a time budget, the previous iteration's best line first, and a table of the best
move a position had. It needs a board with ``to_move``, ``copy``, ``apply``,
``legal_actions``, ``outcome`` and ``encode`` (every ``czero`` game's board).
"""

import time

import numpy as np

from .model import BundleError, read_bundle

FORMAT = "contagion-evaluator"
# The newest evaluator bundle version this reads.
VERSION = 1
FEATURES = "encoding-set"
# A feature is on where the encoding is at least this (as the Rust side reads it).
ON = 0.5
# A won or lost end of the game, beyond any evaluation (sooner wins score higher).
WIN = 10.0


class Evaluator:
    """An evaluator bundle directory, ready to score positions."""

    def __init__(self, directory):
        self.directory = directory
        self.manifest, t = read_bundle(directory, FORMAT, VERSION, "an evaluator bundle")
        m = self.manifest
        if m.get("features") != FEATURES:
            raise BundleError(f"{directory}: feature set {m.get('features')!r}, this reads {FEATURES!r}")
        shape = m["shape"]
        self.game = shape["game"]
        i, h, d, o = shape["inputs"], shape["hidden"], shape["dense"], shape["outputs"]
        want = {
            "ft.weight": (i, h),
            "ft.bias": (h,),
            "l1.weight": (d, h),
            "l1.bias": (d,),
            "out.weight": (o, d),
            "out.bias": (o,),
        }
        for name, s in want.items():
            if name not in t:
                raise BundleError(f"tensor '{name}' is missing from model.safetensors")
            if t[name].shape != s:
                raise BundleError(f"tensor '{name}' has shape {t[name].shape}, the manifest needs {s}")
        self.inputs = i
        self.ft_w, self.ft_b = t["ft.weight"], t["ft.bias"]
        self.l1_w, self.l1_b = t["l1.weight"], t["l1.bias"]
        self.out_w, self.out_b = t["out.weight"], t["out.bias"]
        self.evaluations = 0

    def features(self, board):
        """The indices of the active features of ``board``."""
        x = np.asarray(board.encode(), dtype=np.float32).reshape(-1)
        if x.size != self.inputs:
            raise ValueError(f"an encoding of {x.size} entries, the evaluator takes {self.inputs}")
        return np.flatnonzero(x >= ON)

    def values(self, board):
        """The value of ``board`` for each seat, relative to the mover (index 0: the
        mover's), each in [-1, 1]."""
        self.evaluations += 1
        acc = self.ft_b + self.ft_w[self.features(board)].sum(axis=0)
        h1 = np.clip(acc, 0.0, 1.0)
        h2 = np.clip(self.l1_w @ h1 + self.l1_b, 0.0, 1.0)
        return np.tanh(self.out_w @ h2 + self.out_b)


class OutOfTime(Exception):
    pass


class AlphaBeta:
    """Negamax with alpha-beta over an :class:`Evaluator`, for two-player games."""

    def __init__(self, evaluator):
        self.evaluator = evaluator
        self.best_move = {}  # position key -> the move that was best there
        self.nodes = 0

    def _key(self, board):
        return board.to_notation()

    def _negamax(self, board, depth, alpha, beta, ply, deadline):
        self.nodes += 1
        if self.nodes % 256 == 0 and deadline is not None and time.perf_counter() >= deadline:
            raise OutOfTime
        outcome = board.outcome()
        if outcome is not None:
            mine = outcome[board.to_move]
            return mine * (WIN - ply * 1e-3) if mine else 0.0
        if depth == 0:
            return float(self.evaluator.values(board)[0])
        moves = board.legal_actions()
        key = self._key(board)
        first = self.best_move.get(key)
        if first in moves:
            moves.remove(first)
            moves.insert(0, first)
        best, best_move = -np.inf, moves[0]
        for a in moves:
            child = board.copy()
            child.apply(a)
            v = -self._negamax(child, depth - 1, -beta, -alpha, ply + 1, deadline)
            if v > best:
                best, best_move = v, a
            alpha = max(alpha, v)
            if alpha >= beta:
                break
        self.best_move[key] = best_move
        return best

    def run(self, board, seconds=None, depth=3):
        """Deepens iteratively for ``seconds`` of wall time (to ``depth`` plies when
        ``seconds`` is None); returns (action, info dict). The last finished depth's
        move is played."""
        moves = board.legal_actions()
        if not moves:
            raise ValueError("no legal move: the game is over")
        start = time.perf_counter()
        deadline = None if seconds is None else start + seconds
        self.nodes = 0
        # Each search orders by its own earlier iterations only: the table stays within
        # one move's nodes, whatever the clock (the referee counts memory).
        self.best_move.clear()
        best, value, done = moves[0], 0.0, 0
        limit = depth if seconds is None else 64
        for d in range(1, limit + 1):
            try:
                value = self._negamax(board, d, -np.inf, np.inf, 0, deadline)
            except OutOfTime:
                break
            best, done = self.best_move[self._key(board)], d
            if abs(value) >= WIN - 1 or len(moves) == 1:
                break
            # An iteration costs more than all before it: do not start one that cannot end.
            if deadline is not None and time.perf_counter() - start > seconds / 2:
                break
        info = {
            "sims": self.nodes,
            "depth": done,
            "value": max(-1.0, min(1.0, value)),
            "seconds": time.perf_counter() - start,
        }
        return best, info
