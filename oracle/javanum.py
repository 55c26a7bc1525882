"""Java's number parsing and printing, as the memory rules see them (JDK 17, the bridge's JDK).

Flink reads its float and double options with ``Float.parseFloat`` / ``Double.parseDouble``, its
int options with ``Integer.parseInt``, widens every ``float`` to ``double``, hands multipliers to
``BigDecimal.valueOf(double)`` (which goes through ``Double.toString``) and prints sizes with
``String.format("%.3f")``. Each of these differs from Python's nearest built-in:

- ``Float.parseFloat`` accepts ``" 0.1 "``, ``"1e-1"``, ``"0.1f"``, ``"NaN"``, ``"Infinity"``,
  ``"0x1p-3"``; rejects ``"nan"``, ``"inf"``, ``"1_0"``; rounds the decimal straight to binary32.
- ``Double.toString`` of JDK <= 18 is not always the shortest repr (JDK-4511638), and ``%.3f``
  rounds HALF_UP on its digits, not on the binary value: both are in :mod:`oracle.javadtoa`.

A Python ``float`` holds both Java ``float`` and ``double`` values (widening is exact).
"""

from __future__ import annotations

import math
import re
import unicodedata

import attrs

from oracle.javadtoa import double_to_string as double_to_string  # re-exported: the memory rules print with it
from oracle.javadtoa import format_fixed as format_fixed  # re-exported: the printing half of Java numbers
from oracle.javadtoa import java_digits as java_digits

INT_MIN, INT_MAX = -(2**31), 2**31 - 1
LONG_MIN, LONG_MAX = -(2**63), 2**63 - 1


# --------------------------------------------------------------------------------------------
# Java exceptions, as values the oracle can raise and catch exactly where Flink does


