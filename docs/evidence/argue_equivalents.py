"""Write docs/evidence/equivalent-mutants.json: the survivors argued, one group at a time, to change no
answer of Flink's. Each group: module, function (regex), a test of the diff, the argument.

Run from the project root after the mutation score's passes (it reads ``mutants/``):
``python docs/evidence/argue_equivalents.py``; then ``python -m flinkspec.tools.mutation_score --json ...``."""
import json
import re

import flinkspec.tools.mutation_score as ms


def added(pattern):
    return lambda d: re.search(pattern, "\n".join(d.added)) is not None

def version_to_none(d):
    return "version" in "\n".join(d.removed) and re.search(r"\bNone\)", "\n".join(d.added)) is not None

def numbered(*numbers):
    return lambda d: d.name.rsplit("_", 1)[1] in {str(n) for n in numbers}

SHORT_INPUTS = ("no answer changes for a text shorter than 2*10^8 chars (FloatingDecimal stops counting an "
                "exponent's digits past "
                "Integer.MAX_VALUE/10, and only a decimal exponent of that size, brought back by as many leading "
                "zeros, could tell)")
JAVA = [
    ("javanum", r"^_java_digit$", numbered(2, 3, 5, 11),
     "the one caller only asks digit < 0; U+FFFF and U+10000 are no decimal digits (unicodedata gives -1 too)"),
    ("javanum", r"^_value_of$", numbered(19, 20, 22, 24),
     "the shortcuts are for speed: at a log2 estimate of 1100 (-1200) the exact rounding gives infinity (zero) too"),
    ("javanum", r"^_value_of$|^_round_to$", numbered(33, 34, 35),
     "at an exponent (shift) of 0 both branches compute the same numerator and denominator"),
    ("javanum", r"^_round_to$", numbered(10),
     "for an exact power of two the estimate one lower gives a quotient of 2^precision with no remainder: the same "
     "double (and the same overflow test)"),
    ("javanum", r"^_log2_estimate$", numbered(4),
     "the estimate only chooses the shortcuts for infinity and zero; a smaller one computes the same double exactly"),
    ("javanum", r"JavaBigDecimal\.(compare_to|double_value|long_value)$", numbered(1, 2),
     "at exponent 0 both branches compute the same value (10**0 == 1)"),
    ("javanum", r"JavaBigDecimal\.long_value$", numbered(13, 14, 15, 16),
     "the one caller, MemorySize.multiply, multiplies a multiplier >= 0 by a size >= 0: the product is never negative"),
    ("javanum", r"JavaBigDecimal\.set_scale_down$", numbered(15, 16, 17, 18),
     "the one caller, CPUResource, scales a core count it checked to be positive"),
    ("javanum", r"JavaBigDecimal\.set_scale_down$", numbered(2),
     "at scale == -exponent the other branch divides by 10**0 and builds the same decimal"),
    ("javanum", r"JavaException\.__init__$", numbered(1, 3),
     "the protocol carries an exception's simple name and .message; Python's args and the cause are never read"),
    ("javanum", r"^_apply_exponent$", numbered(2, 3, 7, 8, 9, 15, 16, 18, 21, 22, 29, 30, 32), SHORT_INPUTS +
     "; at value == limit, or a decimal exponent of 0, clamping and not clamping give the same exponent, or a "
     "value that is infinity (zero) both ways"),
    ("javanum", r"^_scan_decimal$", numbered(56, 73), SHORT_INPUTS),
    ("javanum", r"^_scan_decimal$", numbered(21, 23, 25, 26, 27, 30),
     "the same value: zeros kept at either end of the significand move its exponent by as many places; without a "
     "point all digits are the integer part; the larger digit count only widens a clamp whose values are "
     "infinity or zero either way"),
    ("javanum", r"^_scan$", numbered(28, 33), "NaN has no sign: _value_of returns math.nan whatever the flag"),
    ("javanum", r"^_scan_hex$", numbered(53),
     "an exponent of exactly Integer.MAX_VALUE parses, and its value is infinity (zero) as the shortcut answers, for "
     "every text shorter than 5*10^8 chars"),
    ("javanum", r"^big_decimal_of$", numbered(8, 20),
     "the text is NaN, Infinity or -Infinity (no X to strip); a Double.toString has one point at most"),
    ("javanum", r"^parse_boolean_option$", numbered(11),
     "its exception only becomes the cause of Configuration.get's \"Could not parse value ...\", whose text alone "
     "Flink answers"),
    ("javadtoa", r"^double_to_string$", numbered(11, 12), "the value is +-infinity here"),
    ("javadtoa", r"^double_to_string$", numbered(38, 43, 48, 49),
     "exp 1 is printed by the branch above; for exp <= 0, f\"-{-exp + 1}\" == str(exp - 1)"),
    ("javadtoa", r"^format_fixed$", numbered(26), "math.copysign(1.0, x) is 1.0 or -1.0"),
    ("javadtoa", r"^(_estimate_dec_exp|java_digits)$", numbered(11, 13),
     "the same 64 bits: the packed value is below 2^63, and the signed unpack keeps the low 63 bits that "
     "_digits_of_bits masks (bits >> 63 is true for both signs' encodings of a negative)"),
    ("javadtoa", r"^_apply_precision$", numbered(13, 14, 25, 51),
     "the digits it changes lie past the precision: format_fixed prints only the digits before exp + precision and "
     "pads with zeros"),
    ("javadtoa", r"^_roundup$", numbered(4), "digits hold no X"),
    ("javadtoa", r"^_develop_long_digits$", numbered(10, 22),
     "dec_exponent is 0 before (= and += agree); digits hold no X"),
    ("javadtoa", r"^_develop_long_digits$", numbered(12),
     "a tie needs a residue of 5 (50) modulo 10 (100), an odd (singly even) integer, and the doubles with 1 (2) "
     "insignificant digits are multiples of 2^5 (2^8)"),
    ("javadtoa", r"^_dtoa$", numbered(3), "x | -x == -(x & -x) for x > 0: the same bit_length"),
    ("javadtoa", r"^_dtoa$", numbered(21, 22),
     "below bin_exp 0 a double is no integer, so n_tiny_bits > 0 and the lower bound never decides"),
    ("javadtoa", r"^_dtoa$", numbered(34, 35, 36, 37, 38, 39),
     "in the easy case p2 = bin_exp - 54 <= 8, and _INSIGNIFICANT_DIGITS is 0 for p2 <= 3"),
    ("javadtoa", r"^_dtoa$", numbered(47, 48, 101, 102), "at bin_exp 52 (m2 0) both branches change nothing"),
    ("javadtoa", r"^_generate_(big|small)$", numbered(36, 49),
     "None and False are both false to the loop, which sets low and high before they are returned"),
    ("javadtoa", r"^_generate_big$", numbered(59, 67, 68),
     "diff is read only when high and low are both true (round_up is `high and (not low or ...)`)"),
    ("javadtoa", r"^_generate_small$", numbered(71), "m is even (m * 10 wrapped): never 1"),
]

