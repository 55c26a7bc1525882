"""Java's number parsing and printing, as the memory rules see them (JDK 17, the bridge's JDK).

Flink reads its float and double options with ``Float.parseFloat`` / ``Double.parseDouble``, its
int options with ``Integer.parseInt``, widens every ``float`` to ``double``, hands multipliers to
``BigDecimal.valueOf(double)`` (which goes through ``Double.toString``) and prints sizes with
``String.format("%.3f")``. Each of these differs from Python's nearest built-in:

- ``Float.parseFloat`` accepts ``" 0.1 "``, ``"1e-1"``, ``"0.1f"``, ``"NaN"``, ``"Infinity"``,
  ``"0x1p-3"``; rejects ``"nan"``, ``"inf"``, ``"1_0"``; rounds the decimal straight to binary32.
- ``Double.toString`` of JDK <= 18 is not always the shortest repr (JDK-4511638): its digits are
  ported here from ``jdk.internal.math.FloatingDecimal.BinaryToASCIIBuffer.dtoa``.
- ``%.3f`` rounds HALF_UP on those digits (``FormattedFloatingDecimal``), not on the binary value.

A Python ``float`` holds both Java ``float`` and ``double`` values (widening is exact).
"""

from __future__ import annotations

import math
import re
import struct
import unicodedata

import attrs

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


class IllegalStateException(JavaException):
    """java.lang.IllegalStateException."""


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


def _scan_decimal(s: str, negative: bool, i: int) -> _Scanned:
    """The decimal branch of ``readJavaFormatString``, including its exponent clamping."""
    n = len(s)
    m = re.compile(r"([0-9]*)(\.?)([0-9]*)").match(s, i)
    assert m is not None
    int_part, point, frac_part = m.group(1), m.group(2), m.group(3)
    if point == "" and frac_part:  # unreachable: [0-9]* is greedy
        raise _for_input_string(s)
    all_digits = int_part + frac_part
    if not all_digits:
        raise _for_input_string(s)
    i = m.end()
    if i < n and s[i] == ".":  # a second point
        raise NumberFormatException("multiple points")
    stripped = all_digits.lstrip("0")
    n_lead_zero = len(all_digits) - len(stripped)
    significant = stripped.rstrip("0")
    n_trail_zero = len(stripped) - len(significant)
    # 0.significant * 10**dec_exp, as FloatingDecimal counts it
    dec_exp = len(int_part) - n_lead_zero if point else len(significant) + n_trail_zero
    if i < n and s[i] in "eE":
        i += 1
        if i >= n:
            raise _for_input_string(s)
        exp_sign = -1 if s[i] == "-" else 1
        if s[i] in "+-":
            i += 1
        exp_digits = re.compile(r"[0-9]*").match(s, i)
        assert exp_digits is not None
        if not exp_digits.group():
            raise _for_input_string(s)
        i = exp_digits.end()
        n_digits = len(significant) + n_trail_zero
        dec_exp = _apply_exponent(dec_exp, exp_sign, exp_digits.group(), n_digits, s, i)
    if i < n and (i != n - 1 or s[i] not in "fFdD"):
        raise _for_input_string(s)
    if not significant:
        return _Scanned(negative, 0)
    return _Scanned(negative, int(significant), 10, dec_exp - len(significant))


def _apply_exponent(dec_exp: int, sign: int, digits: str, n_digits: int, s: str, end: int) -> int:
    """The exponent loop of ``readJavaFormatString``: a huge exponent is clamped, not exact."""
    really_big = INT_MAX // 10
    value, overflow = 0, False
    for ch in digits:
        if value >= really_big:
            overflow = True
        value = value * 10 + int(ch)
    if end < len(s) and value >= really_big:  # Java checks before reading the stop char too
        overflow = True
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


def to_float32(value: float) -> float:
    """``(float) value``: a double narrowed to binary32 (nearest-even), widened back exactly."""
    if not math.isfinite(value) or value == 0:
        return value
    num, den = abs(value).as_integer_ratio()
    return math.copysign(_round_to(BINARY32, num, den), value)