class JavaException(Exception):
    """A Java exception: ``simple_name`` is its class's simple name, ``message`` its getMessage()."""

    def __init__(self, message: str, cause: JavaException | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.cause = cause

    @property
    def simple_name(self) -> str:
        return type(self).__name__


class IllegalArgumentException(JavaException):
    """java.lang.IllegalArgumentException (also what Preconditions.checkArgument throws)."""


class NumberFormatException(IllegalArgumentException):
    """java.lang.NumberFormatException, a subclass of IllegalArgumentException as in Java."""


class ArithmeticException(JavaException):
    """java.lang.ArithmeticException (Math.addExact, MemorySize.multiply overflow)."""


def _for_input_string(text: str) -> NumberFormatException:
    return NumberFormatException(f'For input string: "{text}"')


# --------------------------------------------------------------------------------------------
# String.trim and Integer.parseInt / Long.parseLong

_JAVA_TRIMMED = "".join(chr(c) for c in range(0x21))


def java_trim(text: str) -> str:
    """``String.trim()``: strips every char <= U+0020 at both ends (not Unicode whitespace)."""
    return text.strip(_JAVA_TRIMMED)


def _java_digit(ch: str) -> int:
    """``Character.digit(ch, 10)`` for one UTF-16 char: any Unicode decimal digit (Nd)."""
    if ord(ch) > 0xFFFF:  # two UTF-16 chars in Java, neither of them a digit
        return -1
    return unicodedata.decimal(ch, -1)


def _parse_integral(text: str, lo: int, hi: int) -> int:
    if not text:
        raise _for_input_string(text)
    start, negative = 0, False
    if text[0] < "0":
        if text[0] == "-":
            negative = True
        elif text[0] != "+":
            raise _for_input_string(text)
        if len(text) == 1:
            raise _for_input_string(text)
        start = 1
    value = 0
    for ch in text[start:]:
        digit = _java_digit(ch)
        if digit < 0:
            raise _for_input_string(text)
        value = value * 10 + digit
    value = -value if negative else value
    if not lo <= value <= hi:
        raise _for_input_string(text)
    return value


def parse_int(text: str) -> int:
    """``Integer.parseInt(text)``: optional sign, Unicode decimal digits, no whitespace."""
    return _parse_integral(text, INT_MIN, INT_MAX)


def parse_long(text: str) -> int:
    """``Long.parseLong(text)``."""
    return _parse_integral(text, LONG_MIN, LONG_MAX)


def parse_boolean_option(text: str) -> bool:
    """Flink's ``ConfigurationUtils.convertToBoolean``: "true"/"false" in any case, no trimming."""
    upper = text.upper()
    if upper == "TRUE":
        return True
    if upper == "FALSE":
        return False
    raise IllegalArgumentException(
        f"Unrecognized option for boolean: {text}. Expected either true or false(case insensitive)"
    )


# --------------------------------------------------------------------------------------------
# Float.parseFloat / Double.parseDouble (FloatingDecimal.readJavaFormatString)


@attrs.frozen
class BinaryFormat:
    """An IEEE-754 binary format: significand bits (with the hidden one) and exponent range."""

    precision: int
    min_exp: int
    max_exp: int


BINARY32 = BinaryFormat(24, -126, 127)
BINARY64 = BinaryFormat(53, -1022, 1023)

_BIG_DECIMAL_EXPONENT = 324  # FloatingDecimal.BIG_DECIMAL_EXPONENT
_HEX_FLOAT = re.compile(
    r"([-+])?0[xX](((?P<int>[0-9a-fA-F]+)\.?)|((?P<lead>[0-9a-fA-F]*)\.(?P<frac>[0-9a-fA-F]+)))"
    r"[pP](?P<esign>[-+])?(?P<exp>[0-9]+)[fFdD]?"
)


@attrs.frozen
class _Scanned:
    """A parsed number: ``value = significand * base ** exponent`` (None for NaN / infinity)."""

    negative: bool
    significand: int | None  # None: infinity (or NaN when nan)
    base: int = 10
    exponent: int = 0
    nan: bool = False


def _scan(text: str) -> _Scanned:
    """The number ``readJavaFormatString`` reads from ``text``, or NumberFormatException."""
    s = java_trim(text)
    if not s:
        raise NumberFormatException("empty String")
    i, negative = 0, False
    if s[0] in "+-":
        negative, i = s[0] == "-", 1
    rest = s[i:]
    if rest[:1] == "N":
        if rest == "NaN":
            return _Scanned(False, None, nan=True)
        raise _for_input_string(s)
    if rest[:1] == "I":
        if rest == "Infinity":
            return _Scanned(negative, None)
        raise _for_input_string(s)
    if rest[:2] in ("0x", "0X"):
        return _scan_hex(s)
    return _scan_decimal(s, negative, i)


def _scan_hex(s: str) -> _Scanned:
    """``FloatingDecimal.parseHexString``: C99 hex floats with a mandatory binary exponent."""
    m = _HEX_FLOAT.fullmatch(s)
    if m is None:
        raise _for_input_string(s)
    negative = s[0] == "-"
    digits = m["int"] if m["int"] is not None else (m["lead"] or "") + m["frac"]
    frac_len = 0 if m["int"] is not None else len(m["frac"])
    significand = int(digits, 16)
    if significand == 0:
        return _Scanned(negative, 0)
    positive_exp = m["esign"] != "-"
    raw = int(m["exp"])
    if raw > INT_MAX:  # Integer.parseInt overflows: Java returns infinity or zero outright
        return _Scanned(negative, None) if positive_exp else _Scanned(negative, 0)
    return _Scanned(negative, significand, 2, (raw if positive_exp else -raw) - 4 * frac_len)


_DIGITS_WITH_POINT = re.compile(r"([0-9]*)(\.?)([0-9]*)")
_EXPONENT = re.compile(r"[eE]([-+]?)([0-9]*)")


def _scan_decimal(s: str, negative: bool, start: int) -> _Scanned:
    """The decimal branch of ``readJavaFormatString``: digits with at most one point, an optional
    exponent (clamped as Java clamps it), an optional ``f``/``d`` suffix, nothing else."""
    m = _DIGITS_WITH_POINT.match(s, start)
    assert m is not None  # every part is optional
    int_part, point, frac_part = m.groups()
    digits = int_part + frac_part
    end = m.end()
    if s[end:end + 1] == ".":  # thrown while scanning, before the digit count is looked at ("..1")
        raise NumberFormatException("multiple points")
    if not digits:
        raise _for_input_string(s)
    stripped = digits.lstrip("0")
    significant = stripped.rstrip("0")
    # the value is 0.<significant> * 10**dec_exp, counted as FloatingDecimal counts it
    dec_exp = len(int_part) - (len(digits) - len(stripped)) if point else len(stripped)
    if s[end:end + 1] in ("e", "E"):
        e = _EXPONENT.match(s, end)
        assert e is not None
        if not e.group(2):  # "1e", "1e+", "1ex"
            raise _for_input_string(s)
        end = e.end()
        dec_exp = _apply_exponent(dec_exp, -1 if e.group(1) == "-" else 1, e.group(2), len(stripped),
                                  end < len(s))
    if end < len(s) and (end != len(s) - 1 or s[end] not in "fFdD"):
        raise _for_input_string(s)
    if not significant:
        return _Scanned(negative, 0)
    return _Scanned(negative, int(significant), 10, dec_exp - len(significant))


def _apply_exponent(dec_exp: int, sign: int, digits: str, n_digits: int, more_text: bool) -> int:
    """The exponent loop of ``readJavaFormatString``: beyond ``324 + n_digits`` the exponent is
    clamped, which Java decides before reading each char (including the one that stops the loop)."""
    really_big = INT_MAX // 10
    value, overflow = 0, False
    for ch in digits:
        overflow = overflow or value >= really_big
        value = value * 10 + int(ch)
    overflow = overflow or (more_text and value >= really_big)
    limit = _BIG_DECIMAL_EXPONENT + n_digits
    if overflow or value > limit:
        if not overflow and sign == 1 and dec_exp < 0 and value + dec_exp < limit:
            return dec_exp + value
        return sign * limit
    return dec_exp + sign * value


def _round_to(fmt: BinaryFormat, num: int, den: int) -> float:
    """``num/den > 0`` rounded to nearest-even in ``fmt``; inf when it overflows."""
    e = num.bit_length() - den.bit_length()
    if (num << max(0, -e)) < (den << max(0, e)):
        e -= 1
    e = max(e, fmt.min_exp)  # subnormals share the smallest quantum
    shift = e - (fmt.precision - 1)
    n2, d2 = (num, den << shift) if shift >= 0 else (num << -shift, den)
    q, r = divmod(n2, d2)
    if 2 * r > d2 or (2 * r == d2 and q & 1):
        q += 1
    if q and q.bit_length() - 1 + shift > fmt.max_exp:
        return math.inf
    return math.ldexp(q, shift)


def _log2_estimate(scanned: _Scanned, sig: int) -> float:
    if scanned.base == 2:
        return sig.bit_length() + scanned.exponent
    return (len(str(sig)) + scanned.exponent) * 3.33


def _value_of(scanned: _Scanned, fmt: BinaryFormat) -> float:
    if scanned.nan:
        return math.nan
    sign = -1.0 if scanned.negative else 1.0
    sig = scanned.significand
    if sig is None:
        return sign * math.inf
    if sig == 0:
        return sign * 0.0
    magnitude = _log2_estimate(scanned, sig)
    if magnitude > 1100:  # far beyond Double.MAX_VALUE: skip the huge power
        return sign * math.inf
    if magnitude < -1200:  # far below half of Double.MIN_VALUE
        return sign * 0.0
    base, exp = scanned.base, scanned.exponent
    num, den = (sig * base**exp, 1) if exp >= 0 else (sig, base**-exp)
    return sign * _round_to(fmt, num, den)


def parse_float(text: str) -> float:
    """``Float.parseFloat(text)`` (JDK 17), widened to double; NumberFormatException if malformed."""
    return _value_of(_scan(text), BINARY32)


def parse_double(text: str) -> float:
    """``Double.parseDouble(text)`` (JDK 17); NumberFormatException if malformed."""
    return _value_of(_scan(text), BINARY64)


# --------------------------------------------------------------------------------------------
# BigDecimal.valueOf(double)


@attrs.frozen
class JavaBigDecimal:
    """An exact decimal ``unscaled * 10**exponent`` (enough of java.math.BigDecimal here)."""

    unscaled: int
    exponent: int

    def multiply(self, factor: int) -> JavaBigDecimal:
        """``BigDecimal.valueOf(factor).multiply(this)``: exact."""
        return JavaBigDecimal(self.unscaled * factor, self.exponent)

    def compare_to(self, n: int) -> int:
        """``compareTo(BigDecimal.valueOf(n))``: -1, 0 or 1."""
        lhs: int
        rhs: int
        if self.exponent >= 0:
            lhs, rhs = self.unscaled * 10**self.exponent, n
        else:
            lhs, rhs = self.unscaled, n * 10**-self.exponent
        return (lhs > rhs) - (lhs < rhs)

    def set_scale_down(self, scale: int) -> JavaBigDecimal:
        """``setScale(scale, RoundingMode.DOWN)``: at most ``scale`` decimals, truncated toward zero."""
        if -self.exponent <= scale:
            return self
        q = abs(self.unscaled) // 10 ** (-self.exponent - scale)
        return JavaBigDecimal(q if self.unscaled >= 0 else -q, -scale)

    def double_value(self) -> float:
        """``doubleValue()``: the nearest double (JDK 17 rounds it correctly)."""
        if self.exponent >= 0:
            return float(self.unscaled * 10**self.exponent)
        return self.unscaled / 10**-self.exponent  # type: ignore[no-any-return]  # int ** int is Any in typeshed

    def long_value(self) -> int:
        """``longValue()`` of a value that fits a long: truncated toward zero."""
        if self.exponent >= 0:
            return self.unscaled * 10**self.exponent  # type: ignore[no-any-return]  # int ** int is Any in typeshed
        q: int = abs(self.unscaled) // 10**-self.exponent
        return q if self.unscaled >= 0 else -q


def big_decimal_of(value: float) -> JavaBigDecimal:
    """``BigDecimal.valueOf(value)``: the decimal ``Double.toString`` prints; NaN and infinities
    throw the NumberFormatException of ``new BigDecimal("NaN")``."""
    text = double_to_string(value)
    if not math.isfinite(value):
        bad = text.lstrip("-")[0]
        raise NumberFormatException(
            f"Character {bad} is neither a decimal digit number, decimal point, nor"
            ' "e" notation exponential mark.'
        )
    mantissa, _, exp = text.partition("E")
    whole, _, frac = mantissa.partition(".")
    return JavaBigDecimal(int(whole + frac), (int(exp) if exp else 0) - len(frac))
