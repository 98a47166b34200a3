"""One entry point for every game a bundle can be trained for.

:class:`Game` takes the bundle's manifest: the game's name picks the rules module, its
``settings`` configure them (board size, passes, limits) and its ``start`` is the
start position; the action space (move names in action order) comes from
``actions.moves``. Every position object offers the same methods: ``to_move``,
``legal_moves()`` (move names, in action order), ``play(name)``, ``outcome()``,
``encode()``, ``to_notation()`` and ``copy()``.
"""

from . import ataxx, chexers, infexion

#: The games whose rules this package knows: the Rust crate's built-in games
#: (``tests/suite/export.rs`` holds the list to them). A bundle of any other game, one a
#: program built on the Rust library adds, still runs with :class:`czero.Model`.
RULES = ("infexion", "ataxx", "virus", "chexers")


class UnknownRules(ValueError):
    """A bundle's game whose rules this package does not know."""


class InfexionState:
    """:class:`czero.infexion.Board` behind the common interface."""

    __slots__ = ("board",)

    def __init__(self, board):
        self.board = board

    @property
    def to_move(self):
        return self.board.to_move

    def copy(self):
        return InfexionState(self.board.copy())

    def legal_moves(self):
        return [infexion.action_to_string(a) for a in self.board.legal_actions()]

    def play(self, move):
        self.board.apply(infexion.parse_action(move))

    def outcome(self):
        return self.board.outcome()

    def encode(self):
        return self.board.encode()

    def to_notation(self):
        return self.board.to_notation()


class Game:
    """The rules, positions and action space of a bundle's game."""

    def __init__(self, manifest):
        game = manifest["game"]
        self.name = game["name"]
        self.players = game["players"]
        self.settings = game.get("settings", {})
        self.start_notation = game["start"]
        moves = manifest["actions"]["moves"]
        # Names of impossible actions (off the board) repeat; legal moves never do.
        self.index = {}
        for a, name in enumerate(moves):
            self.index.setdefault(name, a)
        if self.name not in RULES:
            raise UnknownRules(
                f"czero knows the rules of {', '.join(RULES)} only, not of '{self.name}' "
                "(a game a program built on the Rust library adds): its bundle's network still "
                "runs with czero.Model(path).forward(planes), from positions your program encodes "
                "as manifest['input'] describes"
            )

    def position(self, text):
        """A position from the game's notation."""
        if self.name == "infexion":
            return InfexionState(infexion.Board.from_notation(text))
        if self.name == "chexers":
            return chexers.Chexers.from_notation(text)
        return ataxx.Ataxx.from_notation(text, self.settings)

    def start(self):
        if self.name == "chexers":
            return chexers.Chexers.start()
        return self.position(self.start_notation)

    def parse(self, line):
        """``startpos [moves M...]`` or ``[fen] NOTATION [moves M...]``, as the engine
        protocol's ``position`` takes it."""
        words = line.split()
        split = words.index("moves") if "moves" in words else len(words)
        setup, moves = words[:split], words[split + 1 :]
        if setup == ["startpos"]:
            state = self.start()
        else:
            state = self.position(" ".join(setup[1:] if setup[:1] == ["fen"] else setup))
        for m in moves:
            state.play(m)
        return state

    def action(self, move):
        """The action index of a move name."""
        return self.index[move]

    def legal_actions(self, state):
        """The legal moves as action indices, ascending."""
        return sorted(self.index[m] for m in state.legal_moves())
