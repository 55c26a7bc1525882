"""The oracle's Java numbers (:mod:`oracle.javanum`, :mod:`oracle.javadtoa`) against the JDK itself.

The memory and class-loading rules read option values with ``Double.parseDouble``,
``Float.parseFloat``, ``Integer.parseInt``, ``Long.parseLong`` and ``String.trim``, and print with
``Double.toString``, ``BigDecimal.valueOf(double)`` and ``String.format("%.Nf")``; the oracle
re-implements each. This module draws questions for them (numeric-looking text, edge doubles,
random bit patterns; a fixed seed), asks the JDK 17 on PATH (``bridge/tools/JavaNumbers.java``)
and the oracle, and records the JDK's answers:

    python -m flinkspec.javanumbers --record      # rewrites properties/recorded/java-numbers.jsonl.gz
    python -m flinkspec.javanumbers --check 2000  # asks the JDK and the oracle 2,000 new questions

``properties/test_java_numbers.py`` holds the oracle to the recorded answers on every test run.
"""

from __future__ import annotations

import argparse
import gzip
import json
import math
import random
import struct
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path

from flinkspec.jdklist import JVM_FLAGS, jdk_tools
from flinkspec.record import RECORDED
from oracle import javanum
from oracle.javadtoa import double_to_string, format_fixed

TOOL = Path(__file__).parent / "bridge" / "tools" / "JavaNumbers.java"
RECORDING = RECORDED / "java-numbers.jsonl.gz"
TEXT_OPS = ("parseDouble", "parseFloat", "parseInt", "parseLong", "trim")
DOUBLE_OPS = ("toString", "bigDecimal", "format0", "format1", "format3", "format6")
Question = tuple[str, str]
Answer = list[str]  # ["ok", result] or ["err", exception simple name, message]


def _bits(d: float) -> int:
    return struct.unpack("<q", struct.pack("<d", d))[0]


def _double(bits: int) -> float:
    return struct.unpack("<d", struct.pack("<q", bits))[0]


_PIECES = ["0", "1", "5", "9", "12", "0.1", ".", "e", "E", "-", "+", "x", "X", "p", "P", "f", "F", "d", "D",
           " ", "\t", "\n", "\x00", "\x1f", "NaN", "Infinity", "0x", "1p", "a", "c", "_", "١", "٣", "e308",
           "e-324", "E+5", "00", "2147483647", "2147483648", "-2147483648", "9223372036854775807",
           "9223372036854775808", "0.5", "1.25", "4.9", "1e", "inf", "nan", "\u00a0", "\u2007", "ｆ"]


def _text(rng: random.Random) -> str:
    kind = rng.random()
    if kind < 0.3:  # a decimal with many digits, maybe an exponent and a suffix
        digits = "".join(rng.choice("0123456789") for _ in range(rng.randint(1, 30)))
        cut = rng.randint(0, len(digits))
        text = digits[:cut] + ("." if rng.random() < 0.7 else "") + digits[cut:]
        if rng.random() < 0.5:
            text += rng.choice("eE") + rng.choice(["", "+", "-"]) + str(rng.randint(0, 400))
        if rng.random() < 0.2:
            text += rng.choice("fFdD")
        return rng.choice(["", "-", "+"]) + text
    if kind < 0.4:  # a Java hexadecimal float
        mant = "".join(rng.choice("0123456789abcdefABCDEF") for _ in range(rng.randint(0, 16)))
        if rng.random() < 0.2:
            mant = rng.choice(["0", "00", "1", "01", "0000000000001", "1" + "0" * rng.randint(1, 20)])
        cut = rng.randint(0, len(mant))
        power = rng.choice([rng.randint(0, 1100), 2**31 - 1, 2**31, 2**31 + 1, 10**rng.randint(10, 30)])
        exp = rng.choice(["p", "P"]) + rng.choice(["", "+", "-"]) + str(power)
        return rng.choice(["", "-", "+"]) + rng.choice(["0x", "0X"]) + mant[:cut] + "." * rng.randint(0, 1) \
            + mant[cut:] + (exp if rng.random() < 0.9 else "") + rng.choice(["", "", "f", "d"])
    if kind < 0.55:  # an integer near the int and long limits
        base = rng.choice([0, 2**31, 2**63, 10**rng.randint(0, 19)])
        return rng.choice(["", "-", "+"]) + str(base + rng.randint(-3, 3))
    if kind < 0.65:  # a value Python prints, padded
        d = _double(rng.getrandbits(64) - 2**63) if rng.random() < 0.5 else rng.uniform(-1e6, 1e6)
        return rng.choice(["", " ", "\t"]) + repr(d) + rng.choice(["", " ", "\n"])
    return "".join(rng.choice(_PIECES) for _ in range(rng.randint(0, 6)))


