"""The Infexion rules as Contagion Zero plays them, for front ends in Python.

A 7x7 hex torus; cell ``(r, q)`` has index ``r * 7 + q``. Actions are indices into a
fixed space of 343: ``SPAWN`` on cell ``c`` is ``c``, ``SPREAD`` from cell ``c`` in
direction ``d`` is ``49 + 6 * c + d``, with the directions in the order of
:data:`DIRS` (the course's ``HexDir`` order). The game ends, after at least two actions,
when a side has no power left or after 343 actions; a lead of 2 power or more wins.

Positions use the engine's notation: seven rows ``r = 0..6`` separated by ``/``, each
listing cells ``q = 0..6`` (a digit for that many empty cells, ``r3`` / ``b5`` for a
Red / Blue stack of that power), then ``r`` or ``b`` to move, then the actions played:
``7/7/7/7/7/4r12/7 b 1``.
"""

import numpy as np

SIZE = 7
CELLS = SIZE * SIZE
DIRS = ((0, 1), (-1, 1), (-1, 0), (0, -1), (1, -1), (1, 0))
MAX_TURNS = 343
MAX_POWER = 6
MAX_TOTAL_POWER = 49
WIN_POWER_DIFF = 2
NUM_ACTIONS = CELLS + CELLS * len(DIRS)
RED, BLUE = 0, 1

