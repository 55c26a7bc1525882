"""A JSON-lines implementation that misbehaves on purpose, for the fault-handling tests.

usage: python faulty_impl.py MODE AFTER [MUTANT]
MODE: crash (exit 3), hang (sleep forever), garbage (print a non-JSON line), wrongid, bridgeerror;
it answers like ``mutant:MUTANT`` (or the oracle) for the first AFTER requests. Mode crash-after-bugs
crashes once AFTER of its answers have differed from the oracle's (so a bug was surely seen).
"""

import json
import sys
import time

from flinkspec.mutants import MUTANTS
from oracle import answer

mode, after = sys.argv[1], int(sys.argv[2])
fn = MUTANTS[sys.argv[3]].answer if len(sys.argv) > 3 else answer
differing = 0
for n, line in enumerate(sys.stdin):
    req = json.loads(line)
    if mode == "crash-after-bugs":
        if differing >= after:
            print("boom: simulated crash after the bugs showed", file=sys.stderr)
            sys.exit(3)
        resp = fn(req)
        differing += resp != answer(req)
        print(json.dumps(resp), flush=True)
        continue
    if n >= after:
        if mode == "crash":
            print("boom: simulated crash", file=sys.stderr)
            sys.exit(3)
        if mode == "hang":
            time.sleep(3600)
        if mode == "garbage":
            print("hello, I am not JSON", flush=True)
            continue
        if mode == "wrongid":
            print(json.dumps({"id": -5, "output": {}}), flush=True)
            continue
        if mode == "bridgeerror":
            print(json.dumps({"id": req["id"], "error": {"type": "BridgeError", "message": "NPE"}}), flush=True)
            continue
    print(json.dumps(fn(req)), flush=True)
