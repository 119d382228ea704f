#!/usr/bin/env python3
"""Writes Claude Code style session transcripts (JSONL) and the totals they must add up to.

Usage: gen-transcripts.py OUT_DIR [--sessions N] [--messages M] [--seed S] [--prices CATALOG.json]
                          [--one-hour SHARE] [--published PRICES.toml]

This is the shared fixtures' generator (shared/fixtures/transcripts/generate.py) extended for the
bill (issue 16); without the two new options its output is byte for byte the shared one's (the
test `the_repository_generator_writes_the_shared_sample_unchanged` checks it):
  --one-hour SHARE      that share of each response's cache writes is written with the 1-hour TTL
                        (usage.cache_creation.ephemeral_1h_input_tokens), the rest 5-minute, as
                        Claude Code writes them; expected.json then counts cache_write_1h_tokens;
  --published FILE      Anthropic's published price list (src/cost/anthropic-prices.toml): the
                        models it lists are priced from it, the others from --prices.
The cost is the provider's arithmetic, written here apart from tlc: a request whose prompt (input +
cache read + cache write) is over 200,000 tokens takes every *_above_200k rate the entry has; the
5-minute writes take the cache-write rate, the 1-hour writes the 1-hour rate, or twice the input
rate that applies when the entry has none (Anthropic's published rule).

Layout written, as Claude Code lays it out under its config directory:
  OUT_DIR/projects/<project-slug>/<session-id>.jsonl
  OUT_DIR/expected.json   totals per model, per day (UTC) and per session, and the estimated USD
                          when --prices names a LiteLLM catalog

What the transcripts contain, on purpose:
- user lines, tool-result lines, summary lines and malformed lines (a cut-off JSON object, a blank line),
  none of which carry usage and all of which must be skipped;
- assistant messages whose one API response is written over several lines (the same message.id and
  requestId, the same usage): such a response counts once;
- a model that no catalog lists, so its cost is unknown (expected.json counts its tokens, marks its cost null);
- a few requests whose prompt is over 200,000 tokens, which tiered models price entirely at the
  *_above_200k_tokens rates.
"""
import argparse
import datetime as dt
import json
import os
import random
import uuid

MODELS = ["claude-sonnet-4-5", "claude-opus-4-5", "claude-haiku-4-5", "gemini-2.5-pro", "acme-unlisted-model-1"]
TIER = 200_000


def rate(entry, key, prompt):
    above = entry.get(key + "_above_200k_tokens")
    if prompt > TIER and above is not None:
        return above
    return entry.get(key)


def cost(entry, u, one_hour=0):
    if entry is None or entry.get("input_cost_per_token") is None:
        return None
    prompt = u["input_tokens"] + u["cache_read_input_tokens"] + u["cache_creation_input_tokens"]
    total = u["input_tokens"] * rate(entry, "input_cost_per_token", prompt)
    total += u["output_tokens"] * rate(entry, "output_cost_per_token", prompt)
    cr = rate(entry, "cache_read_input_token_cost", prompt)
    cw = rate(entry, "cache_creation_input_token_cost", prompt)
    total += u["cache_read_input_tokens"] * (cr if cr is not None else 0.0)
    total += (u["cache_creation_input_tokens"] - one_hour) * (cw if cw is not None else 0.0)
    if one_hour:
        cw1 = rate(entry, "cache_creation_input_token_cost_above_1hr", prompt)
        if cw1 is None:
            cw1 = 2 * rate(entry, "input_cost_per_token", prompt)
        total += one_hour * cw1
    return total


# The published list's per-1M fields as the LiteLLM catalog's per-token keys.
PUBLISHED_KEYS = {
    "input": "input_cost_per_token", "output": "output_cost_per_token",
    "cache_read": "cache_read_input_token_cost", "cache_write": "cache_creation_input_token_cost",
    "cache_write_1h": "cache_creation_input_token_cost_above_1hr",
}


