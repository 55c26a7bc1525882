"""The oracle's mutation score, per area: how much of the oracle the suite pins to real Flink.

``python -m flinkspec.tools.mutation_score --run`` runs mutmut (configured in pyproject.toml) over
``oracle/`` with the tests that hold the oracle to real Flink (the recorded answers of the jars,
``properties/recorded/``; the JDK's answers for Java's number primitives; the scenarios of Flink's
own tests; the malformed inputs), then gives every mutant mutmut saw survive a second chance to be
caught: a fresh interpreter with the mutant active from the first import, running every one of
those tests of the mutant's area. (mutmut runs only the tests its call statistics tie to the
mutated function; a rule table the oracle builds at import, or a cached function, is tied to the
first test that happened to build it, so mutmut alone calls many caught mutants survivors.)
Then it sums up the verdicts per area. A mutant that survives both changes the oracle where none
of the inputs looks, or does not change any answer (an equivalent mutant): docs/mutation-score.md
explains them. Without ``--run`` it summarises the last run (``mutants/``).
"""

from __future__ import annotations

import argparse
import ast
import functools
import json
import os
import re
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import attrs

ROOT = Path(__file__).resolve().parents[2]
MUTANTS = ROOT / "mutants" / "oracle"
SECOND_PASS = ROOT / "mutants" / "second-pass.json"
SECOND_PASS_TIMEOUT_S = 600
# The modules whose mutants mutmut's call statistics can tie to too few tests: those that build rule
# tables at import (coordinator_rules, memory_options; versions and javanum, which those call; the
# area registry in __init__) and those with caches (memsize, javadtoa, classloading), plus those
# whose tests grew after the measured mutmut run (watermark, protocol; memory, whose recorded
# answers went from 600 to 3,000 generated inputs per version). Everywhere else a function runs
# when a test calls it, and mutmut's verdict stands.
SECOND_PASS_MODULES = ("coordinator_rules", "memory_options", "versions", "__init__", "memsize", "protocol",
                       "watermark", "memory", "memory_jm", "memory_tm", "memory_process", "classloading",
                       "javanum", "javadtoa")
SECOND_PASS_COORDINATOR_RECORDS = 200  # of ~500 per version: the coordinator's are the slow ones
SECOND_PASS_PROTOCOL_RECORDS = 100  # per version and corpus, for the mutants that reach every area


