"""Contagion Zero's Infexion agent for the COMP30024 2023 referee.

Drop this ``agent`` directory, the ``czero`` package beside it, and a bundle (in
``agent/bundle/``) into the referee's directory, then run
``python -m referee agent <opponent>``. It needs numpy and the standard library only.

Each move runs a PUCT search (``czero.mcts``) guided by the exported network, or, when
the bundle is a fast evaluator (``contagion distill``; ``models/infexion-nnue-…``), an
alpha-beta search over it (``czero.nnue``). The time
for a move is ``time_remaining / min(turns left, 60)`` of CPU time (the referee's limit is
180 s of CPU per game), so the clock can never run out; with no clock it runs 200
simulations (alpha-beta: 2 plies). Memory stays far below the 250 MB limit (a search tree of a few thousand
nodes and a network of under a megabyte).

The bundle is looked for in ``$CZERO_BUNDLE``, then ``agent/bundle/``, then the
repository's current Infexion model, as ``models/index.json`` names it.
"""

import os
import sys
from pathlib import Path

# One BLAS thread: the referee counts CPU time, and threads would only add to it.
for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

HERE = Path(__file__).resolve().parent
try:
    import czero  # noqa: F401
except ImportError:
    sys.path.insert(0, str(HERE.parent))

from czero import Model, current_model  # noqa: E402
from czero.model import BundleError  # noqa: E402
from czero.nnue import AlphaBeta, Evaluator  # noqa: E402
from czero.infexion import DIRS, MAX_TURNS, SIZE, Board, decode, spawn, spread  # noqa: E402
from czero.mcts import Search  # noqa: E402
from referee.game import Action, HexDir, HexPos, PlayerColor, SpawnAction, SpreadAction  # noqa: E402,F401

DEFAULT_SIMS = 200
DEFAULT_DEPTH = 2
MOVES_AHEAD = 60


def find_bundle():
    candidates = [
        os.environ.get("CZERO_BUNDLE"),
        HERE / "bundle",
        current_model(str(HERE.parent.parent.parent / "models"), "infexion"),
    ]
    for c in candidates:
        if c and (Path(c) / "manifest.json").is_file():
            return Path(c)
    raise FileNotFoundError(
        "no model bundle found: set CZERO_BUNDLE or put one in " + str(HERE / "bundle")
    )


def searcher(bundle):
    """The search the bundle plays with: MCTS for a network, alpha-beta for an evaluator."""
    try:
        return Search(Model(str(bundle)))
    except BundleError as network_error:
        try:
            evaluator = Evaluator(str(bundle))
        except BundleError:
            raise network_error from None
        if evaluator.game != "infexion":
            raise BundleError(f"{bundle}: an evaluator for {evaluator.game}, not infexion") from None
        return AlphaBeta(evaluator)


def to_index(action):
    """A referee action as a czero action index."""
    cell = action.cell.r * SIZE + action.cell.q
    if isinstance(action, SpawnAction):
        return spawn(cell)
    d = action.direction.value
    return spread(cell, DIRS.index((d.r, d.q)))


def to_referee(index):
    """A czero action index as a referee action."""
    kind, cell, d = decode(index)
    pos = HexPos(cell // SIZE, cell % SIZE)
    if kind == "SPAWN":
        return SpawnAction(pos)
    direction = next(h for h in HexDir if (h.value.r, h.value.q) == DIRS[d])
    return SpreadAction(pos, direction)


class Agent:
    def __init__(self, color: PlayerColor, **referee: dict):
        self._color = color
        self._board = Board()
        self._search = searcher(find_bundle())
        self.last_info = None

    def budget(self, time_remaining):
        """CPU seconds for this move, or None to search a fixed number of simulations."""
        if time_remaining is None:
            return None
        turns_left = max(1, (MAX_TURNS - self._board.ply + 1) // 2)
        return max(0.0, time_remaining - 0.5) / min(turns_left, MOVES_AHEAD)

    def action(self, **referee: dict) -> Action:
        seconds = self.budget(referee.get("time_remaining"))
        if isinstance(self._search, AlphaBeta):
            index, self.last_info = self._search.run(self._board, seconds=seconds, depth=DEFAULT_DEPTH)
        else:
            index, self.last_info = self._search.run(self._board, seconds=seconds, sims=DEFAULT_SIMS)
        return to_referee(index)

    def turn(self, color: PlayerColor, action: Action, **referee: dict):
        self._board.apply(to_index(action))