# --------------------------------------------------------------------------------------------
# Double.toString and String.format("%.Nf") (FloatingDecimal.BinaryToASCIIBuffer, JDK 17)

_EXP_SHIFT = 52
_FRACT_HOB = 1 << _EXP_SHIFT
# approximately ceil(log2(5**i)), and insignificantDigits(1L << i), both as in FloatingDecimal
_N_5_BITS = (0, 3, 5, 7, 10, 12, 14, 17, 19, 21, 24, 26, 28, 31, 33, 35, 38, 40, 42, 45, 47, 49, 52, 54,
             56, 59, 61)
_INSIGNIFICANT_DIGITS = (0, 0, 0, 0, 1, 1, 1, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 5, 5, 5, 6, 6, 6, 6, 7, 7, 7,
                         8, 8, 8, 9, 9, 9, 9, 10, 10, 10, 11, 11, 11, 12, 12, 12, 12, 13, 13, 13, 14, 14,
                         14, 15, 15, 15, 15, 16, 16, 16, 17, 17, 17, 18, 18, 18, 19)


@attrs.frozen
class JavaDigits:
    """What ``BinaryToASCIIBuffer`` holds: ``value = 0.<digits> * 10**dec_exponent``."""

    negative: bool
    digits: str
    dec_exponent: int


def _wrap(value: int, bits: int) -> int:
    """Java two's-complement overflow of an int (32) or long (64) expression."""
    value &= (1 << bits) - 1
    return value - (1 << bits) if value >> (bits - 1) else value


def _estimate_dec_exp(fract_bits: int, bin_exp: int) -> int:
    """``BinaryToASCIIBuffer.estimateDecExp``: floor of a double-precision log10 estimate."""
    d2 = struct.unpack("<d", struct.pack("<Q", (1023 << _EXP_SHIFT) | (fract_bits & (_FRACT_HOB - 1))))[0]
    d = (d2 - 1.5) * 0.289529654 + 0.176091259 + float(bin_exp) * 0.301029995663981
    return math.floor(d)


def _develop_long_digits(lvalue: int, insignificant: int) -> tuple[str, int]:
    """``developLongDigits(0, lvalue, insignificant)``: an integer's digits, low zeros dropped."""
    dec_exponent = 0
    if insignificant:
        pow10 = 10**insignificant
        residue = lvalue % pow10
        lvalue //= pow10
        dec_exponent += insignificant
        if residue >= pow10 >> 1:
            lvalue += 1
    text = str(lvalue)
    return text.rstrip("0"), dec_exponent + len(text)


def _generate_small(b: int, s: int, m: int, bits: int, compatible: bool, dec_exp: int) -> tuple:
    """The int (32) / long (64) digit loop of ``dtoa``, with Java's overflow of ``m``."""
    tens = _wrap(s * 10, bits)
    digits: list[int] = []
    q, b = b // s, _wrap(10 * (b % s), bits)
    m = _wrap(m * 10, bits)
    low, high = b < m, _wrap(b + m, bits) > tens
    if q == 0 and not high:
        dec_exp -= 1
    else:
        digits.append(q)
    if not compatible or dec_exp < -3 or dec_exp >= 8:
        low = high = False
    while not low and not high:
        q, b = b // s, _wrap(10 * (b % s), bits)
        m = _wrap(m * 10, bits)
        if m > 0:
            low, high = b < m, _wrap(b + m, bits) > tens
        else:  # "hack -- m might overflow!"
            low = high = True
        digits.append(q)
    return digits, dec_exp, low, high, _wrap((b << 1) - tens, bits)


