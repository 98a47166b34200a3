"""Contagion Zero bundles in Python, with numpy alone.

- ``czero.safetensors``: reads ``model.safetensors`` (float32 tensors).
- ``czero.model``: :class:`Model` loads a bundle directory and runs the forward pass
  described by its ``manifest.json`` (no other knowledge of the network).
- ``czero.infexion``: the Infexion rules, the input encoding and the move notation,
  enough to turn the policy into legal moves.
- ``czero.mcts``: a small PUCT search guided by the model, with a time budget.
"""

from .model import Model, BundleError

__all__ = ["Model", "BundleError"]