def _double_case(rng: random.Random) -> float:
    kind = rng.random()
    if kind < 0.25:  # up to 17 digits at any decimal exponent: the BigInteger path of the digit generator
        return float(f"{rng.randint(1, 10 ** rng.randint(1, 17))}e{rng.randint(-340, 310)}")
    kind = rng.random()
    if kind < 0.35:
        d = _double(rng.getrandbits(64) - 2**63)
        return d if math.isfinite(d) or rng.random() < 0.05 else rng.random()
    if kind < 0.6:  # a short decimal: the cases printing rounds on
        return round(rng.uniform(-1000, 1000), rng.randint(0, 6)) * 10.0 ** rng.randint(-12, 12)
    if kind < 0.75:  # a halfway case of %.Nf
        return (rng.randint(0, 10**6) + 0.5) / 10 ** rng.randint(0, 6)
    if kind < 0.85:  # subnormals, powers of two, float-widened values
        return rng.choice([5e-324, 2.2250738585072014e-308, 1.7976931348623157e308, 2.0 ** rng.randint(-1074, 1023),
                           struct.unpack("<f", struct.pack("<f", rng.uniform(-1e3, 1e3)))[0]])
    return rng.choice([0.0, -0.0, 1.0, 0.1, 0.3, 1e7, 1e-3, 9999999.0, 0.001, 1e21, 1e23, 2e-3, float("nan"),
                       float("inf"), float("-inf"), 100.0, 123456789.0, 4.35, 0.125, 2.5, 0.05])


def questions(n: int, seed: int) -> list[Question]:
    rng = random.Random(seed)
    out: list[Question] = []
    for _ in range(n):
        if rng.random() < 0.5:
            out.append((rng.choice(TEXT_OPS), _text(rng)))
        else:
            out.append((rng.choice(DOUBLE_OPS), str(_bits(_double_case(rng)))))
    return list(dict.fromkeys(out))


def ask_jdk(qs: Sequence[Question]) -> list[Answer]:
    """The JDK's answers (JDK 17 on PATH, the bridge's)."""
    java, javac = jdk_tools()
    with tempfile.TemporaryDirectory(prefix="flinkspec-javanumbers") as tmp:
        subprocess.run([javac, "-nowarn", "-encoding", "UTF-8", "-d", tmp, str(TOOL)], check=True)
        stdin = "".join(f"{op}\t{arg.encode().hex()}\n" for op, arg in qs)
        done = subprocess.run([java, *JVM_FLAGS, "-cp", tmp, "JavaNumbers"], input=stdin.encode(),
                              capture_output=True, check=True, timeout=600)
    lines = done.stdout.decode().splitlines()
    if len(lines) != len(qs):
        raise RuntimeError(f"JavaNumbers answered {len(lines)} of {len(qs)} questions: {done.stderr.decode()[-500:]}")
    out: list[Answer] = []
    for line in lines:
        kind, *rest = line.split("\t")
        out.append(["ok", bytes.fromhex(rest[0]).decode()] if kind == "ok"
                   else ["err", rest[0], bytes.fromhex(rest[1]).decode()])
    return out


def oracle_answer(op: str, arg: str) -> Answer:
    """The oracle's answer to one question, in the JDK tool's form."""
    try:
        if op in ("parseDouble", "parseFloat"):
            value = javanum.parse_double(arg) if op == "parseDouble" else javanum.parse_float(arg)
            return ["ok", str(_bits(value))]
        if op == "parseInt":
            return ["ok", str(javanum.parse_int(arg))]
        if op == "parseLong":
            return ["ok", str(javanum.parse_long(arg))]
        if op == "trim":
            return ["ok", javanum.java_trim(arg)]
        d = _double(int(arg))
        if op == "toString":
            return ["ok", double_to_string(d)]
        if op == "bigDecimal":
            big = javanum.big_decimal_of(d)
            return ["ok", f"{big.unscaled} {-big.exponent}"]
        return ["ok", format_fixed(d, int(op.removeprefix("format")))]
    except javanum.JavaException as exc:
        return ["err", exc.simple_name, exc.message]


def differences(qs: Sequence[Question], answers: Sequence[Answer]) -> list[str]:
    out = []
    for (op, arg), want in zip(qs, answers, strict=True):
        got = oracle_answer(op, arg)
        if got != want:
            out.append(f"{op}({arg!r}): JDK {want}, oracle {got}")
    return out


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m flinkspec.javanumbers", description=__doc__.splitlines()[0])
    p.add_argument("--record", action="store_true", help=f"rewrite {RECORDING}")
    p.add_argument("--check", type=int, metavar="N", help="ask the JDK and the oracle N new questions")
    p.add_argument("--examples", type=int, default=12000, help="questions to record")
    p.add_argument("--seed", type=int, default=0)
    args = p.parse_args(argv)
    if args.record:
        qs = questions(args.examples, args.seed)
        answers = ask_jdk(qs)
        with gzip.GzipFile(RECORDING, "wb", compresslevel=9, mtime=0) as f:
            f.write((json.dumps({"recorded_from": "JDK 17 (flinkspec/bridge/tools/JavaNumbers.java)",
                                 "seed": args.seed, "questions": len(qs)}) + "\n").encode())
            for (op, arg), ans in zip(qs, answers, strict=True):
                f.write((json.dumps({"op": op, "arg": arg, "answer": ans}) + "\n").encode())
        print(f"{RECORDING}: {len(qs)} questions")
    if args.check:
        qs = questions(args.check, args.seed + 1)
        diffs = differences(qs, ask_jdk(qs))
        print(f"{len(qs)} questions, {len(diffs)} differ")
        for d in diffs[:20]:
            print("  " + d)
        return 1 if diffs else 0
    return 0


if __name__ == "__main__":
    sys.exit(main())
