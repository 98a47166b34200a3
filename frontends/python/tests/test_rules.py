"""The front end's rules for every game, against counts from the Rust engine.

Run with the package installed (``pip install ./frontends/python``):
``python -m unittest discover -s frontends/python/tests``. The Rust test suite runs
them (``cargo test``), after installing the package into its test environment.
"""

import json
import os
import unittest

import czero
from czero.games import Game

ROOT = os.path.join(os.path.dirname(__file__), "..", "..", "..")


def manifest(game):
    """A manifest for ``game``: the current shipped bundle's, or one made by the Rust tests."""
    path = os.environ.get(f"CZERO_{game.upper()}_MANIFEST") or os.path.join(
        czero.current_model(os.path.join(ROOT, "models"), game), "manifest.json"
    )
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def perft(state, depth):
    if depth == 0:
        return 1
    total = 0
    for move in state.legal_moves():
        child = state.copy()
        child.play(move)
        total += perft(child, depth - 1)
    return total


class Rules(unittest.TestCase):
    def check(self, game, counts):
        g = Game(manifest(game))
        start = g.start()
        self.assertEqual(start.to_notation(), g.start_notation)
        for depth, expected in enumerate(counts, 1):
            self.assertEqual(perft(start, depth), expected, f"{game} perft {depth}")
        # Every legal move is in the manifest's action space, in action order.
        actions = g.legal_actions(start)
        self.assertEqual(actions, sorted(actions))
        self.assertEqual(len(actions), counts[0])

    def test_infexion(self):
        self.check("infexion", [49, 2352])

    def test_ataxx(self):
        self.check("ataxx", [16, 256, 6460])

    def test_virus(self):
        self.check("virus", [16, 256])

    def test_chexers(self):
        self.check("chexers", [8, 64, 512])

    def test_bad_moves_and_positions_raise(self):
        g = Game(manifest("ataxx"))
        s = g.start()
        for bad in ["a1", "a7a5x", "z9", "0000"]:
            with self.assertRaises(ValueError, msg=bad):
                s.play(bad)
        with self.assertRaises(ValueError):
            g.position("x5o/7/7 x 0 1")
        self.assertEqual(s.to_notation(), g.start_notation, "failed moves change nothing")

    def test_the_package_is_installed(self):
        self.assertIn("Model", czero.__all__)


if __name__ == "__main__":
    unittest.main()