def published_catalog(path):
    import tomllib
    with open(path, "rb") as f:
        models = tomllib.load(f)["models"]
    out = {}
    for name, m in models.items():
        entry = {}
        for field, key in PUBLISHED_KEYS.items():
            for suffix in ("", "_above_200k"):
                if field + suffix in m:
                    entry[key + ("_above_200k_tokens" if suffix else "")] = m[field + suffix] / 1e6
        out[name] = entry
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("--sessions", type=int, default=3)
    ap.add_argument("--messages", type=int, default=12)
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--prices")
    ap.add_argument("--one-hour", type=float, default=0.0)
    ap.add_argument("--published")
    a = ap.parse_args()
    rnd = random.Random(a.seed)
    catalog = json.load(open(a.prices)) if a.prices else {}
    if a.published:
        catalog = {**catalog, **published_catalog(a.published)}
    split = a.one_hour > 0
    start = dt.datetime(2026, 11, 20, 9, 0, tzinfo=dt.timezone.utc)
    totals = {"models": {}, "days": {}, "sessions": {}, "responses": 0, "cost_usd": 0.0, "cost_complete": True}

    def add(bucket, key, u, c):
        row = bucket.setdefault(key, {"input_tokens": 0, "output_tokens": 0, "cache_read_tokens": 0,
                                      "cache_write_tokens": 0, "responses": 0, "cost_usd": 0.0,
                                      "cost_complete": True})
        row["input_tokens"] += u["input_tokens"]
        row["output_tokens"] += u["output_tokens"]
        row["cache_read_tokens"] += u["cache_read_input_tokens"]
        row["cache_write_tokens"] += u["cache_creation_input_tokens"]
        if split:
            row["cache_write_1h_tokens"] = row.get("cache_write_1h_tokens", 0) + u["one_hour"]
        row["responses"] += 1
        if c is None:
            row["cost_complete"] = False
        else:
            row["cost_usd"] += c

    for s in range(a.sessions):
        project = f"-home-dev-project-{s % 2}"
        sid = str(uuid.UUID(int=rnd.getrandbits(128)))
        path = os.path.join(a.out, "projects", project)
        os.makedirs(path, exist_ok=True)
        t = start + dt.timedelta(hours=7 * s)
        parent = None
        with open(os.path.join(path, sid + ".jsonl"), "w") as f:
            def line(obj):
                f.write(json.dumps(obj, separators=(",", ":")) + "\n")
            base = {"isSidechain": False, "userType": "external", "cwd": "/home/dev/project-%d" % (s % 2),
                    "sessionId": sid, "version": "2.0.30", "gitBranch": "main"}
            line({"type": "summary", "summary": "Work on project", "leafUuid": str(uuid.uuid4())})
            for m in range(a.messages):
                t += dt.timedelta(minutes=rnd.randint(1, 40))
                u_id = str(uuid.UUID(int=rnd.getrandbits(128)))
                line({**base, "parentUuid": parent, "type": "user", "uuid": u_id,
                      "timestamp": t.isoformat().replace("+00:00", "Z"),
                      "message": {"role": "user", "content": "step %d" % m}})
                parent = u_id
                model = rnd.choice(MODELS)
                big = rnd.random() < 0.08
                u = {"input_tokens": rnd.randint(1, 40), "cache_creation_input_tokens": rnd.randint(0, 6000),
                     "cache_read_input_tokens": rnd.randint(230_000, 260_000) if big else rnd.randint(0, 90_000),
                     "output_tokens": rnd.randint(5, 3000)}
                one_hour = round(u["cache_creation_input_tokens"] * a.one_hour)
                usage = dict(u, cache_creation={"ephemeral_5m_input_tokens": u["cache_creation_input_tokens"] - one_hour,
                                                "ephemeral_1h_input_tokens": one_hour}, service_tier="standard")
                msg_id = "msg_01" + uuid.UUID(int=rnd.getrandbits(128)).hex[:22]
                req_id = "req_011" + uuid.UUID(int=rnd.getrandbits(128)).hex[:21]
                blocks = rnd.choice([1, 1, 2, 3])
                for b in range(blocks):
                    a_id = str(uuid.UUID(int=rnd.getrandbits(128)))
                    line({**base, "parentUuid": parent, "type": "assistant", "uuid": a_id, "requestId": req_id,
                          "timestamp": (t + dt.timedelta(seconds=b)).isoformat().replace("+00:00", "Z"),
                          "message": {"id": msg_id, "type": "message", "role": "assistant", "model": model,
                                      "content": [{"type": "text", "text": "block %d" % b}],
                                      "stop_reason": None, "stop_sequence": None, "usage": usage}})
                    parent = a_id
                if rnd.random() < 0.3:
                    line({**base, "parentUuid": parent, "type": "user", "uuid": str(uuid.uuid4()),
                          "timestamp": t.isoformat().replace("+00:00", "Z"),
                          "message": {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_1",
                                                                   "content": "ok"}]}})
                if rnd.random() < 0.05:
                    f.write('{"type":"assistant","message":{"id":"msg_cut\n')
                if rnd.random() < 0.05:
                    f.write("\n")
                c = cost(catalog.get(model), u, one_hour) if catalog else None
                u["one_hour"] = one_hour
                day = t.date().isoformat()
                add(totals["models"], model, u, c)
                add(totals["days"], day, u, c)
                add(totals["sessions"], sid, u, c)
                totals["responses"] += 1
                if c is None:
                    totals["cost_complete"] = False
                else:
                    totals["cost_usd"] += c
    with open(os.path.join(a.out, "expected.json"), "w") as f:
        json.dump(totals, f, indent=1, sort_keys=True)


if __name__ == "__main__":
    main()
