"""``Double.toString`` and ``String.format("%.Nf")`` exactly as JDK 17 prints doubles.

Before JDK 19, ``Double.toString`` was not always the shortest repr that round-trips
(JDK-4511638: ``2.82879384806159E17`` prints as ``2.82879384806159008E17``, ``1.0E23`` as
``9.999999999999999E22``), and ``%.3f`` rounds HALF_UP on those same digits. Flink prints
fractions with the first and sizes with the second, and feeds the first to ``BigDecimal``. This is
a port of ``jdk.internal.math.FloatingDecimal.BinaryToASCIIBuffer`` (``dtoa``, ``roundup``,
``getChars``) and ``FormattedFloatingDecimal`` (``applyPrecision``, ``fillDecimal``); Java's int
and long overflow inside the digit loop is reproduced.
"""

from __future__ import annotations

import functools
import math
import struct

import attrs

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
    d2: float = struct.unpack("<d", struct.pack("<Q", (1023 << _EXP_SHIFT) | (fract_bits & (_FRACT_HOB - 1))))[0]
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


# a digit loop's digits, decimal exponent, low and high stop flags and the last remainder's comparison
_Generated = tuple[list[int], int, bool, bool, int]


def _generate_small(b: int, s: int, m: int, bits: int, compatible: bool, dec_exp: int) -> _Generated:
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


def _generate_big(b: int, s: int, m: int, compatible: bool, dec_exp: int) -> _Generated:
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
    return _digits_of_bits(struct.unpack("<Q", struct.pack("<d", value))[0], compatible)


@functools.lru_cache(maxsize=4096)
def _digits_of_bits(bits: int, compatible: bool) -> JavaDigits:
    """Cached by bit pattern, never by float value: -0.0 == 0.0 but prints differently."""
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