def _generate_big(b: int, s: int, m: int, compatible: bool, dec_exp: int) -> tuple:
    """The FDBigInteger digit loop of ``dtoa`` (note ``>=`` where the small loops use ``>``)."""
    ten_s = 10 * s
    m *= 10
    digits: list[int] = []
    q, b = divmod(b, s)
    b *= 10
    low, high = b < m, b + m >= ten_s
    if q == 0 and not high:
        dec_exp -= 1
    else:
        digits.append(q)
    if not compatible or dec_exp < -3 or dec_exp >= 8:
        low = high = False
    while not low and not high:
        q, b = divmod(b, s)
        b *= 10
        m *= 10
        low, high = b < m, b + m >= ten_s
        digits.append(q)
    diff = ((2 * b > ten_s) - (2 * b < ten_s)) if high and low else 0
    return digits, dec_exp, low, high, diff


def _roundup(digits: str, dec_exponent: int) -> tuple[str, int]:
    """``BinaryToASCIIBuffer.roundup``: all nines become 1 followed by zeros (length kept)."""
    stripped = digits.rstrip("9")
    if not stripped:
        return "1" + "0" * (len(digits) - 1), dec_exponent + 1
    return stripped[:-1] + str(int(stripped[-1]) + 1) + "0" * (len(digits) - len(stripped)), dec_exponent


def _dtoa(bin_exp: int, fract_bits: int, n_significant_bits: int, compatible: bool) -> tuple[str, int]:
    """``BinaryToASCIIBuffer.dtoa``: the digits and decimal exponent JDK 17 prints."""
    tail_zeros = (fract_bits & -fract_bits).bit_length() - 1
    n_fract_bits = _EXP_SHIFT + 1 - tail_zeros
    n_tiny_bits = max(0, n_fract_bits - bin_exp - 1)
    if -21 <= bin_exp <= 62 and n_tiny_bits == 0:  # the easy case: an integer that fits a long
        p2 = bin_exp - n_significant_bits - 1
        insignificant = _INSIGNIFICANT_DIGITS[p2] if bin_exp > n_significant_bits and 1 < p2 < 64 else 0
        shifted = fract_bits << (bin_exp - 52) if bin_exp >= 52 else fract_bits >> (52 - bin_exp)
        return _develop_long_digits(shifted, insignificant)
    dec_exp = _estimate_dec_exp(fract_bits, bin_exp)
    b5 = max(0, -dec_exp)
    b2 = b5 + n_tiny_bits + bin_exp
    s5 = max(0, dec_exp)
    s2 = s5 + n_tiny_bits
    m5, m2 = b5, b2 - n_significant_bits
    fract_bits >>= tail_zeros
    b2 -= n_fract_bits - 1
    common2 = min(b2, s2)
    b2, s2, m2 = b2 - common2, s2 - common2, m2 - common2
    if n_fract_bits == 1:
        m2 -= 1
    if m2 < 0:
        b2, s2, m2 = b2 - m2, s2 - m2, 0
    b_bits = n_fract_bits + b2 + (_N_5_BITS[b5] if b5 < len(_N_5_BITS) else b5 * 3)
    ten_s_bits = s2 + 1 + (_N_5_BITS[s5 + 1] if s5 + 1 < len(_N_5_BITS) else (s5 + 1) * 3)
    b, s, m = (fract_bits * 5**b5) << b2, 5**s5 << s2, 5**m5 << m2
    if b_bits < 64 and ten_s_bits < 64:
        bits = 32 if b_bits < 32 and ten_s_bits < 32 else 64
        generated = _generate_small(_wrap(b, bits), _wrap(s, bits), _wrap(m, bits), bits, compatible, dec_exp)
    else:
        generated = _generate_big(b, s, m, compatible, dec_exp)
    digit_list, dec_exp, low, high, low_digit_difference = generated
    digits, dec_exponent = "".join(map(str, digit_list)), dec_exp + 1
    round_up = high and (not low or low_digit_difference > 0 or
                         (low_digit_difference == 0 and int(digits[-1]) % 2 == 1))
    return _roundup(digits, dec_exponent) if round_up else (digits, dec_exponent)


