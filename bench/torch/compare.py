"""Contagion Zero's training step against PyTorch eager mode, on the same network, in one run.

    python3 bench/torch/compare.py [--config configs/infexion.toml | --game infexion]
                                   [--sizes 4x32,8x64] [--batches 128,256] [--threads 1,2]

1. Builds the network of the config (or game) in PyTorch: the same residual trunk (3x3
   convolutions, circular padding on the Infexion torus, batch norm in training mode),
   heads, masked policy cross-entropy plus value MSE, and Adam.
2. Checks one step: ``contagion bench train --dump`` writes a freshly initialised network
   (seeded), one training batch, and our losses and gradients; PyTorch loads the same
   weights, computes the step on the same batch, and every gradient must agree within
   1e-3 of the tensor's largest magnitude (the loss within 1e-5), or the script fails.
3. Times PyTorch (``torch.set_num_threads``) and ``contagion bench train`` at each thread
   count, batch size and network size, medians of 5 rounds of 10 steps, and prints one
   table with the ratios. Needs ``pip install -r bench/torch/requirements.txt``.
"""

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
import tomllib

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))


class ConvBn(nn.Module):
    def __init__(self, cin, cout, wraps):
        super().__init__()
        mode = "circular" if wraps else "zeros"
        self.conv = nn.Conv2d(cin, cout, 3, padding=1, padding_mode=mode, bias=False)
        self.bn = nn.BatchNorm2d(cout, eps=1e-5, momentum=0.1)

    def forward(self, x):
        return self.bn(self.conv(x))


class Net(nn.Module):
    """The network of ``src/nn/network.rs``, named as burn names its tensors."""

    def __init__(self, s):
        super().__init__()
        c, w = s["channels"], s["wraps"]
        self.stem = ConvBn(s["in_planes"], c, w)
        self.blocks = nn.ModuleList()
        for _ in range(s["blocks"]):
            block = nn.Module()
            block.a, block.b = ConvBn(c, c, w), ConvBn(c, c, w)
            self.blocks.append(block)
        self.policy = nn.Conv2d(c, s["policy_planes"], 1)
        self.value_conv = nn.Conv2d(c, s["value_channels"], 1, bias=False)
        self.value_bn = nn.BatchNorm2d(s["value_channels"], eps=1e-5, momentum=0.1)
        self.value_hidden = nn.Linear(s["value_channels"], s["value_hidden"])
        self.value_out = nn.Linear(s["value_hidden"], s["num_players"])
        self.register_buffer("order", torch.tensor(s["action_order"], dtype=torch.long))

    def forward(self, x):
        h = F.relu(self.stem(x))
        for b in self.blocks:
            h = F.relu(b.b(F.relu(b.a(h))) + h)
        logits = self.policy(h).flatten(1).index_select(1, self.order)
        v = F.relu(self.value_bn(self.value_conv(h))).mean(dim=(2, 3))
        return logits, torch.tanh(self.value_out(F.relu(self.value_hidden(v))))


def torch_name(burn_name):
    """burn's tensor path -> PyTorch's state-dict key."""
    return (
        burn_name.replace(".gamma", ".weight")
        .replace(".beta", ".bias")
        .replace("running_var", "running_var")
    )


def load(net, weights):
    state = net.state_dict()
    for name, t in weights.items():
        value = torch.tensor(t["data"], dtype=torch.float32).reshape(t["dims"])
        key = torch_name(name)
        if key.startswith(("value_hidden.weight", "value_out.weight")):
            value = value.t()  # burn stores linear layers [in, out]
        assert state[key].shape == value.shape, (key, state[key].shape, value.shape)
        state[key] = value
    net.load_state_dict(state)


def loss_of(net, b, s, vw):
    shape = (b["size"], s["in_planes"], s["height"], s["width"])
    x = torch.tensor(b["input"], dtype=torch.float32).reshape(shape)
    na, npl = len(s["action_order"]), s["num_players"]
    mask = torch.tensor(b["mask"], dtype=torch.float32).reshape(-1, na)
    target = torch.tensor(b["policy"], dtype=torch.float32).reshape(-1, na)
    value = torch.tensor(b["value"], dtype=torch.float32).reshape(-1, npl)
    return batch_loss(net, x, mask, target, value, vw)


def batch_loss(net, x, mask, target, value, vw):
    logits, v = net(x)
    policy = -(F.log_softmax(logits + mask, dim=1) * target).sum(1).mean()
    mse = ((v - value) ** 2).mean()
    return policy, mse, policy + vw * mse


def contagion(*args):
    exe = os.path.join(ROOT, "target", "release", "contagion")
    if not os.path.exists(exe):
        sys.exit(f"{exe} not found: run `cargo build --release` first")
    out = subprocess.run([exe, *args], check=True, capture_output=True, text=True)
    return out.stdout


