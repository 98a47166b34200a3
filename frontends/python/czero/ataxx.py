"""The Ataxx family (standard 7x7 Ataxx and the seed's 15x15 Virus) as Contagion Zero
plays it, for front ends in Python.

The rules come from the bundle manifest's ``game.settings``: ``size``, ``no_move``
(``"pass"``: a mover without a move passes; else the game ends) and
``halfmove_limit`` (the game ends when the half-move clock reaches it; 0: never).

- A **clone** copies a piece to an empty square among its 8 neighbours (named by the
  destination, ``f1``); a **jump** moves a piece to an empty square at Chebyshev
  distance 2 (``a7c5``); either converts every enemy piece next to the destination.
  A pass is ``0000``. Files ``a``... from the left, ranks ``1``... from the bottom.
- The game ends when a side has no pieces, at the half-move limit (clones reset the
  clock, jumps and passes advance it), and when no empty square is within reach of
  any piece (with passes) or the mover cannot move (without). More pieces wins; with
  passes, a game stopped by the half-move limit while it could go on is a draw.
- Positions are FEN: ranks from the top, ``x``/``o`` pieces, ``-`` blocked squares,
  digits for empty runs, then the side to move, the half-move clock and the
  full-move number: ``x5o/7/7/7/7/7/o5x x 0 1``.
"""

import re

import numpy as np

EMPTY, X, O, BLOCKED = 0, 1, 2, 3
NEIGHBOURS = [(dr, dc) for dr in (-1, 0, 1) for dc in (-1, 0, 1) if (dr, dc) != (0, 0)]
JUMPS = [(dr, dc) for dr in range(-2, 3) for dc in range(-2, 3) if max(abs(dr), abs(dc)) == 2]


class Rules:
    """The settings a position carries."""

    def __init__(self, settings):
        self.size = int(settings["size"])
        self.passes = settings["no_move"] == "pass"
        self.halfmove_limit = int(settings.get("halfmove_limit", 0))


