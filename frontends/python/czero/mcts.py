"""A small PUCT Monte Carlo tree search guided by an exported network.

Like the Rust search: priors from the policy (softmax over the legal moves), leaf
values from the value head, first-play urgency equal to the parent's mean value,
``c_puct = 1.5``, no noise, and the most visited move is played. Values are kept from
Red's point of view and turned to the mover's at each node (Infexion alternates).
"""

import math
import time

import numpy as np

from .infexion import RED


class Node:
    __slots__ = ("board", "actions", "priors", "visits", "value_sum", "children", "n", "w")

    def __init__(self, board):
        self.board = board
        self.actions = None  # legal actions, once expanded
        self.priors = None
        self.children = {}
        self.visits = 0
        self.value_sum = 0.0  # from the mover's point of view
        self.n = None  # per-action visits
        self.w = None  # per-action value sums, from this node's mover's point of view


class Search:
    def __init__(self, model, c_puct=1.5):
        self.model = model
        self.c_puct = c_puct
        self.evaluations = 0

    def _expand(self, node):
        """Expands ``node``; returns its value from Red's point of view."""
        outcome = node.board.outcome()
        if outcome is not None:
            return outcome[RED]
        logits, values = self.model.forward(node.board.encode()[None])
        self.evaluations += 1
        node.actions = node.board.legal_actions()
        z = logits[0, node.actions].astype(np.float64)
        p = np.exp(z - z.max())
        node.priors = p / p.sum()
        node.n = np.zeros(len(node.actions))
        node.w = np.zeros(len(node.actions))
        mover_value = float(values[0, 0])
        return mover_value if node.board.to_move == RED else -mover_value

    def _select(self, node):
        parent_q = node.value_sum / node.visits if node.visits else 0.0
        q = np.where(node.n > 0, node.w / np.maximum(node.n, 1), parent_q)
        u = q + self.c_puct * node.priors * math.sqrt(max(node.visits, 1)) / (1 + node.n)
        return int(np.argmax(u))

    def simulate(self, root):
        path, node = [], root
        while node.actions is not None and node.actions:
            i = self._select(node)
            path.append((node, i))
            a = node.actions[i]
            child = node.children.get(a)
            if child is None:
                board = node.board.copy()
                board.apply(a)
                child = node.children[a] = Node(board)
            node = child
        red = self._expand(node) if node.actions is None else node.board.outcome()[RED]
        sign = lambda n: 1.0 if n.board.to_move == RED else -1.0  # noqa: E731
        node.visits += 1
        node.value_sum += sign(node) * red
        for parent, i in path:
            v = sign(parent) * red
            parent.n[i] += 1
            parent.w[i] += v
            parent.visits += 1
            parent.value_sum += v

    def run(self, board, seconds=None, sims=200):
        """Searches ``board`` for ``seconds`` of CPU and wall time (or ``sims``
        simulations when ``seconds`` is None); returns (action, info dict)."""
        root = Node(board.copy())
        start_cpu, start_wall = time.process_time(), time.perf_counter()
        done = 0
        while True:
            self.simulate(root)
            done += 1
            if seconds is None:
                if done >= sims:
                    break
            elif (
                time.process_time() - start_cpu >= seconds
                or time.perf_counter() - start_wall >= seconds
            ):
                break
            if len(root.actions or ()) <= 1 and done >= 2:
                break
        if not root.actions:
            raise ValueError("no legal move: the game is over")
        best = int(np.argmax(root.n))
        order = np.argsort(-root.n)[:3]
        info = {
            "sims": done,
            "value": root.value_sum / max(root.visits, 1),
            "seconds": time.perf_counter() - start_wall,
            "top": [(root.actions[i], int(root.n[i])) for i in order],
        }
        return root.actions[best], info