COORDINATOR = [
    ("coordinator_machine", r"Coordinator\.(_run_trigger|_complete|advance|restart)$",
     lambda d: "task_level=None" in "\n".join(d.added),
     "task_level is read only as `not task_level`: None and False alike"),
    ("coordinator_machine", r"Coordinator\.(__init__|_run_trigger|fail)$",
     lambda d: re.search(r"self\.(triggering|running\[task\]) = None", "\n".join(d.added)) is not None,
     "triggering and running[task] are read only as truth values: None and False alike"),
    ("coordinator_machine", r"Coordinator\.__init__$",
     lambda d: re.search(r"self\.now = (None|1)$", "\n".join(d.added).strip()) is not None,
     "the first event's advance(at) sets now before anything reads it"),
    ("coordinator_machine", r"Coordinator\.__init__$",
     lambda d: re.search(r"self\.(timer_seq|request_seq|periodic_token) = 1$"
                         r"|self\.attempt = dict\.fromkeys\(tasks, 1\)", "\n".join(d.added).strip()) is not None,
     "a sequence number's start: timers and requests are ordered by it, periodic tokens and task attempts only "
     "compared for equality, so another start keeps every order and every match"),
    ("coordinator_machine", r"Coordinator\.(_schedule|submit|_choose|restart)$",
     lambda d: re.search(r"(timer_seq|request_seq|periodic_token|attempt\[task\]) \+= 2",
                         "\n".join(d.added)) is not None
     or re.search(r"(periodic_token|attempt\[task\]) -= 1", "\n".join(d.added)) is not None,
     "steps of 2 keep a sequence's order; periodic tokens and attempts are only compared for equality, and counting "
     "down keeps them distinct"),
    ("coordinator_machine", r"Coordinator\.submit$", lambda d: "self.request_seq = 1" in "\n".join(d.added),
     "requests of equal rank keep their arrival order without it: bisect.insort puts a request after its equals"),
]

