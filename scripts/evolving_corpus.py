#!/usr/bin/env python3
"""The evolving-memory corpus: compact episode sources -> MEME's episode layout.

  python3 scripts/evolving_corpus.py check FILE...   validate episode sources
  python3 scripts/evolving_corpus.py build [--check-only]
      expand tests/fixtures/evolving/episodes/{dev,test}/*.json with fillers.json into
      tests/fixtures/evolving/{dev,test}.json (deterministic: the same sources give the same bytes;
      --check-only exits 1 when the committed files differ from what the sources give)

The format is described in tests/fixtures/evolving/FORMAT.md. The generator adds only what carries
no fact: session dates, the filler chats between sessions, and short neutral assistant replies.
"""

import hashlib
import json
import os
import random
import sys
from datetime import datetime, timedelta

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "fixtures", "evolving")
TASKS = {"ER", "Agg", "Tr", "Del", "Cas", "Abs", "Cur"}
STATES = {"current", "superseded", "deleted", "cascaded", "uncertain"}
KINDS = {"filler", "evidence", "probe-before", "probe-after"}
CLASSES = {
    "polite-delete", "indirect-delete", "implicit-change", "agreement-update", "other-subject",
    "distractor", "inferred-area", "code-verbatim", "correction", "negation", "multi-fact",
    "relative-date", "several-subjects", "secret-keep",
}
EXPECT_KEYS = {"must_contain", "must_contain_in_order", "must_not_contain", "expected_state", "answer_contains"}
REPLIES = [
    "Got it, thanks for telling me.",
    "Noted.",
    "Thanks, I'll keep that in mind.",
    "Understood.",
    "Okay, good to know.",
    "Thanks for the update.",
    "Makes sense, noted.",
    "Alright, I've got that.",
]


def parse_start(s):
    for fmt in ("%Y-%m-%d %H:%M", "%Y-%m-%d"):
        try:
            return datetime.strptime(s, fmt)
        except ValueError:
            pass
    raise ValueError(f"start {s!r}: expected YYYY-MM-DD or YYYY-MM-DD HH:MM")


def problems(ep, name):
    """Everything wrong with one episode source, as sentences (empty when valid)."""
    out = []
    say = out.append
    for key in ("episode_id", "domain", "root", "voice", "start", "sessions", "before_questions", "after_questions"):
        if key not in ep:
            say(f"missing {key}")
    if out:
        return out
    if os.path.splitext(os.path.basename(name))[0] != ep["episode_id"]:
        say("episode_id differs from the file name")
    try:
        parse_start(ep["start"])
    except ValueError as e:
        say(str(e))
    sessions = ep["sessions"]
    kinds = [s.get("kind") for s in sessions]
    for i, k in enumerate(kinds):
        if k not in KINDS:
            say(f"session {i}: kind {k!r}")
    if kinds.count("probe-before") != 1 or kinds.count("probe-after") != 1:
        say("needs exactly one probe-before and one probe-after")
    elif kinds[-1] != "probe-after":
        say("probe-after must be the last session")
    user_text = []
    for i, s in enumerate(sessions):
        gap = s.get("gap_days")
        if gap is not None and (not isinstance(gap, (int, float)) or gap < 0):
            say(f"session {i}: gap_days must be a number >= 0")
        if s.get("kind") == "evidence":
            turns = s.get("turns")
            if not isinstance(turns, list) or not turns:
                say(f"session {i}: evidence without turns")
                continue
            for j, t in enumerate(turns):
                if not isinstance(t.get("user"), str) or not t["user"].strip():
                    say(f"session {i} turn {j}: no user text")
                    continue
                user_text.append(t["user"])
                for c in t.get("classes", []):
                    if c not in CLASSES:
                        say(f"session {i} turn {j}: unknown class {c!r}")
                for f in t.get("facts", []):
                    if not {"entity", "value"} <= set(f):
                        say(f"session {i} turn {j}: a fact needs entity and value")
                    elif f["value"] not in t["user"]:
                        say(f"session {i} turn {j}: fact value {f['value']!r} is not in the turn")
                    for tag in f.get("tags", []):
                        if tag not in TASKS:
                            say(f"session {i} turn {j}: unknown tag {tag!r}")
    everything = "\n".join(user_text)
    for block in ("before_questions", "after_questions"):
        qs = ep[block]
        if not isinstance(qs, list) or not qs:
            say(f"{block}: empty")
            continue
        for q in qs:
            label = f"{block} {q.get('question', '?')!r}"
            if q.get("task_type") not in TASKS:
                say(f"{label}: task_type {q.get('task_type')!r}")
            for key in ("entity", "question", "gold_answer", "expect"):
                if key not in q:
                    say(f"{label}: missing {key}")
            exp = q.get("expect", {})
            for k in exp:
                if k not in EXPECT_KEYS:
                    say(f"{label}: unknown expect key {k!r}")
            for k in ("must_contain", "must_contain_in_order"):
                for s in exp.get(k, []):
                    if s not in everything:
                        say(f"{label}: {k} {s!r} is in no user turn")
            ac = exp.get("answer_contains")
            if ac is not None and (not isinstance(ac, str) or ac not in everything):
                say(f"{label}: answer_contains {ac!r} is in no user turn")
            st = exp.get("expected_state")
            if st is not None and st not in STATES:
                say(f"{label}: expected_state {st!r}")
            for c in q.get("classes", []):
                if c not in CLASSES:
                    say(f"{label}: unknown class {c!r}")
            if not any(k in exp for k in ("must_contain", "must_contain_in_order", "must_not_contain", "expected_state", "answer_contains")):
                say(f"{label}: checks nothing")
    after = {q.get("task_type") for q in ep["after_questions"]}
    for t in ("ER", "Tr", "Agg", "Del", "Cas", "Abs"):
        if t not in after:
            say(f"after_questions: no {t} question")
    return out


