"""The oracle's Java numbers (:mod:`oracle.javanum`, :mod:`oracle.javadtoa`) against the JDK itself.

The memory and class-loading rules read option values with ``Double.parseDouble``,
``Float.parseFloat``, ``Integer.parseInt``, ``Long.parseLong`` and ``String.trim``, and print with
``Double.toString``, ``BigDecimal.valueOf(double)`` and ``String.format("%.Nf")``, and compute with
``BigDecimal`` (``MemorySize.multiply``, ``CPUResource``'s scale); the oracle re-implements each.
This module draws questions for them (numeric-looking text, exact halfway decimals, exponents at
FloatingDecimal's limits, edge doubles, subnormals, integers above 2^52, random bit patterns,
products at Long.MAX_VALUE; a fixed seed), asks the JDK 17 on PATH
(``bridge/tools/JavaNumbers.java``) and the oracle, and records the JDK's answers:

    python -m flinkspec.impls.javanumbers --record      # rewrites properties/recorded/java-numbers.jsonl.gz
    python -m flinkspec.impls.javanumbers --check 2000  # asks the JDK and the oracle 2,000 new questions

``properties/test_java_numbers.py`` holds the oracle to the recorded answers on every test run
(:mod:`properties.java_numbers`: the oracle's answers and the recording's path).
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
from fractions import Fraction
from pathlib import Path

from flinkspec.impls.jdklist import JVM_FLAGS, jdk_tools
from properties.java_numbers import RECORDING, Answer, Question, differences
from properties.java_numbers import bits_of as _bits
from properties.java_numbers import double_of as _double

TOOL = Path(__file__).parent / "bridge" / "tools" / "JavaNumbers.java"
TEXT_OPS = ("parseDouble", "parseFloat", "parseInt", "parseLong", "trim")
DOUBLE_OPS = ("toString", "bigDecimal", "format0", "format1", "format3", "format6", "doubleValue")
# BigDecimal arithmetic as Flink does it: MemorySize.multiply, CPUResource's value at its scale
DECIMAL_OPS = ("multiply", "setScaleDown")


_MAX_DOUBLE = 1.7976931348623157e308


_PIECES = ["0", "1", "5", "9", "12", "0.1", ".", "e", "E", "-", "+", "x", "X", "p", "P", "f", "F", "d", "D",
           " ", "\t", "\n", "\x00", "\x1f", "NaN", "Infinity", "0x", "1p", "a", "c", "_", "١", "٣", "e308",
           "e-324", "E+5", "00", "2147483647", "2147483648", "-2147483648", "9223372036854775807",
           "9223372036854775808", "0.5", "1.25", "4.9", "1e", "inf", "nan", "\u00a0", "\u2007", "ｆ",
           "\U0001d7d9", "\U00010000"]


def _halfway(rng: random.Random) -> str:
    """The exact decimal halfway between two adjacent doubles (or floats), or a digit either side of
    it: where parsing rounds half-even, and where it overflows to infinity or underflows to zero."""
    if rng.random() < 0.5:
        low = abs(_double_case(rng)) if rng.random() < 0.7 else rng.choice([_MAX_DOUBLE, 5e-324, 0.0])
        low = low if math.isfinite(low) else _MAX_DOUBLE
        high = math.nextafter(low, math.inf)
        high_exact = Fraction(high) if math.isfinite(high) else Fraction(2) ** 1024
    else:  # floats: the neighbours of a float32
        low = struct.unpack("<f", struct.pack("<f", rng.uniform(0, 3.4e38) if rng.random() < 0.5
                                              else rng.uniform(0, 1) * 10.0 ** rng.randint(-45, 0)))[0]
        bits = struct.unpack("<I", struct.pack("<f", low))[0]
        high_exact = Fraction(struct.unpack("<f", struct.pack("<I", bits + 1))[0]) if bits < 0x7F7FFFFF \
            else Fraction(2) ** 128
    mid = (Fraction(low) + high_exact) / 2
    exp10 = len(str(mid.numerator)) - len(str(mid.denominator)) + 1
    digits = rng.choice([17, 25, 40, 800])  # the halfway decimal is exact within ~770 digits
    scaled = mid * Fraction(10) ** (digits - exp10)
    whole = scaled.numerator // scaled.denominator + rng.choice([0, 0, 0, 1, -1])
    return f"{rng.choice(['', '-'])}0.{whole}e{exp10}"


def _exponent_edge(rng: random.Random) -> str:
    """Exponents at FloatingDecimal's limits: past Integer.MAX_VALUE, past the big-decimal limit that
    the digits' own exponent may bring back in range, and zeros padding digits on either side."""
    zeros = "0" * rng.choice([0, 1, 5, 20, 330, 400])
    digits = zeros + str(rng.randint(1, 10 ** rng.randint(1, 20))) + "0" * rng.choice([0, 1, 3, 30])
    cut = rng.randint(0, len(digits))
    mantissa = digits[:cut] + "." + digits[cut:]
    power = rng.choice([rng.randint(300, 420), rng.randint(2**31 - 3, 2**31 + 3), 214748364 + rng.randint(-2, 2),
                        10 ** rng.randint(9, 25), rng.randint(0, 10) + len(digits) + 324 - cut])
    exp = rng.choice(["e", "E"]) + rng.choice(["", "+", "-"]) + "0" * rng.choice([0, 0, 12]) + str(power)
    return rng.choice(["", "-"]) + mantissa + exp + rng.choice(["", "", "d", "f"])


