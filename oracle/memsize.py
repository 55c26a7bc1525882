"""Flink's ``org.apache.flink.configuration.MemorySize``: parse, print, and its long arithmetic.

Every size in a memory rule is a ``MemorySize``: parsed from text (``"1728m"``, ``" 64 MB "``),
combined with ``Math.addExact``-style arithmetic, multiplied by a fraction through ``BigDecimal``
and printed with ``toHumanReadableString`` in every error message. Errors are the Java exceptions
of :mod:`oracle.javanum`, with Flink's messages.
"""

from __future__ import annotations

import functools

import attrs

from oracle.javanum import (
    LONG_MAX,
    ArithmeticException,
    IllegalArgumentException,
    NumberFormatException,
    big_decimal_of,
    format_fixed,
    java_trim,
)
from oracle.versions import FlinkVersion, pick, v


@attrs.frozen
class MemoryUnit:
    """``MemorySize.MemoryUnit``: the spellings a unit is parsed from and its multiplier."""

    units: tuple[str, ...]
    multiplier: int


BYTES = MemoryUnit(("b", "bytes"), 1)
KILO_BYTES = MemoryUnit(("k", "kb", "kibibytes"), 1 << 10)
MEGA_BYTES = MemoryUnit(("m", "mb", "mebibytes"), 1 << 20)
GIGA_BYTES = MemoryUnit(("g", "gb", "gibibytes"), 1 << 30)
TERA_BYTES = MemoryUnit(("t", "tb", "tebibytes"), 1 << 40)
ORDERED_UNITS: tuple[MemoryUnit, ...] = (BYTES, KILO_BYTES, MEGA_BYTES, GIGA_BYTES, TERA_BYTES)
ALL_UNITS = " / ".join("(" + " | ".join(u.units) + ")" for u in ORDERED_UNITS)

# MemorySize.multiply: 1.13-1.19 use Preconditions.checkArgument(multiplier >= 0.0), which also
# rejects NaN; from 1.20 `if (multiplier < 0.0) throw`, which lets NaN reach BigDecimal.valueOf.
MULTIPLY_REJECTS_NAN = {v("1.13"): True, v("1.20"): False}
# MemorySize.divide's message (the check itself stays `by < 0` in every version)
DIVIDE_MESSAGE = {v("1.13"): "divisor must be >= 0", v("1.20"): "divisor must be != 0"}


def _non_negative(_instance: object, _attribute: object, value: int) -> None:
    """``new MemorySize(bytes)``: ``bytes must be >= 0``; a value beyond a long is an oracle bug."""
    if value < 0:
        raise IllegalArgumentException("bytes must be >= 0")
    if value > LONG_MAX:
        raise OverflowError(f"{value} does not fit a Java long: the oracle skipped an overflow check")