def java_digits(value: float, compatible: bool = True) -> JavaDigits:
    """``FloatingDecimal.getBinaryToASCIIConverter(value, compatible)`` for a finite double."""
    bits = struct.unpack("<Q", struct.pack("<d", value))[0]
    negative = bool(bits >> 63)
    fract_bits = bits & (_FRACT_HOB - 1)
    bin_exp = (bits >> _EXP_SHIFT) & 0x7FF
    if bin_exp == 0x7FF:
        raise ValueError("NaN and infinities have no digits")
    if bin_exp == 0:
        if fract_bits == 0:
            return JavaDigits(negative, "0", 0)
        leading_zeros = 64 - fract_bits.bit_length()
        shift = leading_zeros - (63 - _EXP_SHIFT)
        fract_bits <<= shift
        bin_exp, n_significant_bits = 1 - shift, 64 - leading_zeros
    else:
        fract_bits |= _FRACT_HOB
        n_significant_bits = _EXP_SHIFT + 1
    digits, dec_exponent = _dtoa(bin_exp - 1023, fract_bits, n_significant_bits, compatible)
    return JavaDigits(negative, digits, dec_exponent)


def double_to_string(value: float) -> str:
    """``Double.toString(value)`` exactly as JDK 17 prints it (``1.0``, ``1.0E-5``, ``NaN``)."""
    if math.isnan(value):
        return "NaN"
    if math.isinf(value):
        return "Infinity" if value > 0 else "-Infinity"
    d = java_digits(value)
    sign, digits, exp = "-" if d.negative else "", d.digits, d.dec_exponent
    if 0 < exp < 8:
        head = digits[:exp]
        if len(head) < exp:
            return f"{sign}{head}{'0' * (exp - len(head))}.0"
        return f"{sign}{head}.{digits[exp:] or '0'}"
    if -3 < exp <= 0:
        return f"{sign}0.{'0' * -exp}{digits}"
    e = f"-{-exp + 1}" if exp <= 0 else str(exp - 1)
    return f"{sign}{digits[0]}.{digits[1:] or '0'}E{e}"


def format_fixed(value: float, precision: int) -> str:
    """``String.format(Locale.ROOT, "%.<precision>f", value)`` (``FormattedFloatingDecimal``).

    The digits are ``Double.toString``'s (non-compatible form), rounded HALF_UP at the precision.
    """
    if math.isnan(value):
        return "NaN"
    if math.isinf(value):
        return "Infinity" if value > 0 else "-Infinity"
    sign = "-" if math.copysign(1.0, value) < 0 else ""  # Formatter: Double.compare(value, 0.0) == -1
    d = java_digits(abs(value), compatible=False)
    digits, exp = _apply_precision(d.digits, d.dec_exponent, d.dec_exponent + precision)
    if exp > 0:
        whole = digits[:exp] + "0" * max(0, exp - len(digits))
        frac = digits[exp:exp + precision]
    else:
        whole = "0"
        frac = ("0" * min(-exp, precision) + digits)[:precision]
    frac += "0" * (precision - len(frac))
    return f"{sign}{whole}.{frac}" if precision else f"{sign}{whole}"


def _apply_precision(digits: str, dec_exp: int, prec: int) -> tuple[str, int]:
    """``FormattedFloatingDecimal.applyPrecision``: HALF_UP on the decimal digits."""
    if prec >= len(digits) or prec < 0:
        return digits, dec_exp
    if prec == 0:
        if digits[0] >= "5":
            return "1" + "0" * (len(digits) - 1), dec_exp + 1
        return "0" * len(digits), dec_exp
    if digits[prec] < "5":
        return digits[:prec] + "0" * (len(digits) - prec), dec_exp
    head = digits[:prec].rstrip("9")
    if not head:
        return "1" + "0" * (len(digits) - 1), dec_exp + 1
    return head[:-1] + str(int(head[-1]) + 1) + "0" * (len(digits) - len(head)), dec_exp


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
        return self.unscaled / 10**-self.exponent

    def long_value(self) -> int:
        """``longValue()`` of a value that fits a long: truncated toward zero."""
        if self.exponent >= 0:
            return self.unscaled * 10**self.exponent
        q = abs(self.unscaled) // 10**-self.exponent
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
