"""The oracle's Java numbers in the JDK tool's form (:mod:`oracle.javanum`, :mod:`oracle.javadtoa`): the
answer the oracle gives to each question ``python -m flinkspec.impls.javanumbers`` asks the JDK, and
where the JDK's recorded answers are (``properties/test_java_numbers.py`` holds the oracle to them)."""

from __future__ import annotations

import struct
from collections.abc import Sequence
from pathlib import Path

from oracle import javanum
from oracle.javadtoa import double_to_string, format_fixed

RECORDING = Path(__file__).resolve().parent / "recorded" / "java-numbers.jsonl.gz"

Question = tuple[str, str]
Answer = list[str]  # ["ok", result] or ["err", exception simple name, message]


def bits_of(d: float) -> int:
    bits: int = struct.unpack("<q", struct.pack("<d", d))[0]
    return bits


def double_of(bits: int) -> float:
    d: float = struct.unpack("<d", struct.pack("<q", bits))[0]
    return d


def oracle_answer(op: str, arg: str) -> Answer:
    """The oracle's answer to one question, in the JDK tool's form."""
    try:
        if op in ("parseDouble", "parseFloat"):
            value = javanum.parse_double(arg) if op == "parseDouble" else javanum.parse_float(arg)
            return ["ok", str(bits_of(value))]
        if op == "parseInt":
            return ["ok", str(javanum.parse_int(arg))]
        if op == "parseLong":
            return ["ok", str(javanum.parse_long(arg))]
        if op == "trim":
            return ["ok", javanum.java_trim(arg)]
        if op == "multiply":
            multiplier, size = arg.split(" ")
            product = javanum.big_decimal_of(double_of(int(multiplier))).multiply(int(size))
            sign = product.compare_to(javanum.LONG_MAX)
            return ["ok", "1" if sign > 0 else f"{sign} {product.long_value()}"]
        if op == "setScaleDown":
            bits, scale = arg.split(" ")
            scaled = javanum.big_decimal_of(double_of(int(bits))).set_scale_down(int(scale))
            return ["ok", str(bits_of(scaled.double_value()))]
        d = double_of(int(arg))
        if op == "doubleValue":
            return ["ok", str(bits_of(javanum.big_decimal_of(d).double_value()))]
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