ARGUED = [
    ("memory_tm", r"java_hash_map_order", added(r"capacity \* 3"),
     "the one caller passes 13 entries (the TaskManager's dynamic configs): capacity ends at 32 with every "
     "one of these thresholds"),
    ("memory_tm", r"java_string_hash", added(r'"UTF-16-BE"|int\.from_bytes\(data\[i:i \+ 2\], \)'),
     "the same codec by another name; int.from_bytes is big-endian by default (Python 3.11+)"),
    ("memory_tm", r"check_total_flink$", added(r"."),
     "unreachable: wherever a total Flink memory is configured, one part is derived as the total minus the "
     "others, so the parts always add up (Flink's sanityCheckTotalFlinkMemory cannot fail either)"),
    ("memory_tm", r"check_network_remainder", added(r"check_in_range\(|IllegalConfigurationException\(\s*None|None\)$"),
     "the inner exception is caught and becomes the cause of the generic message Flink answers"),
    ("memory_(tm|process|jm)", r".", version_to_none,
     "the version is read only by MemorySize.multiply, for a NaN multiplier, and every fraction reaching it "
     "passed RangeFraction's check (NaN fails it)"),
    ("memory_options", r"get_memory_size", added(r"JavaException\("),
     "the inner exception is caught and becomes the cause of \"Cannot read memory size from config option\""),
    ("memory_options", r"get_range_fraction", lambda d: "IllegalArgumentException(cause)" in "\n".join(d.removed),
     "the IllegalArgumentException is the cause of \"Inconsistently configured ...\", whose text alone Flink answers"),
    ("watermark", r"_checked_arrivals", added(r"."),
     "runs only for an input the fast path refused and always raises a BadRequest; the list it builds is "
     "never returned"),
    ("combined", r"IndexedCombinedWatermarkStatus\.update_watermark", added(r">="),
     "an equal watermark leaves the combined minimum as it was"),
    ("classloading_config", r"_java_whitespace", added(r"161|8240|28 <= code <= 32"),
     "U+00A0 and U+202F are not in _SPACE_SEPARATORS, so excluding them (or U+00A1, U+2030) changes nothing; "
     "U+0020 is in it"),
    ("classloading_config", r"_unicode_ok", added(r"ord\(ch\) >= 0x7F|ord\(ch\) > 128"),
     "U+007F and U+0080 are outside YAML's printable set: a value holding one is no YAML list before any item "
     "is read"),
    ("classloading", r"_names$", added(r"kind = "), "kind only names the sort of name in a BadRequest's text"),
]

ARGUED += JAVA + COORDINATOR
found = ms.with_equivalents(ms.merged(ms.verdicts(), json.loads(ms.SECOND_PASS.read_text())), argued=False)
gaps = [n for n, (_, s) in found.items() if s in ("survived", "no tests")]
ds = ms.diffs(gaps)
out = {}
for name, d in ds.items():
    for module, function, test, reason in ARGUED:
        if re.fullmatch(module, d.module) and re.search(function, d.function) and test(d):
            out[name] = reason
            break
ms.EQUIVALENT.write_text(json.dumps(out, indent=1, sort_keys=True) + "\n")
print(len(out), "argued")