def check(game, blocks, channels, batch):
    """One step from the same weights and batch: losses and every gradient."""
    with tempfile.TemporaryDirectory() as d:
        contagion("bench", "train", "--game", game, "--blocks", str(blocks),
                  "--channels", str(channels), "--batch", str(batch), "--dump", d)
        with open(os.path.join(d, "step.json"), encoding="utf-8") as f:
            dump = json.load(f)
    s = dump["shape"]
    net = Net(s)
    load(net, dump["weights"])
    net.train()
    p, v, total = loss_of(net, dump["batch"], s, dump["value_weight"])
    total.backward()
    ours = dump["losses"]
    assert abs(total.item() - ours["total"]) <= 1e-5 * max(1.0, abs(ours["total"])), (
        f"loss: PyTorch {total.item()} ours {ours['total']}")
    params = dict(net.named_parameters())
    worst = 0.0
    for name, g in dump["gradients"].items():
        tg = params[torch_name(name)].grad
        if name.startswith(("value_hidden.weight", "value_out.weight")):
            tg = tg.t()
        tg = tg.reshape(-1).numpy()
        rel = np.abs(np.asarray(g) - tg).max() / max(np.abs(tg).max(), 1e-12)
        worst = max(worst, rel)
        assert rel <= 1e-3, f"gradient {name}: relative difference {rel:.2e}"
    print(f"check {game} {blocks}x{channels}, batch {batch}: loss {total.item():.6f} (PyTorch) "
          f"{ours['total']:.6f} (ours); {len(dump['gradients'])} gradients, largest relative "
          f"difference {worst:.1e}")
    return s, dump["value_weight"]


def time_torch(s, vw, batch, threads, rounds, steps):
    torch.set_num_threads(threads)
    torch.manual_seed(0)
    net = Net(s).train()
    opt = torch.optim.Adam(net.parameters(), lr=1e-3, weight_decay=1e-4)
    na, npl = len(s["action_order"]), s["num_players"]
    x = (torch.rand(batch, s["in_planes"], s["height"], s["width"]) < 0.3).float()
    mask = torch.where(torch.rand(batch, na) < 0.2, 0.0, -1e9)
    mask[:, 0] = 0.0
    target = torch.zeros(batch, na)
    target[:, 0] = 1.0
    value = torch.ones(batch, npl)

    def step():
        opt.zero_grad(set_to_none=True)
        _, _, total = batch_loss(net, x, mask, target, value, vw)
        total.backward()
        opt.step()

    step()
    rates = []
    for _ in range(rounds):
        t0 = time.perf_counter()
        for _ in range(steps):
            step()
        rates.append(steps * batch / (time.perf_counter() - t0))
    return statistics.median(rates)


def time_ours(game, blocks, channels, batch, threads, rounds, steps):
    out = contagion("bench", "train", "--game", game, "--blocks", str(blocks),
                    "--channels", str(channels), "--batch", str(batch), "--threads",
                    str(threads), "--rounds", str(rounds), "--steps", str(steps), "--json")
    return json.loads(out)["samples_per_s"]


def cpu_name():
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown CPU"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--config", help="take the game and network size from this config")
    ap.add_argument("--game", default="infexion")
    ap.add_argument("--sizes", default=None, help="networks as BLOCKSxCHANNELS, comma-separated "
                    "(default: the config's, else 4x32,8x64)")
    ap.add_argument("--batches", default="128,256")
    ap.add_argument("--threads", default="1,2")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--steps", type=int, default=10)
    a = ap.parse_args()
    game, sizes = a.game, a.sizes
    if a.config:
        with open(a.config, "rb") as f:
            c = tomllib.load(f)
        game = c.get("run", {}).get("game", game)
        net = c.get("network", {})
        sizes = sizes or f"{net.get('blocks', 4)}x{net.get('channels', 32)}"
    sizes = [tuple(int(v) for v in z.split("x")) for z in (sizes or "4x32,8x64").split(",")]
    batches = [int(b) for b in a.batches.split(",")]
    threads = [int(t) for t in a.threads.split(",")]
    print(f"{cpu_name()}, {os.cpu_count()} cores; PyTorch {torch.__version__} eager")
    rows = []
    for blocks, channels in sizes:
        s, vw = check(game, blocks, channels, 4)
        for batch in batches:
            for t in threads:
                ours = time_ours(game, blocks, channels, batch, t, a.rounds, a.steps)
                theirs = time_torch(s, vw, batch, t, a.rounds, a.steps)
                rows.append((f"{blocks}x{channels}", batch, t, ours, theirs))
    print()
    print(f"| {game} net | batch | threads | ours (samples/s) | PyTorch eager (samples/s) | ours / PyTorch |")
    print("|---|---:|---:|---:|---:|---:|")
    for size, batch, t, ours, theirs in rows:
        print(f"| {size} | {batch} | {t} | {ours:,.0f} | {theirs:,.0f} | {ours / theirs:.2f}x |")


if __name__ == "__main__":
    main()
