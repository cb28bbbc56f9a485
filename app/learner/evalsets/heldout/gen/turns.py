"""Writes ../turns.jsonl from the labelled turns in turns_*.py.

Run from anywhere: python3 gen/turns.py. The output is deterministic.
"""

import datetime as dt
import json
import os

import agents
from turns_claude import CLAUDE
from turns_hermes import HERMES
from turns_nanoclaw import NANOCLAW
from turns_openclaw import OPENCLAW
from turns_plain import PLAIN

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "..", "turns.jsonl")


def spread_day(tid):
    """A day between 2 February and 30 April 2026, from the id."""
    start = dt.date(2026, 2, 2)
    return (start + dt.timedelta(days=int(agents.hid(tid, "day", n=6), 16) % 88)).isoformat()


def record(t):
    t = dict(t)
    t.setdefault("day", spread_day(t["id"]))
    t.setdefault("minute", 7 * 60 + int(agents.hid(t["id"], "min", n=4), 16) % (15 * 60))
    rec = {"id": t["id"], "agent": t["agent"], "api": t["api"], "noisy": agents.noisy(t),
           "request": agents.WRAP[t["agent"]](t), "relevant": t["relevant"]}
    if t.get("acceptable"):
        rec["acceptable"] = t["acceptable"]
    if t.get("note"):
        rec["note"] = t["note"]
    return rec


def main():
    turns = PLAIN + HERMES + OPENCLAW + CLAUDE + NANOCLAW
    ids = [t["id"] for t in turns]
    assert len(ids) == len(set(ids)), "duplicate turn ids"
    with open(OUT, "w", encoding="utf-8") as f:
        for t in turns:
            f.write(json.dumps(record(t), ensure_ascii=False) + "\n")
    print(f"wrote {len(turns)} turns to {os.path.normpath(OUT)}")


if __name__ == "__main__":
    main()
