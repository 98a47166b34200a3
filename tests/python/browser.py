"""Drives `contagion serve`'s page in headless Chromium, by clicks, as a person would
(tests/suite/browser.rs). Speaks WebDriver to chromedriver with the standard library alone.

    python browser.py URL OUT_DIR

Plays a whole Ataxx game and a whole Infexion game against the shipped models, checks
that an illegal click is refused with a reason, that undo takes a move back and that
the finished game downloads as PGN, opens a run's curves and replays a recorded game,
and saves screenshots into OUT_DIR. Prints one JSON line of what it saw; exits non-zero
on the first thing that is wrong.
"""

import base64
import json
import os
import random
import socket
import subprocess
import sys
import time
import urllib.request


class WebDriver:
    """The few WebDriver commands this needs, over HTTP to a chromedriver child."""

    def __init__(self):
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port = s.getsockname()[1]
        self.proc = subprocess.Popen(["chromedriver", f"--port={port}"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        self.base = f"http://127.0.0.1:{port}"
        for _ in range(100):
            try:
                self._call("GET", "/status")
                break
            except OSError:
                time.sleep(0.1)
        args = ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--window-size=1100,900"]
        caps = {"capabilities": {"alwaysMatch": {"goog:chromeOptions": {"args": args}}}}
        self.session = self._call("POST", "/session", caps)["sessionId"]

    def _call(self, method, path, body=None):
        data = None if body is None else json.dumps(body).encode()
        req = urllib.request.Request(self.base + path, data=data, method=method, headers={"Content-Type": "application/json"})
        with urllib.request.urlopen(req, timeout=60) as res:
            return json.loads(res.read())["value"]

    def cmd(self, method, path, body=None):
        return self._call(method, f"/session/{self.session}{path}", body)

    def get(self, url):
        self.cmd("POST", "/url", {"url": url})

    def js(self, script, *args):
        return self.cmd("POST", "/execute/sync", {"script": script, "args": list(args)})

    def click(self, css):
        el = self.cmd("POST", "/element", {"using": "css selector", "value": css})
        self.cmd("POST", f"/element/{list(el.values())[0]}/click", {})

    def select(self, css, value):
        self.js("const s = document.querySelector(arguments[0]); s.value = arguments[1]; s.dispatchEvent(new Event('change'));", css, value)

    def screenshot(self, path):
        with open(path, "wb") as f:
            f.write(base64.b64decode(self.cmd("GET", "/screenshot")))

    def quit(self):
        try:
            self.cmd("DELETE", "")
        finally:
            self.proc.kill()


def wait(d, what, check, timeout=60):
    end = time.time() + timeout
    while time.time() < end:
        value = check()
        if value:
            return value
        time.sleep(0.05)
    raise SystemExit(f"timed out waiting for {what}")


def status(d):
    return d.js("return document.getElementById('status').textContent")


def settled(d):
    s = status(d)
    return s if s.startswith("Your move") or s.startswith("Game over") else None


def play_whole_game(d, name, opponent, shot, rng, checks):
    """One whole game by clicks; returns what was seen."""
    d.select("#game", name)
    d.select("#opponent", opponent)
    d.select("#movetime", "100")
    d.click("#new-game")
    wait(d, "a new game", lambda: settled(d) and d.js("return game && game.game") == name)
    seen = {"game": name, "refused": None, "undo": None, "clicks": 0}
    moves = 0
    while True:
        s = wait(d, "the human's turn", lambda: settled(d))
        if s.startswith("Game over"):
            break
        legal = d.js("return game.legal")
        human = d.js("return game.human")
        if seen["refused"] is None and moves >= 1:
            # A cell that no legal move starts or ends on: the opponent's piece if any.
            used = {m["from"] for m in legal} | {m["to"] for m in legal}
            cells = d.js("return game.board.cells")
            bad = [c for c in cells if c["id"] not in used and c["owner"] not in (None, human) and not c["blocked"]]
            bad = bad or [c for c in cells if c["id"] not in used and not c["blocked"]]
            d.click(f'#board g[data-cell="{bad[0]["id"]}"]')
            msg = wait(d, "the refusal", lambda: d.js("return document.getElementById('message').textContent"), 20)
            if not msg.startswith("Refused:"):
                raise SystemExit(f"{name}: an illegal click gave {msg!r}")
            seen["refused"] = msg
            wait(d, "the human's turn", lambda: settled(d))
        if seen["undo"] is None and moves >= 1:
            before = len(d.js("return game.history"))
            d.click("#undo")
            wait(d, "undo", lambda: len(d.js("return game.history")) < before, 20)
            seen["undo"] = [before, len(d.js("return game.history"))]
            continue
        m = rng.choice(legal)
        if m["from"] is None and m["to"] is None:
            d.click("#pass-move")
        elif m["from"] is None:
            d.click(f'#board g[data-cell="{m["to"]}"]')
        else:
            d.click(f'#board g[data-cell="{m["from"]}"]')
            wait(d, "a selection", lambda: d.js("return selected") == m["from"], 10)
            if m["to"] is None:
                d.click("#exit-move")
            else:
                d.click(f'#board g[data-cell="{m["to"]}"]')
            seen["clicks"] += 1
        seen["clicks"] += 1
        moves += 1
        wait(d, "the move to be played", lambda: d.js("return game.history.length") > 0 and status(d) != "Thinking…")
        if moves > 600:
            raise SystemExit(f"{name}: no end after 600 moves")
    seen["moves"] = moves
    seen["plies"] = len(d.js("return game.history"))
    seen["result"] = status(d)
    href = wait(d, "the PGN link", lambda: d.js("const a = document.getElementById('pgn'); return a.classList.contains('hidden') ? null : a.href"), 10)
    pgn = d.js("const x = new XMLHttpRequest(); x.open('GET', arguments[0], false); x.send(); return x.status + '\\n' + x.responseText;", href)
    if not pgn.startswith("200\n") or "[Result " not in pgn or f'[Game "{name}"]' not in pgn:
        raise SystemExit(f"{name}: the PGN download gave {pgn[:200]!r}")
    seen["pgn_bytes"] = len(pgn)
    for key in ("refused", "undo"):
        if seen[key] is None and checks:
            raise SystemExit(f"{name}: the game ended before the {key} check ({moves} moves)")
    d.screenshot(shot)
    return seen


def main():
    url, out = sys.argv[1], sys.argv[2]
    rng = random.Random(7)
    d = WebDriver()
    report = {}
    try:
        d.get(url)
        wait(d, "the page", lambda: d.js("return typeof info !== 'undefined' && info !== null"))
        report["ataxx"] = play_whole_game(d, "ataxx", "model:ataxx-4x32-15min", os.path.join(out, "play-ataxx.png"), rng, True)
        report["infexion"] = play_whole_game(d, "infexion", "model:infexion-4x32-15min", os.path.join(out, "play-infexion.png"), rng, True)
        # Watch: the run's curves, then a recorded game move by move.
        d.click("#tab-watch")
        count = lambda: d.js("return document.querySelectorAll('#curves svg.chart').length")
        wait(d, "the curves", lambda: count() >= 4, 30)
        charts = count()
        wait(d, "the recorded games", lambda: d.js("return document.querySelectorAll('.recorded-game').length") > 0, 30)
        d.click(".recorded-game")
        wait(d, "the replay", lambda: "ply 0 of" in d.js("return document.getElementById('replay-ply').textContent"), 20)
        d.click("#replay-next")
        d.click("#replay-next")
        ply = wait(d, "two plies on", lambda: "ply 2 of" in d.js("return document.getElementById('replay-ply').textContent") and d.js("return document.getElementById('replay-ply').textContent"), 20)
        pieces = d.js("return document.querySelectorAll('#replay-board .piece').length")
        report["watch"] = {"charts": charts, "replay": ply, "pieces": pieces}
        d.screenshot(os.path.join(out, "watch.png"))
        # The Chexers board draws (three players, an exit edge).
        d.click("#tab-play")
        d.select("#game", "chexers")
        d.click("#new-game")
        wait(d, "a Chexers game", lambda: settled(d) and d.js("return game.game") == "chexers")
        report["chexers_cells"] = d.js("return document.querySelectorAll('#board g[data-cell]').length")
        d.screenshot(os.path.join(out, "play-chexers.png"))
    finally:
        d.quit()
    print(json.dumps(report))


if __name__ == "__main__":
    main()