# texts at the scanner's edges: a digit outside the BMP (Character.digit sees two surrogates),
# exponents at Integer.MAX_VALUE and one past it (FloatingDecimal's expOverflow), at the limit a
# negative decimal exponent brings back in range, leading and trailing zeros
_EDGE_TEXTS = ["1\U0001d7d9", "\U0001d7d9", "-\U0001d7d91", "\U00010000", "\uffff1", "1e2147483647", "1e2147483648",
               "1e-2147483648", "1e-2147483649", "0.0000001e2147483647", "0.1e-2147483648", "1000e214748364",
               "1e214748364", "1e214748365", "99e214748363", "1e0000000000000000000000010", "0.00001e330",
               "0.000001e331", "1e400", "-1e400", "1e-400", "123456789012345678901234567890e-2147483640",
               "0x0p2147483648", "-0x0p2147483648", "0x0p-2147483649", "0x1p2147483647", "0x1p-2147483648",
               "0x0.0p5", "-0x0.000p-5", "000.000", "-000", "0.000e5", "00012.34000", "1.7976931348623158e308",
               "1.7976931348623159e308", "2.4703282292062327e-324", "2.4703282292062328e-324", "3.4028235e38",
               "3.4028236e38", "1.4e-45", "7.006492321624085e-46", "7.006492321624086e-46", "9007199254740993",
               "16777217", "NaNd", "-NaN", "+Infinityf", "Infinity1", "-Infinity", "\t-Infinity "]


def _text(rng: random.Random) -> str:
    kind = rng.random()
    if kind < 0.05:
        return rng.choice(_EDGE_TEXTS)
    if kind < 0.2:
        return _halfway(rng) if rng.random() < 0.5 else _exponent_edge(rng)
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


_EDGE_DOUBLES = (0.0, -0.0, 1.0, 0.1, 0.3, 1e7, 1e-3, 9999999.0, 0.001, 1e21, 1e23, 2e-3, math.nan, math.inf,
                 -math.inf, 100.0, 123456789.0, 4.35, 0.125, 2.5, 0.05,
                 struct.unpack("<d", struct.pack("<q", 202))[0])  # 9.98e-322: all nines, rounded up to 1.0E-321


