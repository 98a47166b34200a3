"""Runs an exported Contagion Zero network from its ``manifest.json`` alone.

The manifest lists the layers as operations over named values (``conv2d``, ``add``,
``broadcast_add``, ``flatten``, ``gather``, ``global_average_pool``, ``global_pool``,
``linear``); :class:`Model` checks the
bundle and interprets that list with numpy. Batch norm is already folded into the
convolutions, so inference is convolutions, matrix products and activations.
"""

import hashlib
import json
import os
import warnings

import numpy as np

from . import safetensors

FORMAT = "contagion-bundle"
# The newest bundle format version this reads; it reads every one from 1 on.
VERSION = 2


def current_model(models, game):
    """The directory of ``game``'s current model as the index of the models directory
    ``models`` (``models/index.json``) names it, or None without an index or a model."""
    try:
        with open(os.path.join(models, "index.json"), encoding="utf-8") as f:
            index = json.load(f)
    except (OSError, ValueError):
        return None
    for m in index.get("models", []):
        kind = m.get("kind", "network")  # evaluators play as nnue: in contagion
        if m.get("game") == game and m.get("status") == "current" and kind == "network":
            return os.path.join(models, m["name"])
    return None


class BundleError(ValueError):
    """The bundle is missing, damaged, of another version or inconsistent."""


def read_bundle(directory, fmt, version, what):
    """The manifest and the tensors of the bundle in ``directory``, checked: its
    ``format`` is ``fmt``, its version 1 to ``version``, the weights' SHA-256 the
    manifest's, every tensor finite. Raises :class:`BundleError` otherwise."""
    path = os.path.join(directory, "manifest.json")
    try:
        with open(path, encoding="utf-8") as f:
            m = json.load(f)
    except OSError as e:
        raise BundleError(f"cannot read {path}: {e.strerror}") from None
    except ValueError as e:
        raise BundleError(f"{path}: not JSON: {e}") from None
    if not isinstance(m, dict) or m.get("format") != fmt:
        got = m.get("format") if isinstance(m, dict) else None
        raise BundleError(f"{path}: not {what} (format {got!r})")
    if m.get("version") not in range(1, version + 1):
        raise BundleError(
            f"{path}: bundle version {m.get('version')}, this reads versions 1 to {version}"
        )
    weights = os.path.join(directory, "model.safetensors")
    try:
        with open(weights, "rb") as f:
            raw = f.read()
    except OSError as e:
        raise BundleError(f"cannot read the weights: {e.strerror}") from None
    digest = hashlib.sha256(raw).hexdigest()
    if "weights_sha256" not in m:
        warnings.warn(
            f"{directory}: no weights_sha256 in the manifest (exported before "
            "checksums); the weights are not verified",
            stacklevel=3,
        )
    elif digest != m["weights_sha256"]:
        raise BundleError(
            f"{weights}: damaged or replaced (its SHA-256 is {digest}, "
            f"the manifest says {str(m.get('weights_sha256'))[:80]})"
        )
    try:
        tensors = safetensors.parse(raw)
    except safetensors.SafetensorsError as e:
        raise BundleError(f"model.safetensors: {e}") from None
    for name, t in tensors.items():
        if not np.isfinite(t).all():
            raise BundleError(f"model.safetensors: tensor '{name}' holds NaN or infinite values")
    return m, tensors


def _activate(x, name):
    if name == "relu":
        return np.maximum(x, 0.0)
    if name == "tanh":
        return np.tanh(x)
    if name == "none":
        return x
    raise BundleError(f"unknown activation '{name}'")


