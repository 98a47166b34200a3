"""Chexers (COMP30024 2019) as Contagion Zero plays it, for front ends in Python.

37 hexes in axial ``(q, r)`` with ``|q|, |r|, |q + r| <= 3``, on a 7x7 grid (cell
``(r + 3) * 7 + (q + 3)``; 12 grid cells are off the board). Red starts on ``q = -3``,
Green on ``r = -3``, Blue on ``s = -q - r = -3``; each exits from the opposite edge.
Turns go Red, Green, Blue.

- ``MOVE(q,r,q2,r2)`` to an empty adjacent hex; ``JUMP(q,r,q2,r2)`` over an adjacent
  piece to the empty hex beyond, converting an opponent's; ``EXIT(q,r)`` from the
  player's exit edge; ``PASS`` only when nothing else is possible.
- The first to 4 exits wins (a 4th exit on the 768th turn is a draw); a draw after 768
  turns, or when the same snapshot (board colours and mover) occurs a 4th time since
  the last exit.
- Positions: rows ``r = -3..3`` separated by ``/``, each hex by ascending ``q``
  (``r``/``g``/``b`` or a digit for empty hexes), then the mover, the exits ``r/g/b``
  and the turns: ``gggg/5/6/r5b/r4b/r3b/r2b r 0/0/0 0``. Like a chess FEN it carries
  no repetition history; a game replayed move by move does.
"""

import numpy as np

GRID = 7
CELLS = GRID * GRID
MAX_TURNS = 768
EXITS_TO_WIN = 4
DIRS = ((1, 0), (1, -1), (0, -1), (-1, 0), (-1, 1), (0, 1))
LETTERS = "rgb"


def coords(cell):
    return cell % GRID - 3, cell // GRID - 3


def on_board(q, r):
    return abs(q) <= 3 and abs(r) <= 3 and abs(q + r) <= 3


def cell_of(q, r):
    return (r + 3) * GRID + q + 3 if on_board(q, r) else None


def step(cell, d, k):
    q, r = coords(cell)
    return cell_of(q + k * DIRS[d][0], r + k * DIRS[d][1])


def is_exit(player, cell):
    q, r = coords(cell)
    return on_board(q, r) and (q, r, -q - r)[player] == 3


def row_range(r):
    return range(max(-3, -3 - r), min(3, 3 - r) + 1)


