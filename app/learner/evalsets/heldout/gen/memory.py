"""Writes ../memory/conversations.jsonl and ../memory/questions.jsonl from
the hand-written sessions in memory/<person>.txt.

File format (one person per file; '#' starts a comment line):

    S 2026-02-03 19:20            a session at that UTC date and time
    U: text                       a user turn
    U [label]: text               a user turn that questions can cite
    A: text                       an assistant turn
    Q kind 2026-05-02 [l1 l2] question => answer

Labels resolve to (session_id, turn index), so evidence never has to be
counted by hand. Session ids are <person>-NN in file order.
"""

import glob
import json
import os
import re

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "..", "memory")

TURN = re.compile(r"^(U|A)(?: \[([\w-]+)\])?: (.+)$")
QUESTION = re.compile(r"^Q (single|multi|temporal) (\d{4}-\d\d-\d\d(?: \d\d:\d\d)?) \[([\w -]+)\] (.+?) => (.+)$")


def stamp(s):
    date, _, clock = s.partition(" ")
    return f"{date}T{clock or '12:00'}:00Z"


def parse(path):
    person = os.path.splitext(os.path.basename(path))[0]
    sessions, questions, labels = [], [], {}
    for n, raw in enumerate(open(path, encoding="utf-8"), 1):
        line = raw.rstrip("\n")
        if not line.strip() or line.startswith("#"):
            continue
        where = f"{path}:{n}"
        if line.startswith("S "):
            sid = f"{person}-{len(sessions) + 1:02d}"
            sessions.append({"person": person, "session_id": sid, "date": stamp(line[2:].strip()), "turns": []})
        elif m := TURN.match(line):
            role, label, text = m.groups()
            turns = sessions[-1]["turns"]
            if label:
                assert role == "U", f"{where}: only user turns carry labels"
                assert label not in labels, f"{where}: label {label} used twice"
                labels[label] = (sessions[-1]["session_id"], len(turns))
            turns.append({"role": "user" if role == "U" else "assistant", "text": text})
        elif m := QUESTION.match(line):
            kind, asked, cites, q, a = m.groups()
            questions.append((where, kind, asked, cites.split(), q, a))
        else:
            raise SystemExit(f"{where}: cannot read line: {line!r}")
    out = []
    for i, (where, kind, asked, cites, q, a) in enumerate(questions, 1):
        missing = [c for c in cites if c not in labels]
        assert not missing, f"{where}: unknown labels {missing}"
        out.append({"id": f"{person}-q{i:02d}", "person": person, "asked_at": stamp(asked), "question": q,
                    "answer": a, "evidence": [{"session_id": labels[c][0], "turn": labels[c][1]} for c in cites],
                    "kind": kind})
    return sessions, out


def main():
    os.makedirs(OUT, exist_ok=True)
    convs, qs = [], []
    for path in sorted(glob.glob(os.path.join(HERE, "memory", "*.txt"))):
        s, q = parse(path)
        convs += s
        qs += q
    with open(os.path.join(OUT, "conversations.jsonl"), "w", encoding="utf-8") as f:
        for c in convs:
            f.write(json.dumps(c, ensure_ascii=False) + "\n")
    with open(os.path.join(OUT, "questions.jsonl"), "w", encoding="utf-8") as f:
        for q in qs:
            f.write(json.dumps(q, ensure_ascii=False) + "\n")
    kinds = {}
    for q in qs:
        kinds[q["kind"]] = kinds.get(q["kind"], 0) + 1
    print(f"wrote {len(convs)} sessions and {len(qs)} questions {kinds}")


if __name__ == "__main__":
    main()