def conv2d(x, weight, bias, padding):
    """``x`` [B, C, H, W], ``weight`` [O, C, k, k] (cross-correlation, stride 1)."""
    out_c, _, k, _ = weight.shape
    b, c, h, w = x.shape
    if k == 1:
        y = np.einsum("oc,bchw->bohw", weight[:, :, 0, 0], x, optimize=True)
    else:
        p = k // 2
        mode = {"circular": "wrap", "zeros": "constant"}.get(padding)
        if mode is None:
            raise BundleError(f"unknown padding '{padding}' for a {k}x{k} convolution")
        xp = np.pad(x, ((0, 0), (0, 0), (p, p), (p, p)), mode=mode)
        cols = np.empty((c, k, k, b, h, w), dtype=x.dtype)
        for i in range(k):
            for j in range(k):
                cols[:, i, j] = xp[:, :, i : i + h, j : j + w].transpose(1, 0, 2, 3)
        y = weight.reshape(out_c, c * k * k) @ cols.reshape(c * k * k, b * h * w)
        y = y.reshape(out_c, b, h, w).transpose(1, 0, 2, 3)
    return y + bias[None, :, None, None]


class Model:
    """A bundle directory (``manifest.json`` + ``model.safetensors``), ready to run."""

    def __init__(self, directory):
        self.directory = directory
        self.manifest, self.tensors = read_bundle(directory, FORMAT, VERSION, "a model bundle")
        m = self.manifest
        self.layers = m["architecture"]["layers"]
        self.input_shape = tuple(m["input"]["shape"])
        self.policy_index = np.asarray(m["actions"]["policy_index"], dtype=np.int64)
        self._check_shapes()

    def _check_shapes(self):
        for layer in self.layers:
            if layer["op"] == "conv2d":
                k = layer["kernel"]
                want = {layer["weight"]: (layer["out_channels"], layer["in_channels"], k, k)}
            elif layer["op"] == "linear":
                want = {layer["weight"]: (layer["out_features"], layer["in_features"])}
            else:
                continue
            want[layer["bias"]] = (want[layer["weight"]][0],)
            for name, shape in want.items():
                if name not in self.tensors:
                    raise BundleError(f"tensor '{name}' is missing from model.safetensors")
                if self.tensors[name].shape != shape:
                    raise BundleError(
                        f"tensor '{name}' has shape {self.tensors[name].shape}, "
                        f"the manifest needs {shape}"
                    )

    def _lookup(self, dotted):
        node = self.manifest
        for part in dotted.split("."):
            node = node[part]
        return np.asarray(node, dtype=np.int64)

    def forward(self, x):
        """``x`` [batch, planes, height, width] → (policy logits [batch, actions],
        values [batch, players] relative to the player to move)."""
        out = self.outputs(x)
        return out["policy"], out["value"]

    def outputs(self, x):
        """Every output the manifest names, by its key: ``policy``, ``value`` and each
        auxiliary head the bundle has (``ownership`` [batch, classes, height, width],
        ``margin``, ``short_value``, ``soft_policy``), as ``manifest.json`` describes."""
        x = np.asarray(x, dtype=np.float32)
        if x.shape[1:] != self.input_shape:
            raise ValueError(f"input shape {x.shape[1:]}, the model takes {self.input_shape}")
        v = {"input": x}
        t = self.tensors
        for layer in self.layers:
            op = layer["op"]
            if op == "conv2d":
                y = conv2d(v[layer["input"]], t[layer["weight"]], t[layer["bias"]], layer["padding"])
            elif op == "add":
                a, b = layer["inputs"]
                y = v[a] + v[b]
            elif op == "broadcast_add":
                a, b = layer["inputs"]
                y = v[a] + v[b][:, :, None, None]
            elif op == "flatten":
                y = v[layer["input"]].reshape(x.shape[0], -1)
            elif op == "gather":
                y = v[layer["input"]][:, self._lookup(layer["index"])]
            elif op == "global_average_pool":
                y = v[layer["input"]].mean(axis=(2, 3))
            elif op == "global_pool":
                z = v[layer["input"]]
                y = np.concatenate([z.mean(axis=(2, 3)), z.max(axis=(2, 3))], axis=1)
            elif op == "linear":
                y = v[layer["input"]] @ t[layer["weight"]].T + t[layer["bias"]]
            else:
                raise BundleError(f"unknown layer op '{op}'")
            v[layer["output"]] = _activate(y, layer.get("activation", "none"))
        return {key: v[o["value"]] for key, o in self.manifest["outputs"].items()}