class Chexers:
    __slots__ = ("cells", "to_move", "exits", "turns", "history")

    def __init__(self, cells, to_move=0, exits=(0, 0, 0), turns=0, history=None):
        self.cells = list(cells)
        self.to_move = to_move
        self.exits = list(exits)
        self.turns = turns
        # Snapshots since the last exit, the current one included.
        self.history = list(history) if history is not None else [self.snapshot()]

    @classmethod
    def start(cls):
        cells = [0] * CELLS
        for i in range(4):
            cells[cell_of(-3, i)] = 1
            cells[cell_of(i, -3)] = 2
            cells[cell_of(3 - i, i)] = 3
        return cls(cells)

    def copy(self):
        return Chexers(self.cells, self.to_move, self.exits, self.turns, self.history)

    def snapshot(self):
        return (tuple(self.cells), self.to_move)

    def repetitions(self):
        return self.history.count(self.history[-1])

    def outcome(self):
        """``None`` while playing, else values per seat (Red, Green, Blue)."""
        for p in range(3):
            if self.exits[p] >= EXITS_TO_WIN:
                if self.turns >= MAX_TURNS:
                    return (0.0, 0.0, 0.0)
                return tuple(1.0 if s == p else -1.0 for s in range(3))
        if self.turns >= MAX_TURNS or self.repetitions() >= 4:
            return (0.0, 0.0, 0.0)
        return None

    def hex_name(self, cell):
        q, r = coords(cell)
        return f"{q},{r}"

    def legal_moves(self):
        """The legal moves, in action order (by cell: 6 moves, 6 jumps, exit), or PASS."""
        if self.outcome() is not None:
            return []
        me = self.to_move
        out = []
        for cell in range(CELLS):
            if self.cells[cell] != me + 1:
                continue
            for d in range(6):
                t = step(cell, d, 1)
                if t is not None and self.cells[t] == 0:
                    out.append(f"MOVE({self.hex_name(cell)},{self.hex_name(t)})")
            for d in range(6):
                over, t = step(cell, d, 1), step(cell, d, 2)
                if over is not None and t is not None and self.cells[over] and not self.cells[t]:
                    out.append(f"JUMP({self.hex_name(cell)},{self.hex_name(t)})")
            if is_exit(me, cell):
                out.append(f"EXIT({self.hex_name(cell)})")
        return out or ["PASS"]

    def play(self, move):
        """Plays a legal move in place; raises ``ValueError`` on an illegal one."""
        move = "".join(move.split()).upper()
        if move not in self.legal_moves():
            raise ValueError(f"illegal move {move}")
        mine = self.to_move + 1
        if move != "PASS":
            kind, args = move[:-1].split("(")
            nums = [int(v) for v in args.split(",")]
            cell = cell_of(nums[0], nums[1])
            self.cells[cell] = 0
            if kind == "EXIT":
                self.exits[self.to_move] += 1
                self.history = []
            else:
                to = cell_of(nums[2], nums[3])
                self.cells[to] = mine
                if kind == "JUMP":
                    q, r = coords(cell)
                    q2, r2 = coords(to)
                    self.cells[cell_of((q + q2) // 2, (r + r2) // 2)] = mine
        self.to_move = (self.to_move + 1) % 3
        self.turns += 1
        self.history.append(self.snapshot())

    def encode(self):
        """The network input: 12 planes of 7x7 from the mover's view (see the manifest)."""
        x = np.zeros((12, GRID, GRID), dtype=np.float32)
        for rel in range(3):
            p = (self.to_move + rel) % 3
            for c in range(CELLS):
                if self.cells[c] == p + 1:
                    x[rel, c // GRID, c % GRID] = 1.0
                if is_exit(p, c):
                    x[3 + rel, c // GRID, c % GRID] = 1.0
            x[6 + rel] = np.float32(self.exits[p]) / np.float32(4.0)
        for c in range(CELLS):
            if on_board(*coords(c)):
                x[9, c // GRID, c % GRID] = 1.0
        x[10] = np.float32(self.turns) / np.float32(MAX_TURNS)
        x[11] = np.float32(self.repetitions() - 1) / np.float32(3.0)
        return x

    def to_notation(self):
        rows = []
        for r in range(-3, 4):
            row, empty = "", 0
            for q in row_range(r):
                code = self.cells[cell_of(q, r)]
                if not code:
                    empty += 1
                    continue
                if empty:
                    row, empty = row + str(empty), 0
                row += LETTERS[code - 1]
            rows.append(row + (str(empty) if empty else ""))
        exits = "/".join(str(e) for e in self.exits)
        return f"{'/'.join(rows)} {LETTERS[self.to_move]} {exits} {self.turns}"

    @classmethod
    def from_notation(cls, text, settings=None):
        try:
            board, side, exits, turns = text.split()
            rows = board.split("/")
            assert len(rows) == 7 and side in LETTERS
            cells = [0] * CELLS
            for row, r in zip(rows, range(-3, 4)):
                hexes, i = list(row_range(r)), 0
                for ch in row:
                    if ch.isdigit():
                        i += int(ch)
                    else:
                        cells[cell_of(hexes[i], r)] = LETTERS.index(ch) + 1
                        i += 1
                assert i == len(hexes)
            exits = [int(e) for e in exits.split("/")]
            assert len(exits) == 3 and all(0 <= e <= EXITS_TO_WIN for e in exits)
            turns = int(turns)
            assert 0 <= turns <= MAX_TURNS
        except (ValueError, AssertionError, IndexError):
            raise ValueError(f"cannot parse position '{text}'") from None
        return cls(cells, LETTERS.index(side), exits, turns)
