"""A minimal stand-in for the COMP30024 2023 referee package, for tests only.

Only ``referee.game``'s types are provided, with the course's names and fields, so the
agent in ``frontends/python/agent`` imports exactly what the real referee gives it. The
course's referee itself is not ours to ship.
"""