def _env(**extra: str) -> dict[str, str]:
    """The environment of mutmut and its workers: bytecode written (each worker imports the mutated
    oracle afresh; compiling its every mutant each time made a worker 3.5x slower here)."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    return {**env, **extra}

# Each oracle module's group (an area name's first part) for the scores: an area's own modules come from its
# declaration (``Area.oracle``, properties/areas.py), so a new area needs no line here; the modules listed are the
# ones no area declares (the shared helpers and the older areas' modules).
_UNDECLARED = {
    "memory": ("memory", "memory_jm", "memory_options", "memory_process", "memory_tm", "memsize"),
    "watermark": ("watermark",),
    "classloading": ("classloading_config",),
    "checkpoint": ("alignment_handlers", "coordinator_machine", "coordinator_rules", "flinkpath"),
    "java numbers (memory, classloading)": ("javanum", "javadtoa"),
    "protocol and dispatch": ("__init__", "protocol", "versions", "rules", "changes"),
    "explanations (which rule decided each part)": ("explain",),
}


def _area_of_file() -> dict[str, tuple[str, ...]]:
    from properties.areas import AREAS

    groups = {group: list(names) for group, names in _UNDECLARED.items()}
    for area in AREAS.values():
        for module in area.oracle:
            groups[area.name.split(".")[0]].append(module)
    return {group: tuple(names) for group, names in groups.items()}


AREA_OF_FILE = _area_of_file()


def _recorded(*areas: str) -> list[str]:
    from oracle.versions import SUPPORTED

    return [f"properties/test_recorded_answers.py::test_gives_real_flinks_recorded_answers[{v}-{a}]"
            for a in areas for v in SUPPORTED]


def _corpora(group: str) -> list[str]:
    """The recorded corpora of a group's areas: their extra corpora first, then the areas' own."""
    from properties.areas import AREAS

    areas = [a for a in AREAS.values() if a.name.partition(".")[0] == group]
    return [c.name for a in areas for c in a.corpora] + [a.name for a in areas]


def area_tests(area: str) -> list[str]:
    """Every test of the mutation score's selection that bears on ``area``, quickest killers first."""
    memory = ["properties/test_flink_tables.py", "properties/test_oracle_memory_examples.py",
              "properties/memory/test_consumers_meta.py", "properties/memory/test_consumers_bad_input.py",
              "properties/memory/test_network_meta.py", "properties/memory/test_network_bad_input.py",
              *_recorded(*_corpora("memory"))]
    watermark = ["properties/test_oracle_watermark_examples.py", "properties/watermark/test_bad_input.py",
                 "properties/watermark/test_generation_meta.py", "properties/watermark/test_generation_bad_input.py",
                 "properties/watermark/test_windows_meta.py", "properties/watermark/test_windows_bad_input.py",
                 "properties/watermark/test_async_meta.py", "properties/watermark/test_async_bad_input.py",
                 "properties/watermark/test_assigner_meta.py", "properties/watermark/test_assigner_bad_input.py",
                 "properties/test_protocol_errors.py",
                 *_recorded(*_corpora("watermark"))]
    classloading = ["properties/classloading/test_bad_input.py", "properties/classloading/test_lifecycle_bad_input.py",
                    *_recorded(*_corpora("classloading"))]
    checkpoint = ["properties/test_flink_tables.py", "properties/checkpoint/test_examples.py",
                  "properties/checkpoint/test_bad_input.py", "properties/checkpoint/test_storage_pinned.py",
                  "properties/checkpoint/test_storage_bad_input.py", "properties/checkpoint/test_storage_oracle.py",
                  "properties/checkpoint/test_snapshot_meta.py", "properties/checkpoint/test_snapshot_bad_input.py",
                  *_recorded(*_corpora("checkpoint"))]
    return {
        "memory": memory, "watermark": watermark, "classloading": classloading, "checkpoint": checkpoint,
        "java numbers (memory, classloading)": ["properties/test_java_numbers.py", *memory, *classloading],
        "protocol and dispatch": ["properties/test_protocol_errors.py", "properties/test_java_numbers.py",
                                  *memory, *watermark, *classloading,
                                  *checkpoint],
        "explanations (which rule decided each part)": ["properties/test_oracle_explains.py",
                                                        "tests/test_divergences.py"],
    }[area]


