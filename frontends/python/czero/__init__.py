"""Contagion Zero bundles in Python, with numpy alone.

- ``czero.safetensors``: reads ``model.safetensors`` (float32 tensors).
- ``czero.model``: :class:`Model` loads a bundle directory and runs the forward pass
  described by its ``manifest.json`` (no other knowledge of the network);
  :func:`current_model` finds a game's current model in the repository's ``models/``.
- ``czero.games``: :class:`Game` picks the rules for a manifest's game and maps move
  names to the action space listed in the manifest.
- ``czero.infexion``, ``czero.ataxx`` (Ataxx and Virus), ``czero.chexers``: each game's
  rules, input encoding and move notation, enough to turn the policy into legal moves.
- ``czero.mcts``: a small PUCT search guided by the model, with a time budget.
- ``czero.nnue``: the fast evaluator's bundles (``contagion distill``) and an alpha-beta
  search over them, with a time budget.
"""

from .games import RULES, Game, UnknownRules
from .model import BundleError, Model, current_model

__all__ = ["Model", "BundleError", "Game", "RULES", "UnknownRules", "current_model"]
