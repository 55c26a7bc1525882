"""A JSON-lines implementation that misbehaves on purpose, for the fault-handling tests.

usage: python faulty_impl.py MODE AFTER [MUTANT]
it answers like ``mutant:MUTANT`` (or the oracle) for the first AFTER requests (the capabilities
request counts), then MODE:

- crash: exit 3; hang: sleep forever; garbage: print a non-JSON line; wrongid: an answer with id -5;
  bridgeerror: an error of an unknown type; notobject: a JSON array instead of an object;
- closeout: close its stdout and keep running;
- badutf8: an answer with a byte that is not UTF-8 in a key;
- nan: an answer holding a NaN literal; hugeint: an integer of 5000 digits; deep: arrays nested
  100000 deep (JSON that Python's decoder cannot read); deep900: nested 900 deep (it can, but the
  reports could not write it);
- partial-eof: half an answer line, then exit 0; partial-hang: half an answer line, then sleep forever.

Mode crash-after-bugs crashes once AFTER of its answers have differed from the oracle's (so a bug
was surely seen).
"""

import json
import os
import sys
import time

from flinkspec.mutants import MUTANTS
from oracle import answer

mode, after = sys.argv[1], int(sys.argv[2])
fn = MUTANTS[sys.argv[3]].answer if len(sys.argv) > 3 else answer
differing = 0
out = sys.stdout.buffer


def send(data: bytes) -> None:
    out.write(data + b"\n")
    out.flush()


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
        if mode == "notobject":
            send(b"[1, 2]")
            continue
        if mode == "closeout":
            out.flush()
            os.close(1)
            time.sleep(3600)
        if mode == "badutf8":
            send(b'{"id": %d, "output": {"he\xffap": 1}}' % req["id"])
            continue
        if mode == "nan":
            send(b'{"id": %d, "output": {"heap": NaN}}' % req["id"])
            continue
        if mode == "hugeint":
            send(b'{"id": %d, "output": {"heap": %s}}' % (req["id"], b"9" * 5000))
            continue
        if mode in ("deep", "deep900"):
            depth = 100000 if mode == "deep" else 900
            send(b'{"id": %d, "output": {"heap": %s%s}}' % (req["id"], b"[" * depth, b"]" * depth))
            continue
        if mode in ("partial-eof", "partial-hang"):
            out.write(b'{"id": %d, "outp' % req["id"])
            out.flush()
            if mode == "partial-eof":
                sys.exit(0)
            time.sleep(3600)
    print(json.dumps(fn(req)), flush=True)
