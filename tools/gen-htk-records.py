#!/usr/bin/env python3
"""Writes harness-toolkit records of the fixture's shape at any size.

Usage: gen-htk-records.py FIXTURE_DIR OUT_FILE RECORDS

Copies the signal, debug, audit and attestation lines of FIXTURE_DIR (../shared/fixtures/harness-toolkit)
as often as RECORDS needs (rounded up to whole copies), each copy's two sessions under ids of their own
(the first 8 hex digits of each session id replaced by the copy's number), and prints a JSON object:
{"records", "copies", "per_copy"}. Everything else in a line is kept as harness-toolkit wrote it.
"""
import json
import os
import sys

SESSIONS = ("4c2f9e1a", "7e5d3c1b")
FILES = ("obs.jsonl", "debug.jsonl", "audit.jsonl", "attestation.jsonl")


def main():
    fixture, out, records = sys.argv[1], sys.argv[2], int(sys.argv[3])
    templates = []
    for name in FILES:
        with open(os.path.join(fixture, name)) as fh:
            templates.extend(line.rstrip("\n") for line in fh if line.strip())
    for t in templates:
        if not any(s in t for s in SESSIONS):
            sys.exit(f"a record names neither session: {t[:200]}")
    copies = -(-records // len(templates))
    a, b = SESSIONS
    with open(out, "w") as fh:
        for k in range(copies):
            ka, kb = f"{2 * k:08x}", f"{2 * k + 1:08x}"
            for t in templates:
                fh.write(t.replace(a, ka).replace(b, kb) + "\n")
    print(json.dumps({"records": copies * len(templates), "copies": copies, "per_copy": len(templates)}))


if __name__ == "__main__":
    main()