# RAYS[c][d][i]: the cell i + 1 steps from c in direction d.
RAYS = [
    [
        [((c // SIZE + k * dr) % SIZE) * SIZE + (c % SIZE + k * dq) % SIZE for k in range(1, 7)]
        for dr, dq in DIRS
    ]
    for c in range(CELLS)
]


def spawn(cell):
    return cell


def spread(cell, direction):
    return CELLS + cell * len(DIRS) + direction


def decode(action):
    """``("SPAWN", cell, None)`` or ``("SPREAD", cell, direction)``."""
    if not 0 <= action < NUM_ACTIONS:
        raise ValueError(f"action {action} is outside 0..{NUM_ACTIONS - 1}")
    if action < CELLS:
        return "SPAWN", action, None
    s = action - CELLS
    return "SPREAD", s // len(DIRS), s % len(DIRS)


def action_to_string(action):
    kind, cell, d = decode(action)
    r, q = divmod(cell, SIZE)
    if kind == "SPAWN":
        return f"SPAWN({r},{q})"
    return f"SPREAD({r},{q},{DIRS[d][0]},{DIRS[d][1]})"


def parse_action(text):
    """Parses ``SPAWN(r,q)`` or ``SPREAD(r,q,dr,dq)`` (case and spaces ignored)."""
    compact = "".join(text.split()).upper()
    kind, _, rest = compact.partition("(")
    if not rest.endswith(")"):
        raise ValueError(f"cannot parse '{text}': expected SPAWN(r,q) or SPREAD(r,q,dr,dq)")
    try:
        nums = [int(v) for v in rest[:-1].split(",")]
    except ValueError:
        raise ValueError(f"cannot parse '{text}': arguments must be integers") from None
    if kind == "SPAWN" and len(nums) == 2 or kind == "SPREAD" and len(nums) == 4:
        r, q = nums[:2]
        if not (0 <= r < SIZE and 0 <= q < SIZE):
            raise ValueError(f"cannot parse '{text}': coordinates must be between 0 and 6")
        if kind == "SPAWN":
            return spawn(r * SIZE + q)
        if tuple(nums[2:]) not in DIRS:
            raise ValueError(f"cannot parse '{text}': not a hex direction")
        return spread(r * SIZE + q, DIRS.index(tuple(nums[2:])))
    raise ValueError(f"cannot parse '{text}': expected SPAWN(r,q) or SPREAD(r,q,dr,dq)")


class Board:
    """A position: ``cells[c]`` is 0 when empty, else ``owner * 8 + power``."""

    __slots__ = ("cells", "ply")

    def __init__(self, cells=None, ply=0):
        self.cells = list(cells) if cells is not None else [0] * CELLS
        self.ply = ply

    def copy(self):
        return Board(self.cells, self.ply)

    @property
    def to_move(self):
        return self.ply & 1

    def power(self, player):
        return sum(c & 7 for c in self.cells if c and c >> 3 == player)

    def total_power(self):
        return sum(c & 7 for c in self.cells)

    def is_over(self):
        return self.ply >= 2 and (
            self.ply >= MAX_TURNS or self.power(RED) == 0 or self.power(BLUE) == 0
        )

    def outcome(self):
        """``None`` while playing, else ``(red, blue)`` values: +1 win, -1 loss, 0 draw."""
        if not self.is_over():
            return None
        diff = self.power(RED) - self.power(BLUE)
        if diff >= WIN_POWER_DIFF:
            return (1.0, -1.0)
        if diff <= -WIN_POWER_DIFF:
            return (-1.0, 1.0)
        return (0.0, 0.0)

    def legal_actions(self):
        """The legal actions, ascending."""
        if self.is_over():
            return []
        out = []
        if self.total_power() < MAX_TOTAL_POWER:
            out.extend(c for c, code in enumerate(self.cells) if code == 0)
        me = self.to_move
        for c, code in enumerate(self.cells):
            if code and code >> 3 == me:
                out.extend(range(spread(c, 0), spread(c, 0) + len(DIRS)))
        return out

    def apply(self, action):
        """Plays a legal action in place; raises ``ValueError`` on an illegal one."""
        if action not in self.legal_actions():
            raise ValueError(f"illegal move {action_to_string(action)}")
        me = self.to_move
        kind, cell, d = decode(action)
        if kind == "SPAWN":
            self.cells[cell] = me * 8 + 1
        else:
            k = self.cells[cell] & 7
            self.cells[cell] = 0
            for target in RAYS[cell][d][:k]:
                p = self.cells[target] & 7
                self.cells[target] = 0 if p == MAX_POWER else me * 8 + p + 1
        self.ply += 1

    def encode(self):
        """The network input: 14 planes of 7x7 from the mover's view (see the manifest)."""
        x = np.zeros((14, SIZE, SIZE), dtype=np.float32)
        me = self.to_move
        for c, code in enumerate(self.cells):
            if code:
                plane = (0 if code >> 3 == me else 6) + (code & 7) - 1
                x[plane, c // SIZE, c % SIZE] = 1.0
        if self.total_power() < MAX_TOTAL_POWER:
            x[12] = 1.0
        x[13] = np.float32(self.ply) / np.float32(MAX_TURNS)
        return x

    def to_notation(self):
        rows = []
        for r in range(SIZE):
            row, empty = "", 0
            for q in range(SIZE):
                code = self.cells[r * SIZE + q]
                if not code:
                    empty += 1
                    continue
                if empty:
                    row, empty = row + str(empty), 0
                row += ("r" if code >> 3 == RED else "b") + str(code & 7)
            rows.append(row + (str(empty) if empty else ""))
        return f"{'/'.join(rows)} {'rb'[self.to_move]} {self.ply}"

    @classmethod
    def from_notation(cls, text):
        try:
            cells_text, side, ply = text.split()
            ply = int(ply)
        except ValueError:
            raise ValueError(f"cannot parse position '{text}'") from None
        rows = cells_text.split("/")
        if len(rows) != SIZE or not 0 <= ply <= MAX_TURNS or side != "rb"[ply & 1]:
            raise ValueError(f"cannot parse position '{text}'")
        cells = []
        for row in rows:
            out, chars = [], iter(row)
            for ch in chars:
                if ch in "1234567":
                    out.extend([0] * int(ch))
                elif ch in "rb":
                    digit = next(chars, "")
                    if not digit or digit not in "123456":
                        raise ValueError(f"cannot parse position '{text}': '{ch}' needs a power 1-6")
                    out.append((ch == "b") * 8 + int(digit))
                else:
                    raise ValueError(f"cannot parse position '{text}'")
            if len(out) != SIZE:
                raise ValueError(f"cannot parse position '{text}'")
            cells.extend(out)
        board = cls(cells, ply)
        if board.total_power() > MAX_TOTAL_POWER:
            raise ValueError(f"cannot parse position '{text}': total power above 49")
        return board