def load(path):
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def check(paths):
    bad = 0
    for p in paths:
        try:
            ep = load(p)
        except (OSError, json.JSONDecodeError) as e:
            print(f"{p}: {e}")
            bad += 1
            continue
        for msg in problems(ep, p):
            print(f"{p}: {msg}")
            bad += 1
    print(f"{len(paths)} files, {bad} problems")
    return 1 if bad else 0


def expand(ep, fillers):
    """One source episode in MEME's layout. The choices it makes (dates, fillers, replies) are
    seeded by the episode id, so a build is reproducible and an edit moves only its episode."""
    rng = random.Random(int(hashlib.sha256(ep["episode_id"].encode()).hexdigest()[:16], 16))
    when = parse_start(ep["start"])
    order = list(range(len(fillers)))
    rng.shuffle(order)
    sessions, before_at, after_at = [], None, None
    for idx, s in enumerate(ep["sessions"]):
        if idx > 0:
            gap = s.get("gap_days")
            when += timedelta(days=gap) if gap is not None else timedelta(days=rng.randint(1, 3), minutes=rng.randint(-180, 180))
        kind = s["kind"]
        if kind == "evidence":
            conv, facts = [], []
            for t in s["turns"]:
                conv.append({"role": "user", "content": t["user"]})
                conv.append({"role": "assistant", "content": t.get("assistant") or rng.choice(REPLIES)})
                for f in t.get("facts", []):
                    facts.append({"entity": f["entity"], "value": f["value"], "fact_text": t["user"], "conveyed_in_turn": len(conv) - 1, "tags": f.get("tags", [])})
            label = s.get("label", "Facts")
        else:
            filler = fillers[order[idx % len(order)]]
            conv = []
            for t in filler["turns"]:
                conv += [{"role": "user", "content": t["user"]}, {"role": "assistant", "content": t["assistant"]}]
            facts, label = [], None
        stamp = when.strftime("%Y/%m/%d %H:%M")
        sessions.append({"idx": idx, "kind": kind, "timestamp": stamp, "evidence_type": label, "gold_facts": facts, "conversation": conv})
        if kind == "probe-before":
            before_at = (idx, when)
        if kind == "probe-after":
            after_at = (idx, when)

    def block(qs, at):
        idx, t = at
        t = t + timedelta(hours=2)
        return {"timestamp": t.strftime("%Y/%m/%d %H:%M"), "position_after_session": idx, "questions": [dict(q) for q in qs]}

    return {
        "episode_id": ep["episode_id"],
        "domain": ep["domain"],
        "root": ep["root"],
        "voice": ep["voice"],
        "author": ep.get("author"),
        "sessions": sessions,
        "before_questions": block(ep["before_questions"], before_at),
        "after_questions": block(ep["after_questions"], after_at),
    }


def build(check_only):
    fillers = load(os.path.join(ROOT, "fillers.json"))
    half = len(fillers) // 2
    # Each split draws its filler chats from its own half of the pool, so nothing a model is
    # trained on from `dev` (its fillers' sentences are labelled `none`) reappears in `test`.
    pools = {"dev": fillers[:half], "test": fillers[half:]}
    status = 0
    for split in ("dev", "test"):
        folder = os.path.join(ROOT, "episodes", split)
        paths = sorted(os.path.join(folder, n) for n in os.listdir(folder) if n.endswith(".json"))
        episodes = []
        for p in paths:
            ep = load(p)
            bad = problems(ep, p)
            if bad:
                sys.exit(f"{p}: {bad[0]} (run `check` for all)")
            episodes.append(expand(ep, pools[split]))
        text = json.dumps(episodes, ensure_ascii=False, indent=1) + "\n"
        out = os.path.join(ROOT, f"{split}.json")
        if check_only:
            try:
                same = open(out, encoding="utf-8").read() == text
            except OSError:
                same = False
            if not same:
                print(f"{out} is not what the sources give: run `python3 scripts/evolving_corpus.py build`")
                status = 1
        else:
            with open(out, "w", encoding="utf-8") as f:
                f.write(text)
            q = sum(len(e["before_questions"]["questions"]) + len(e["after_questions"]["questions"]) for e in episodes)
            print(f"{out}: {len(episodes)} episodes, {q} questions")
    return status


def main(argv):
    if len(argv) >= 2 and argv[0] == "check":
        return check(argv[1:])
    if argv and argv[0] == "build":
        return build("--check-only" in argv[1:])
    print(__doc__)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
