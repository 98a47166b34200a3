"""Replays a contagion eval PGN of Ataxx games through python-ataxx; tallies the model's score."""
import re, sys
import ataxx
SAN = re.compile(r"^([a-g][1-7]){1,2}$|^0000$")
text = open(sys.argv[1]).read()
w = d = l = agree = n = 0
for game in text.split("[Event ")[1:]:
    tags = dict(re.findall(r'\[(\w+) "([^"]*)"\]', "[Event " + game))
    body = game.split("\n\n", 1)[1]
    toks = [t for t in body.split() if SAN.match(t)]
    b = ataxx.Board("startpos")
    for t in toks:
        m = ataxx.Move.from_san(t)
        assert b.is_legal(m), (t, b.get_fen())
        b.makemove(m)
    res = b.result()
    n += 1
    agree += res == tags["Result"]
    model_black = tags["Black"].startswith("model:")
    if res == "1/2-1/2": d += 1
    elif (res == "1-0") == model_black: w += 1  # python-ataxx: 1-0 is a win for x, who moves first (PGN Black)
    else: l += 1
print(f"python-ataxx: {n} games, model: W {w} D {d} L {l}, score {(w + d / 2) / max(n, 1):.3f}; results agreeing with contagion's: {agree} of {n}")