def _double_case(rng: random.Random) -> float:
    kind = rng.random()
    if kind < 0.25:  # where the digit generator changes its ways: printed plain or with an exponent
        # (10^-3 and 10^7), integers above 2^52 (insignificant digits, the long path), ties of them
        return rng.choice([
            float(f"{rng.randint(10**16, 10**17)}e{rng.randint(-22, -7)}"),
            rng.uniform(1, 10) * 10.0 ** rng.randint(-5, 9),
            float(rng.randint(2**52, 2**rng.randint(53, 70))),
            float(rng.randint(1, 10**6) * 10 ** rng.randint(10, 20) + 5 * 10 ** rng.randint(5, 12)),
            rng.randint(1, 99) * 10.0 ** rng.randint(-4, 8),
            # subnormals next to a short decimal: few digits, and all nines round up to one
            _double(max(1, round(rng.randint(1, 99) * 10.0 ** rng.randint(-323, -310) / 5e-324) + rng.randint(-2, 2)))])
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
        half: float = (rng.randint(0, 10**6) + 0.5) / 10 ** rng.randint(0, 6)
        return half
    if kind < 0.85:  # subnormals, powers of two, float-widened values
        special: float = rng.choice([5e-324, 2.2250738585072014e-308, 1.7976931348623157e308,
                                     2.0 ** rng.randint(-1074, 1023),
                                     struct.unpack("<f", struct.pack("<f", rng.uniform(-1e3, 1e3)))[0]])
        return special
    return rng.choice(_EDGE_DOUBLES)


_LONG_MAX_DIVISORS = (1.0, 7.0, 49.0, 73.0, 127.0, 337.0)  # 2^63 - 1 = 7^2 * 73 * 127 * 337 * 92737 * 649657


def _size_for(rng: random.Random, multiplier: float) -> int:
    """A byte size to multiply: any long, or one whose product lands at Long.MAX_VALUE or near it."""
    if multiplier in _LONG_MAX_DIVISORS:  # a product of exactly Long.MAX_VALUE
        return (2**63 - 1) // int(multiplier)
    if 0 < multiplier < math.inf and rng.random() < 0.5:
        near = Fraction(2**63 - 1) / Fraction(multiplier) * Fraction(rng.choice([1, 1, 0.999, 1.001]))
        return max(0, min(2**63 - 1, int(near) + rng.randint(-1, 1)))  # Flink's sizes are >= 0
    size: int = rng.choice([0, 1, 1024, 2 ** 63 - 1, 2 ** rng.randint(0, 62), rng.randint(0, 2**63 - 1)])
    return size


def questions(n: int, seed: int) -> list[Question]:
    rng = random.Random(seed)
    # every edge asked of every primitive, then n drawn questions
    out: list[Question] = [(op, text) for text in _EDGE_TEXTS for op in TEXT_OPS]
    out += [(op, str(_bits(d))) for d in _EDGE_DOUBLES for op in DOUBLE_OPS]
    out += [("multiply", f"{_bits(d)} {(2**63 - 1) // int(d)}") for d in _LONG_MAX_DIVISORS]
    for _ in range(n):
        if rng.random() < 0.08:
            value = abs(_double_case(rng)) if rng.random() < 0.9 else rng.choice(_LONG_MAX_DIVISORS)
            out.append(("multiply", f"{_bits(value)} {_size_for(rng, value)}") if rng.random() < 0.5
                       else ("setScaleDown", f"{_bits(value)} {rng.randint(0, 10)}"))
        elif rng.random() < 0.5:
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


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m flinkspec.impls.javanumbers", description=__doc__.splitlines()[0])
    p.add_argument("--record", action="store_true", help=f"rewrite {RECORDING}")
    p.add_argument("--check", type=int, metavar="N", help="ask the JDK and the oracle N new questions")
    p.add_argument("--examples", type=int, default=12000, help="questions to record")
    p.add_argument("--seed", type=int, default=0, help="seed of the generated questions (default 0)")
    args = p.parse_args(argv)
    if args.record:
        qs = questions(args.examples, args.seed)
        answers = ask_jdk(qs)
        with gzip.GzipFile(RECORDING, "wb", compresslevel=9, mtime=0) as f:
            f.write((json.dumps({"recorded_from": "JDK 17 (flinkspec/impls/bridge/tools/JavaNumbers.java)",
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