def _imports(module: str) -> set[str]:
    """The oracle modules ``oracle/<module>.py`` imports, directly or not (itself included)."""
    import ast

    seen, todo = set(), [module]
    while todo:
        name = todo.pop()
        if name in seen or not (ROOT / "oracle" / f"{name}.py").exists():
            continue
        seen.add(name)
        for node in ast.walk(ast.parse((ROOT / "oracle" / f"{name}.py").read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.module == "oracle":
                todo += [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and (node.module or "").startswith("oracle."):
                todo.append(str(node.module).removeprefix("oracle."))
            elif isinstance(node, ast.Import):
                todo += [a.name.removeprefix("oracle.") for a in node.names if a.name.startswith("oracle.")]
    return seen


def _reaching(module: str) -> set[str]:
    """The areas whose oracle entry point's module imports ``oracle/<module>.py`` (or is it): the areas
    whose answers can reach it. Empty for a module no entry point reaches that way (the dispatch's)."""
    import oracle

    return {name for name, entry in oracle.AREAS.items()
            if module in _imports(entry.__module__.removeprefix("oracle."))}


def module_tests(module: str) -> list[str]:
    """:func:`area_tests` of the module's area, less the recorded answers of the areas that cannot
    reach it (:func:`_reaching`; the coordinator's are the slowest of the selection). The Java-number
    modules' second pass is the JDK differential alone, which asks their primitives directly:
    mutmut's first pass ran the memory and class-loading tests that call them (their recorded
    answers took minutes per surviving mutant here)."""
    from properties.areas import area_of_corpus

    if module in AREA_OF_FILE["java numbers (memory, classloading)"]:
        return ["properties/test_java_numbers.py"]
    tests = area_tests(area_of(module))
    if not (reaching := _reaching(module)):
        return tests
    recorded = "properties/test_recorded_answers.py::"
    return [t for t in tests if not t.startswith(recorded) or area_of_corpus(t.rsplit("-", 1)[1][:-1]) in reaching]


# mutmut's exit codes (mutmut.stats.status_by_exit_code), the ones a finished run leaves
STATUS = {1: "killed", 3: "killed", 0: "survived", 5: "no tests", 33: "no tests", 34: "skipped",
          36: "timeout", 24: "timeout", -24: "timeout", 152: "timeout", 255: "timeout",
          -11: "segfault", -9: "segfault", None: "not checked"}


@attrs.frozen
class AreaScore:
    area: str
    counts: dict[str, int]

    @property
    def total(self) -> int:
        return sum(self.counts.values())

    @property
    def killed(self) -> int:
        # a mutant that makes the oracle hang or crash the interpreter is caught as well
        return sum(self.counts.get(s, 0) for s in ("killed", "timeout", "segfault"))

    @property
    def survived(self) -> int:
        return self.counts.get("survived", 0) + self.counts.get("no tests", 0)

    @property
    def equivalent(self) -> int:
        return sum(n for s, n in self.counts.items() if s.startswith("equivalent"))

    @property
    def score(self) -> float:
        """Killed, of the checked mutants that change an answer of Flink's."""
        judged = self.killed + self.survived
        return self.killed / judged if judged else 0.0

    @property
    def raw_score(self) -> float:
        """Killed, of every checked mutant."""
        judged = self.killed + self.survived + self.equivalent
        return self.killed / judged if judged else 0.0


def area_of(module: str) -> str:
    for area, names in AREA_OF_FILE.items():
        if module in names:
            return area
    raise KeyError(f"oracle/{module}.py belongs to no area in AREA_OF_FILE")


def verdicts(mutants: Path = MUTANTS) -> dict[str, tuple[str, str]]:
    """mutmut's verdict for every mutant of the last run: ``{mutant name: (oracle module, status)}``."""
    if not mutants.is_dir():
        raise FileNotFoundError(f"{mutants} does not exist: run with --run first")
    out: dict[str, tuple[str, str]] = {}
    for meta in sorted(mutants.glob("*.py.meta")):
        module = meta.name.removesuffix(".py.meta")
        for key, code in json.loads(meta.read_text())["exit_code_by_key"].items():
            out[key] = (module, STATUS.get(code, "suspicious"))
    return out


def scores(found: dict[str, tuple[str, str]]) -> list[AreaScore]:
    by_area: dict[str, Counter[str]] = {a: Counter() for a in AREA_OF_FILE}
    for module, status in found.values():
        by_area[area_of(module)][status] += 1
    return [AreaScore(a, dict(c)) for a, c in by_area.items() if c]


def sync_tests() -> None:
    """Copy the suite (pyproject's ``also_copy``) into ``mutants/`` again: the second pass runs the
    tests as they are now, beside the mutated oracle of the last mutmut run."""
    import shutil
    import tomllib

    config = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["mutmut"]
    for name in config["also_copy"]:
        src, dst = ROOT / name, ROOT / "mutants" / name
        if src.is_dir():
            shutil.copytree(src, dst, dirs_exist_ok=True, ignore=shutil.ignore_patterns("__pycache__"))
        else:
            shutil.copy2(src, dst)


def _record_limits(module: str) -> str:
    """FLINKSPEC_RECORDED_LIMIT for a mutant of ``module``: the protocol modules' tests are every
    area's, so each recorded corpus is cut to its first answers per version (the quick tests run
    whole); elsewhere only the coordinator's, the slowest, is cut."""
    if area_of(module) != "protocol and dispatch":
        return f"checkpoint.coordinator={SECOND_PASS_COORDINATOR_RECORDS}"
    corpora = sorted(t.rsplit("-", 1)[1].rstrip("]") for t in area_tests("protocol and dispatch") if "::" in t)
    return ",".join(f"{c}={SECOND_PASS_PROTOCOL_RECORDS}" for c in dict.fromkeys(corpora))


def _save_verdict(name: str, verdict: str, done: dict[str, str]) -> None:
    """Add one verdict to :data:`SECOND_PASS` as it is on disk now (another pass, of other mutants,
    may be writing it too: an exclusive lock, read, merge, replace)."""
    import fcntl

    with open(SECOND_PASS.with_suffix(".lock"), "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        saved = json.loads(SECOND_PASS.read_text()) if SECOND_PASS.exists() else {}
        merged_ = {**done, **saved, name: verdict}
        tmp = SECOND_PASS.with_suffix(".tmp")
        tmp.write_text(json.dumps(merged_, indent=1, sort_keys=True) + "\n")
        tmp.replace(SECOND_PASS)


def second_pass(names: list[str], modules: dict[str, str], workers: int, done: dict[str, str],
                progress: Callable[[int, int], None] | None = None) -> dict[str, str]:
    """Each mutant in a fresh interpreter, active from the first import, against its area's tests.
    Every verdict is saved as it comes (with ``done``, the earlier ones), so a stopped pass resumes."""
    import threading

    sync_tests()
    results: dict[str, str] = {}
    lock = threading.Lock()

    def one(name: str) -> None:
        env = _env(MUTANT_UNDER_TEST=name, PY_IGNORE_IMPORTMISMATCH="1",
                   FLINKSPEC_RECORDED_LIMIT=_record_limits(modules[name]))
        cmd = [sys.executable, "-m", "pytest", "-x", "-q", "-p", "no:cacheprovider", "--rootdir=.",
               *module_tests(modules[name])]
        try:
            proc = subprocess.run(cmd, cwd=ROOT / "mutants", env=env, capture_output=True,
                                  timeout=SECOND_PASS_TIMEOUT_S)
            # 3: pytest's internal error, here the plugin failing to import the mutated oracle (as mutmut counts it)
            results[name] = {0: "survived", 1: "killed", 3: "killed", 5: "no tests"}.get(proc.returncode, "suspicious")
        except subprocess.TimeoutExpired:
            results[name] = "timeout"
        with lock:
            _save_verdict(name, results[name], done)
        if progress:
            progress(len(results), len(names))

    with ThreadPoolExecutor(max_workers=workers) as pool:
        list(pool.map(one, names))
    return results


def merged(found: dict[str, tuple[str, str]], second: dict[str, str]) -> dict[str, tuple[str, str]]:
    """mutmut's verdicts, with the second pass's for the mutants it ran."""
    return {n: (m, second.get(n, s)) for n, (m, s) in found.items()}


def survivors(found: dict[str, tuple[str, str]]) -> list[str]:
    return sorted(n for n, (_, s) in found.items() if s in ("survived", "no tests"))


# ------------------------------------------------------------------------------------------------
# What a surviving mutant changes, and which survivors change no answer of Flink's

EQUIVALENT = ROOT / "docs" / "evidence" / "equivalent-mutants.json"
# exceptions whose text is the oracle's own (a BadRequest names a malformed field for the human who
# wrote the request; UnmodelledValue and OverflowError become BadRequests): the protocol pins their
# type and the field, never the words, so a mutant that only rewords them changes no Flink answer
REFUSALS = {"BadRequest", "UnmodelledValue", "OverflowError", "RuntimeError"}
# helpers that only build those texts
REFUSAL_TEXT_FUNCTIONS = {"_kind_name", "name_problem"}
# exceptions that only ever become the cause of another: StructuredOptionsSplitter's errors are the
# cause of "Could not parse value '<raw>' for key '<key>'." (CL-6), whose text alone Flink answers
CAUSE_ONLY_FUNCTIONS = {"_split_error"}
CAUSE_ONLY_CALL = "_split_error("


@attrs.frozen
class MutantDiff:
    name: str
    module: str
    function: str
    removed: tuple[str, ...]
    added: tuple[str, ...]
    first_line: int  # of the first changed line, within the function


@functools.cache
def _function_sources(module: str) -> dict[str, tuple[str, ast.FunctionDef | ast.AsyncFunctionDef]]:
    path = MUTANTS / f"{module}.py"
    text = path.read_text()
    lines = text.splitlines()
    out = {}
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and "__mutmut_" in node.name:
            out[node.name] = ("\n".join(lines[node.lineno - 1:node.end_lineno]), node)
    return out


def _module_and_local(name: str) -> tuple[str, str]:
    """A mutant's module and its function's name there: ``oracle.valve.x_f__mutmut_3`` is
    ``valve``'s, ``oracle.x_answer__mutmut_3`` the package's own (``__init__``)."""
    parts = name.split(".", 2)
    return ("__init__", parts[1]) if len(parts) == 2 else (parts[1], parts[2])


def _local_names(name: str) -> tuple[str, str]:
    """A mutant's function name in its mutated module (``x_func__mutmut_3``, ``xǁClassǁmethod__mutmut_3``)
    and that of the unmutated original beside it."""
    local = _module_and_local(name)[1]
    return local, local.rsplit("__mutmut_", 1)[0] + "__mutmut_orig"


def diffs(names: list[str]) -> dict[str, MutantDiff]:
    """The lines each named mutant removes from and adds to its function (from ``mutants/``)."""
    import difflib

    by_module: dict[str, list[str]] = {}
    for name in names:
        by_module.setdefault(_module_and_local(name)[0], []).append(name)
    out = {}
    for module, wanted in by_module.items():
        funcs = _function_sources(module)
        for name in wanted:
            local, orig_name = _local_names(name)
            if local not in funcs or orig_name not in funcs:
                continue
            orig = funcs[orig_name][0].splitlines()[1:]
            mutated = funcs[local][0].splitlines()[1:]
            removed, added, first = [], [], -1
            for op, i1, i2, j1, j2 in difflib.SequenceMatcher(None, orig, mutated, autojunk=False).get_opcodes():
                if op != "equal":
                    first = i1 + 1 if first < 0 else first
                    removed += orig[i1:i2]
                    added += mutated[j1:j2]
            function = orig_name.removesuffix("__mutmut_orig").removeprefix("x_").replace("xǁ", "").replace("ǁ", ".")
            out[name] = MutantDiff(name, module, function, tuple(removed), tuple(added), first)
    return out


def _changed_at(d: MutantDiff) -> tuple[str, str, int]:
    """The removed and added text between the common prefix and suffix of the changed lines (stripped,
    joined), and where in them the change starts."""
    r, a = "\n".join(x.strip() for x in d.removed), "\n".join(x.strip() for x in d.added)
    start = 0
    while start < min(len(r), len(a)) and r[start] == a[start]:
        start += 1
    end = 0
    while end < min(len(r), len(a)) - start and r[len(r) - 1 - end] == a[len(a) - 1 - end]:
        end += 1
    return r[start:len(r) - end], a[start:len(a) - end], start


def _raised_in(d: MutantDiff) -> str | None:
    """The name of the exception the changed line's ``raise`` statement constructs, if any."""
    if not (MUTANTS / f"{d.module}.py").exists():
        return None
    found = _function_sources(d.module).get(_local_names(d.name)[1])
    if found is None:
        return None
    orig = found[1]
    line = orig.lineno + d.first_line
    for node in ast.walk(orig):
        if isinstance(node, ast.Raise) and node.lineno <= line <= (node.end_lineno or node.lineno):
            call = node.exc
            if isinstance(call, ast.Call) and isinstance(call.func, ast.Name):
                return call.func.id
    return None


def _text_only(removed: str, added: str, whole_removed: str, whole_added: str) -> bool:
    """A change inside a string literal alone: XX around it, its case, or None for the literal."""
    if whole_added.replace("XX", "") == whole_removed:
        return True
    if removed and added and removed.lower() == added.lower():
        return True
    return added == "None" and removed[:1] in ("'", '"', "f")


def classify(d: MutantDiff) -> str | None:
    """Why a surviving mutant changes no answer of Flink's (a category), or None: a gap of the suite."""
    removed, added, at = _changed_at(d)
    whole_r, whole_a = "\n".join(d.removed), "\n".join(d.added)
    stripped = "\n".join(x.strip() for x in d.removed)
    in_path = any(m.start() <= at and at + len(removed) <= m.end() for m in re.finditer(r'"input[^"]*"', stripped))
    if removed in ("exc", ", exc", "IllegalArgumentException(cause)", "cause") and added in ("None", ""):
        return "exception cause"  # the protocol carries the thrown exception's type and message only
    if whole_r.strip().startswith("cause = ") or d.function in CAUSE_ONLY_FUNCTIONS:
        return "exception cause"
    call = stripped.find(CAUSE_ONLY_CALL)
    if 0 <= call < at and stripped.endswith(")") and at + len(removed) < len(stripped):
        return "exception cause"  # an argument of the cause-only exception
    # the text of a refusal, or the field path (`where`: "input", "input.config") its message names
    refusal = d.function in REFUSAL_TEXT_FUNCTIONS or in_path or _raised_in(d) in REFUSALS
    if refusal and _text_only(removed, added, whole_r, whole_a):
        return "refusal text"
    return None


def equivalents() -> dict[str, str]:
    """Survivors argued one by one to change no answer: ``{mutant name: why}`` (docs/evidence)."""
    return json.loads(EQUIVALENT.read_text()) if EQUIVALENT.exists() else {}


def markdown(rows: list[AreaScore]) -> str:
    lines = ["| area | mutants | not checked | killed | timeout | survived, change no Flink answer | survived "
             "| killed of the checked | **killed of those that change an answer** |",
             "|---|---:|---:|---:|---:|---:|---:|---:|---:|"]
    total = AreaScore("all", dict(sum((Counter(r.counts) for r in rows), Counter())))
    for r in [*rows, total]:
        c = r.counts
        lines.append(f"| {r.area} | {r.total:,} | {c.get('not checked', 0):,} | {c.get('killed', 0):,} | "
                     f"{c.get('timeout', 0)} | {r.equivalent} | {r.survived} | {100 * r.raw_score:.1f}% | "
                     f"**{100 * r.score:.1f}%** |")
    return "\n".join(lines)


def with_equivalents(found: dict[str, tuple[str, str]], argued: bool = True) -> dict[str, tuple[str, str]]:
    """The survivors that change no answer of Flink's marked ``equivalent: <why>``: by their diff
    (:func:`classify`) or argued group by group (:data:`EQUIVALENT`; not with ``argued=False``)."""
    argued_ones = equivalents() if argued else {}
    ds = diffs(survivors(found))
    out = dict(found)
    for name, d in ds.items():
        why = argued_ones.get(name) or classify(d)
        if why:
            out[name] = (found[name][0], f"equivalent: {why}")
    return out


def survivor_listing(found: dict[str, tuple[str, str]]) -> str:
    """Every survivor with its diff, grouped by function; the equivalent ones with the reason."""
    names = sorted(n for n, (_, s) in found.items() if s in ("survived", "no tests") or s.startswith("equivalent"))
    ds = diffs(names)
    groups: dict[str, list[str]] = {}
    for name in names:
        d = ds.get(name)
        if d is None:
            continue
        why = found[name][1].removeprefix("equivalent: ") if found[name][1].startswith("equivalent") else "GAP"
        minus = " | ".join(f"-{x.rstrip()}" for x in d.removed)
        plus = " | ".join(f"+{x.rstrip()}" for x in d.added)
        groups.setdefault(f"oracle/{d.module}.py {d.function}", []).append(
            f"  {name.rsplit('_', 1)[1]} [{why}]: {minus} || {plus}"[:400])
    out = ["Surviving mutants of oracle/ (python -m flinkspec.tools.mutation_score --survivors FILE), grouped by "
           "function; each line: mutant number, [why it changes no answer of Flink's, or GAP: a part of "
           "the rules the suite does not reach], the lines it removes (-) and adds (+).", ""]
    for group in sorted(groups):
        out += [f"## {group} ({len(groups[group])})", *groups[group], ""]
    return "\n".join(out)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m flinkspec.tools.mutation_score", description=__doc__.splitlines()[0])
    p.add_argument("--run", action="store_true", help="run mutmut first (minutes to hours)")
    p.add_argument("--max-children", type=int, default=2, help="mutmut workers")
    p.add_argument("--second-pass", action="store_true",
                   help="(with or without --run) re-run mutmut's survivors in fresh interpreters")
    p.add_argument("--sample", type=int, metavar="N",
                   help="with --second-pass: also run a random sample (seed 2026) of N of the mutants mutmut has "
                        "not checked, in fresh interpreters against their area's tests")
    p.add_argument("--sample-area", action="append", choices=list(AREA_OF_FILE), help="with --sample: from this area")
    p.add_argument("--json", help="write the scores and the survivors' names to this file")
    p.add_argument("--survivors", help="write every survivor's diff, and why it survives, to this file")
    args = p.parse_args(argv)
    seconds: dict[str, float] = {}
    if args.run:
        started = time.monotonic()
        ran = subprocess.run([sys.executable, "-m", "mutmut", "run", "--max-children", str(args.max_children)],
                              cwd=ROOT, env=_env(), check=False)
        seconds["mutmut"] = round(time.monotonic() - started, 1)
        if ran.returncode not in (0, 1):
            print(f"mutmut run exited with {ran.returncode}", file=sys.stderr)
            return 2
    try:
        found = verdicts()
    except FileNotFoundError as exc:
        print(exc, file=sys.stderr)
        return 2
    print("mutmut alone:\n" + markdown(scores(found)) + "\n")
    if args.run or args.second_pass:
        started = time.monotonic()
        if args.run:  # mutmut's new mutants: the last pass's verdicts are of others
            SECOND_PASS.unlink(missing_ok=True)
        done = json.loads(SECOND_PASS.read_text()) if SECOND_PASS.exists() else {}
        order = {m: i for i, m in enumerate(SECOND_PASS_MODULES)}
        if args.sample:
            import random

            unchecked = sorted(n for n, (m, st) in found.items() if st == "not checked" and n not in done
                               and area_of(m) in (args.sample_area or AREA_OF_FILE))
            names = random.Random(2026).sample(unchecked, min(args.sample, len(unchecked)))
        else:
            names = sorted((n for n in survivors(found) if found[n][0] in order and n not in done),
                           key=lambda n: (order[found[n][0]], n))
        second_pass(names, {n: m for n, (m, _) in found.items()}, args.max_children, done,
                    lambda i, n: print(f"\rsecond pass: {i}/{n}", end="", file=sys.stderr, flush=True))
        seconds["second pass"] = round(time.monotonic() - started, 1)
        print(file=sys.stderr)
    second = json.loads(SECOND_PASS.read_text()) if SECOND_PASS.exists() else {}
    found = with_equivalents(merged(found, second))
    rows = scores(found)
    print(f"after the second pass ({len(second)} mutants run again):\n" + markdown(rows))
    for what, secs in seconds.items():
        print(f"{what}: {secs} s")
    if args.json:
        Path(args.json).write_text(json.dumps({
            "seconds": seconds, "areas": {r.area: {**r.counts, "score": round(r.score, 4),
                                                   "score_of_all_checked": round(r.raw_score, 4)} for r in rows},
            "survivors": survivors(found),
            "equivalent": {n: s.removeprefix("equivalent: ") for n, (_, s) in sorted(found.items())
                           if s.startswith("equivalent")}}, indent=1) + "\n")
    if args.survivors:
        Path(args.survivors).write_text(survivor_listing(found) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
