"""Stand-in for ``referee.game`` (COMP30024 2023): ``PlayerColor``, ``HexPos``,
``HexVec``, ``HexDir``, ``SpawnAction``, ``SpreadAction`` and ``Action``, with the
course's names, fields and direction vectors."""

from dataclasses import dataclass
from enum import Enum

BOARD_N = 7


class PlayerColor(Enum):
    RED = 0
    BLUE = 1

    @property
    def opponent(self):
        return PlayerColor.BLUE if self is PlayerColor.RED else PlayerColor.RED

    def __str__(self):
        return self.name


@dataclass(frozen=True, slots=True)
class HexVec:
    r: int = 0
    q: int = 0

    def __add__(self, other):
        return self.__class__(self.r + other.r, self.q + other.q)

    def __mul__(self, n):
        return self.__class__(self.r * n, self.q * n)


@dataclass(frozen=True, slots=True)
class HexPos(HexVec):
    def __post_init__(self):
        if not (0 <= self.r < BOARD_N and 0 <= self.q < BOARD_N):
            raise ValueError(f"HexPos({self.r}, {self.q}) is off the board")

    def __add__(self, other):
        return HexPos((self.r + other.r) % BOARD_N, (self.q + other.q) % BOARD_N)


class HexDir(Enum):
    DownRight = HexVec(0, 1)
    Down = HexVec(-1, 1)
    DownLeft = HexVec(-1, 0)
    UpLeft = HexVec(0, -1)
    Up = HexVec(1, -1)
    UpRight = HexVec(1, 0)

    @property
    def r(self):
        return self.value.r

    @property
    def q(self):
        return self.value.q


@dataclass(frozen=True, slots=True)
class SpawnAction:
    cell: HexPos

    def __str__(self):
        return f"SPAWN({self.cell.r}, {self.cell.q})"


@dataclass(frozen=True, slots=True)
class SpreadAction:
    cell: HexPos
    direction: HexDir

    def __str__(self):
        return f"SPREAD({self.cell.r}, {self.cell.q}, {self.direction.r}, {self.direction.q})"


Action = SpawnAction | SpreadAction