@attrs.frozen(order=True)
class MemorySize:
    """A non-negative byte count that fits a Java ``long``."""

    bytes: int = attrs.field(validator=_non_negative)

    @classmethod
    def parse(cls, text: str) -> MemorySize:
        """``MemorySize.parse(text)``."""
        return cls(parse_bytes(text))

    @classmethod
    def of_mebibytes(cls, mebibytes: int) -> MemorySize:
        return cls(mebibytes << 20)

    def __str__(self) -> str:
        """``MemorySize.toString()``: the largest unit dividing the size, ``"1 gb"``, ``"0 bytes"``."""
        for idx, unit in enumerate(ORDERED_UNITS):
            if self.bytes % unit.multiplier != 0:
                chosen = ORDERED_UNITS[idx - 1] if idx else BYTES
                break
        else:  # every unit divides (0, multiples of 1 TiB): Flink falls back to bytes
            chosen = BYTES
        return f"{self.bytes // chosen.multiplier} {chosen.units[1]}"

    def to_human_readable_string(self) -> str:
        """``toHumanReadableString()``: ``"1.063kb (1089 bytes)"``, ``"1024 bytes"``."""
        above = [u for u in ORDERED_UNITS if self.bytes > u.multiplier]
        unit = above[-1] if above else BYTES
        if unit is BYTES:
            return f"{self.bytes} bytes"
        approximate = float(self.bytes) / unit.multiplier  # 1.0 * bytes / multiplier, in double
        return f"{format_fixed(approximate, 3)}{unit.units[1]} ({self.bytes} bytes)"

    def add(self, that: MemorySize) -> MemorySize:
        """``add``: ``Math.addExact``."""
        return MemorySize(_exact(self.bytes + that.bytes))

    def subtract(self, that: MemorySize) -> MemorySize:
        """``subtract``: ``Math.subtractExact``; a negative result is ``bytes must be >= 0``."""
        return MemorySize(_exact(self.bytes - that.bytes))

    def multiply(self, multiplier: float, version: FlinkVersion) -> MemorySize:
        """``multiply(double)``: ``BigDecimal.valueOf(bytes) * BigDecimal.valueOf(multiplier)``,
        truncated toward zero; above ``Long.MAX_VALUE`` it is ``ArithmeticException: long overflow``."""
        if multiplier < 0.0 or (multiplier != multiplier and _multiply_rejects_nan(version)):
            raise IllegalArgumentException("multiplier must be >= 0")
        product = big_decimal_of(multiplier).multiply(self.bytes)
        if product.compare_to(LONG_MAX) > 0:
            raise ArithmeticException("long overflow")
        return MemorySize(product.long_value())

    def divide(self, by: int, version: FlinkVersion) -> MemorySize:
        """``divide(long)``: negative divisors are rejected, zero divides by zero."""
        if by < 0:
            raise IllegalArgumentException(pick(DIVIDE_MESSAGE, version))
        if by == 0:
            raise ArithmeticException("/ by zero")
        return MemorySize(self.bytes // by)


@functools.cache
def _multiply_rejects_nan(version: FlinkVersion) -> bool:
    return pick(MULTIPLY_REJECTS_NAN, version)


def _exact(value: int) -> int:
    """``Math.addExact`` / ``subtractExact`` on longs."""
    if not -(2**63) <= value <= LONG_MAX:
        raise ArithmeticException("long overflow")
    return value


ZERO = MemorySize(0)
MAX_VALUE = MemorySize(LONG_MAX)


@functools.lru_cache(maxsize=4096)
def parse_bytes(text: str) -> int:
    """``MemorySize.parseBytes(text)``: ASCII digits, optional whitespace, a binary unit.

    ``"1.5g"`` is the number 1 with the unknown unit ``".5g"``; ``"-1"`` does not start with a
    number; ``"8388608t"`` overflows a long.
    """
    trimmed = java_trim(text)
    if not trimmed:
        raise IllegalArgumentException("argument is an empty- or whitespace-only string")
    pos = 0
    while pos < len(trimmed) and "0" <= trimmed[pos] <= "9":
        pos += 1
    number, unit_text = trimmed[:pos], java_trim(trimmed[pos:]).lower()
    if not number:
        raise NumberFormatException("text does not start with a number")
    value = int(number)
    if value > LONG_MAX:
        raise IllegalArgumentException(
            f"The value '{number}' cannot be re represented as 64bit number (numeric overflow)."
        )
    multiplier = _parse_unit(unit_text)
    if value * multiplier > LONG_MAX:  # Java: result / multiplier != value
        raise IllegalArgumentException(
            f"The value '{text}' cannot be re represented as 64bit number of bytes (numeric overflow)."
        )
    return value * multiplier


def _parse_unit(unit_text: str) -> int:
    """``MemorySize.parseUnit``: the multiplier of a lower-cased unit; empty means bytes."""
    for unit in ORDERED_UNITS:
        if unit_text in unit.units:
            return unit.multiplier
    if unit_text:
        raise IllegalArgumentException(
            f"Memory size unit '{unit_text}' does not match any of the recognized units: {ALL_UNITS}"
        )
    return 1