class Ataxx:
    __slots__ = ("rules", "cells", "to_move", "halfmove", "fullmove")

    def __init__(self, rules, cells, to_move, halfmove=0, fullmove=1):
        self.rules = rules
        self.cells = list(cells)
        self.to_move = to_move
        self.halfmove = halfmove
        self.fullmove = fullmove

    def copy(self):
        return Ataxx(self.rules, self.cells, self.to_move, self.halfmove, self.fullmove)

    @property
    def size(self):
        return self.rules.size

    def square_name(self, cell):
        n = self.size
        return f"{chr(ord('a') + cell % n)}{n - cell // n}"

    def offset(self, cell, d):
        n = self.size
        r, c = cell // n + d[0], cell % n + d[1]
        return r * n + c if 0 <= r < n and 0 <= c < n else None

    def count(self, player):
        return self.cells.count(X + player)

    def can_move(self, player):
        me = X + player
        for c, code in enumerate(self.cells):
            if code == me:
                for d in NEIGHBOURS + JUMPS:
                    t = self.offset(c, d)
                    if t is not None and self.cells[t] == EMPTY:
                        return True
        return False

    def is_over(self):
        if self.count(0) == 0 or self.count(1) == 0:
            return True
        if self.rules.halfmove_limit and self.halfmove >= self.rules.halfmove_limit:
            return True
        if self.rules.passes:
            return not self.can_move(0) and not self.can_move(1)
        return not self.can_move(self.to_move)

    def outcome(self):
        """``None`` while playing, else ``(x, o)`` values: +1 win, -1 loss, 0 draw. With
        passes (Ataxx), a game the half-move limit stops while it could go on is a draw
        (as libataxx scores it); Virus rules score it by pieces."""
        if not self.is_over():
            return None
        x, o = self.count(0), self.count(1)
        limited = self.rules.halfmove_limit and self.halfmove >= self.rules.halfmove_limit
        movable = self.can_move(0) or self.can_move(1)
        if self.rules.passes and limited and x > 0 and o > 0 and movable:
            return (0.0, 0.0)
        return (1.0, -1.0) if x > o else (-1.0, 1.0) if o > x else (0.0, 0.0)

    def legal_moves(self):
        """The legal moves, in action order: clones by destination, jumps, pass."""
        if self.is_over():
            return []
        me = X + self.to_move
        out = []
        for c, code in enumerate(self.cells):
            if code == EMPTY and any(
                (t := self.offset(c, d)) is not None and self.cells[t] == me for d in NEIGHBOURS
            ):
                out.append(self.square_name(c))
        for c, code in enumerate(self.cells):
            if code == me:
                for d in JUMPS:
                    t = self.offset(c, d)
                    if t is not None and self.cells[t] == EMPTY:
                        out.append(self.square_name(c) + self.square_name(t))
        if not out and self.rules.passes:
            out.append("0000")
        return out

    def parse_square(self, text):
        n = self.size
        file, rank = ord(text[0]) - ord("a"), int(text[1:])
        if not (0 <= file < n and 1 <= rank <= n):
            raise ValueError(text)
        return (n - rank) * n + file

    def play(self, move):
        """Plays a legal move in place; raises ``ValueError`` on an illegal one."""
        move = move.strip().lower()
        if move not in self.legal_moves():
            raise ValueError(f"illegal move {move}")
        me = X + self.to_move
        if move == "0000":
            self.halfmove += 1
        else:
            squares = re.fullmatch(r"([a-z]\d+)([a-z]\d+)?", move).groups()
            to = self.parse_square(squares[-1] or squares[0])
            if squares[1] is None:
                self.halfmove = 0
            else:
                self.cells[self.parse_square(squares[0])] = EMPTY
                self.halfmove += 1
            self.cells[to] = me
            for d in NEIGHBOURS:
                t = self.offset(to, d)
                if t is not None and self.cells[t] == X + 1 - self.to_move:
                    self.cells[t] = me
        if self.to_move == 1:
            self.fullmove += 1
        self.to_move ^= 1

    def encode(self):
        """The network input: 6 planes of size x size from the mover's view."""
        n = self.size
        x = np.zeros((6, n, n), dtype=np.float32)
        me = X + self.to_move
        for c, code in enumerate(self.cells):
            plane = 2 if code == EMPTY else 3 if code == BLOCKED else 0 if code == me else 1
            x[plane, c // n, c % n] = 1.0
        x[4] = 1.0
        if self.rules.halfmove_limit:
            x[5] = np.float32(self.halfmove) / np.float32(self.rules.halfmove_limit)
        return x

    def to_notation(self):
        n = self.size
        ranks = []
        for r in range(n):
            row, empty = "", 0
            for c in range(n):
                code = self.cells[r * n + c]
                if code == EMPTY:
                    empty += 1
                    continue
                if empty:
                    row, empty = row + str(empty), 0
                row += "-" if code == BLOCKED else "xo"[code - 1]
            ranks.append(row + (str(empty) if empty else ""))
        return f"{'/'.join(ranks)} {'xo'[self.to_move]} {self.halfmove} {self.fullmove}"

    @classmethod
    def from_notation(cls, text, settings):
        """Parses a FEN; the board must have the settings' size."""
        rules = Rules(settings)
        fields = text.split()
        if not 2 <= len(fields) <= 4:
            raise ValueError(f"cannot parse position '{text}': expected 4 fields")
        ranks = fields[0].split("/")
        n = len(ranks)
        if n != rules.size:
            raise ValueError(f"cannot parse position '{text}': {n} ranks, this game has {rules.size}")
        cells = []
        for rank in ranks:
            row, digits = [], ""
            for ch in rank + " ":
                if ch.isdigit():
                    digits += ch
                    continue
                if digits:
                    row.extend([EMPTY] * int(digits))
                    digits = ""
                if ch == " ":
                    break
                codes = {"x": X, "b": X, "o": O, "w": O, "-": BLOCKED}
                if ch.lower() not in codes:
                    raise ValueError(f"cannot parse position '{text}': unexpected '{ch}'")
                row.append(codes[ch.lower()])
            if len(row) != n:
                raise ValueError(f"cannot parse position '{text}': a rank of {len(row)} squares")
            cells.extend(row)
        side = fields[1].lower()
        if side not in ("x", "o", "b", "w"):
            raise ValueError(f"cannot parse position '{text}': side to move '{fields[1]}'")
        halfmove = int(fields[2]) if len(fields) > 2 else 0
        fullmove = max(1, int(fields[3])) if len(fields) > 3 else 1
        return cls(rules, cells, 0 if side in ("x", "b") else 1, halfmove, fullmove)
