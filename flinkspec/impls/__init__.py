"""Implementations under test, all speaking docs/protocol/v1.md.

``--impl`` takes:

- ``oracle``: flinkspec's own reference, in process;
- ``flink`` / ``flink:X.Y[.Z]``: real Flink through the JVM bridge (one bridge per version; plain
  ``flink`` routes each request to the bridge of the version it names);
- ``flink:PATH/TO/flink-dist.jar``: a fork's (a vendor's, a patched) jar, its Flink base release read
  from the manifest (else the version each request names, i.e. ``--flink``); the bridge is built
  against that jar and nothing is downloaded;
- ``cmd:COMMAND``: any program speaking JSON lines on stdin/stdout;
- ``python:MODULE:CALLABLE``: an in-process ``answer(request) -> response`` callable;
- ``mutant:NAME``: a built-in, deliberately faulty implementation (``flinkspec mutants`` lists them).

The suite talks to every implementation through :class:`Implementation`: ``answer_many`` pipelines
a batch of requests; a crash, a hang past the per-request timeout, or an answer that is not a
protocol response raises :class:`ImplementationBroken` naming the cause.
"""

from __future__ import annotations

import importlib
import json
import os
import re
import select
import shlex
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from flinkspec.impls.errors import ImplementationBroken as ImplementationBroken
from flinkspec.impls.errors import UsageError as UsageError
from oracle.protocol import Verdict
from properties.under_test import Implementation as Implementation
from properties.under_test import Request as Request
from properties.under_test import Response as Response
from properties.under_test import answer_one as answer_one

KNOWN_ERROR_TYPES: tuple[Verdict, ...] = ("InvalidConfiguration", "BadRequest")  # the error types that are a verdict
DEFAULT_TIMEOUT_S = 30.0
MAX_DEPTH = 64  # arrays and objects nested in an answer: a protocol answer has fewer than 10, and the
# judge, the reports (attrs.asdict, json.dumps) and Hypothesis recurse through what is deeper
EXIT_GRACE_S = 2.0  # how long a process whose stdout ended may take to exit before it counts as still running


def validate_response(name: str, request: Mapping[str, Any], resp: object) -> Response:
    """Check the envelope of one answer; garbage is ImplementationBroken, never a silent pass."""
    rid = request.get("id")
    if not isinstance(resp, dict):
        raise ImplementationBroken(f"{name} answered request {rid} with a {type(resp).__name__}, not an object",
                                   request)
    if resp.get("id") != rid:
        raise ImplementationBroken(
            f"{name} answered request {rid} with id {resp.get('id')!r} (answers must come in request order)",
            request)
    has_out, has_err = "output" in resp, "error" in resp
    if has_out == has_err:
        raise ImplementationBroken(
            f"{name} answered request {rid} with {'both' if has_out else 'neither'} of output/error", request)
    if has_err:
        err = resp["error"]
        if not isinstance(err, dict) or err.get("type") not in KNOWN_ERROR_TYPES:
            raise ImplementationBroken(f"{name} failed on request {rid}: {json.dumps(err)[:500]}", request)
    return resp


def _excerpt(data: bytes, limit: int = 200) -> str:
    """The start of a line as the implementation wrote it (bytes shown as Python writes them)."""
    text = repr(data[:limit])
    return text + (f" ... ({len(data)} bytes)" if len(data) > limit else "")


_BRACKETS = bytes.maketrans(b"{}", b"[]")  # an object's braces count as an array's brackets
_NOT_BRACKETS = bytes(b for b in range(256) if b not in b"[]{}")


def _maybe_deeper(line: bytes, limit: int) -> bool:
    """False when the brackets of ``line`` surely nest at most ``limit`` deep (fast: the innermost
    pairs are removed ``limit`` times); True when they may nest deeper (or a string holds brackets)."""
    brackets = line.translate(_BRACKETS, _NOT_BRACKETS)
    for _ in range(limit):
        if not brackets:
            return False
        brackets = brackets.replace(b"[]", b"")
    return bool(brackets)


def _deeper(value: object, limit: int) -> bool:
    """Whether arrays and objects nest more than ``limit`` deep in ``value`` (without recursion)."""
    stack: list[tuple[object, int]] = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        children = item.values() if isinstance(item, dict) else item if isinstance(item, list) else None
        if children is None:
            continue
        if depth > limit:
            return True
        stack.extend((child, depth + 1) for child in children if isinstance(child, (dict, list)))
    return False


def _no_constant(name: str) -> object:
    raise ValueError(f"{name} is not a JSON value")


class InProcess:
    """A Python callable ``answer(request) -> response``; its exceptions are breakage, not verdicts."""

    def __init__(self, name: str, fn: Callable[[Request], Response]) -> None:
        self.name = name
        self._fn = fn

    def answer_many(self, requests: Sequence[Request]) -> list[Response]:
        out = []
        for req in requests:
            try:
                try:
                    resp = self._fn(dict(req))
                except Exception as exc:  # the implementation under test crashed: report, never hide
                    raise ImplementationBroken(
                        f"{self.name} raised {type(exc).__name__} on request {req.get('id')}: {exc}", req) from exc
                out.append(validate_response(self.name, req, resp))
            except ImplementationBroken as exc:
                exc.answered = out
                raise
        return out

    def close(self) -> None:
        pass


class Subprocess:
    """A JSON-lines process; requests are pipelined by a writer thread while answers are read."""

    def __init__(self, name: str, argv: Sequence[str], timeout: float = DEFAULT_TIMEOUT_S,
                 env: Mapping[str, str] | None = None) -> None:
        self.name = name
        self.argv = list(argv)
        self.timeout = timeout
        self._env = dict(env) if env is not None else None
        self._proc: subprocess.Popen[bytes] | None = None
        self._stderr = tempfile.TemporaryFile()  # noqa: SIM115 (lives as long as the implementation)
        self._buf = b""

    def _start(self) -> subprocess.Popen[bytes]:
        if self._proc is None or self._proc.poll() is not None:
            env = dict(os.environ if self._env is None else self._env)
            try:
                self._proc = subprocess.Popen(
                    self.argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self._stderr, env=env
                )
            except OSError as exc:
                raise ImplementationBroken(f"{self.name}: cannot start {shlex.join(self.argv)}: {exc}") from exc
            self._buf = b""
        return self._proc

    def stderr_tail(self, lines: int = 8) -> str:
        self._stderr.seek(0, os.SEEK_END)
        size = self._stderr.tell()
        self._stderr.seek(max(0, size - 4000))
        tail = self._stderr.read().decode("utf-8", "replace").strip().splitlines()[-lines:]
        return "\n".join(tail)

    def answer_many(self, requests: Sequence[Request]) -> list[Response]:
        proc = self._start()
        assert proc.stdin is not None and proc.stdout is not None
        payload = b"".join(json.dumps(r, separators=(",", ":")).encode() + b"\n" for r in requests)
        write_error: list[BaseException] = []

        def writer() -> None:
            try:
                assert proc.stdin is not None
                proc.stdin.write(payload)
                proc.stdin.flush()
            except (BrokenPipeError, OSError) as exc:
                write_error.append(exc)

        thread = threading.Thread(target=writer, daemon=True)
        thread.start()
        out: list[Response] = []
        try:
            for req in requests:
                out.append(validate_response(self.name, req, self._decode(self._readline(proc, req), req)))
        except ImplementationBroken as exc:
            self.kill()
            exc.answered = out
            raise
        thread.join()
        return out

    def _decode(self, line: bytes, req: Request) -> object:
        """One answer line as JSON, strictly: UTF-8 (docs/protocol/v1.md), no NaN or Infinity, no
        integer Python cannot read, no nesting deeper than its decoder goes; anything else names
        what was wrong with the line."""
        rid = req.get("id")
        try:
            text = line.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise ImplementationBroken(
                f"{self.name} answered request {rid} with a line that is not UTF-8 (byte 0x{line[exc.start]:02x} "
                f"at offset {exc.start}): {_excerpt(line)}", req) from None
        try:
            value = json.loads(text, parse_constant=_no_constant)
        except ValueError as exc:
            digits = re.search(r"integer string conversion: value has (\d+) digits", str(exc))
            why = ("that is not JSON (" + (f"an integer of {int(digits.group(1)):,} digits, more than Python reads"
                                            if digits else str(exc)) + ")")
        except RecursionError:  # deeper than Python's decoder goes (about 1,000 levels)
            why = f"nested deeper than {MAX_DEPTH} levels"
        else:
            if not _maybe_deeper(line, MAX_DEPTH) or not _deeper(value, MAX_DEPTH):
                return value
            why = f"nested deeper than {MAX_DEPTH} levels"
        raise ImplementationBroken(f"{self.name} answered request {rid} with a line {why}: {_excerpt(line)}", req)

    def _readline(self, proc: subprocess.Popen[bytes], req: Request) -> bytes:
        assert proc.stdout is not None
        fd = proc.stdout.fileno()
        deadline = time.monotonic() + self.timeout
        while b"\n" not in self._buf:
            left = deadline - time.monotonic()
            if left <= 0:
                raise ImplementationBroken(
                    f"{self.name} gave no answer to request {req.get('id')} within {self.timeout:g} s (hung?)"
                    + self._unfinished(), req)
            ready, _, _ = select.select([fd], [], [], left)
            if not ready:
                continue
            chunk = os.read(fd, 1 << 16)
            if not chunk:
                raise self._closed(proc, req)
            self._buf += chunk
        line, _, self._buf = self._buf.partition(b"\n")
        return line

    def _unfinished(self) -> str:
        """What the implementation wrote of an answer it did not finish, for the message."""
        return f"; it wrote {len(self._buf)} byte(s) of an unfinished line: {_excerpt(self._buf)}" if self._buf else ""

    def _closed(self, proc: subprocess.Popen[bytes], req: Request) -> ImplementationBroken:
        """Its stdout ended: it exited (say with which code and what it said on stderr), or it closed
        stdout and runs on (it is then stopped: it can never answer)."""
        try:
            rc = proc.wait(timeout=EXIT_GRACE_S)
        except subprocess.TimeoutExpired:
            return ImplementationBroken(
                f"{self.name} closed its standard output before answering request {req.get('id')} and kept running "
                f"(stopped after {EXIT_GRACE_S:g} s)" + self._unfinished(), req)
        tail = self.stderr_tail()
        return ImplementationBroken(
            f"{self.name} exited with code {rc} before answering request {req.get('id')}" + self._unfinished()
            + (f"; its stderr ends with:\n{tail}" if tail else ""), req)

    def kill(self) -> None:
        if self._proc is not None and self._proc.poll() is None:
            self._proc.kill()
            self._proc.wait()
        self._proc = None

    def close(self) -> None:
        if self._proc is not None and self._proc.poll() is None:
            assert self._proc.stdin is not None
            try:
                self._proc.stdin.close()
                self._proc.wait(timeout=10)
            except (subprocess.TimeoutExpired, OSError):
                self._proc.kill()
                self._proc.wait()
        self._proc = None


class PerVersion:
    """Routes each request to an implementation for the Flink version it names (``--impl flink``)."""

    def __init__(self, name: str, make: Callable[[str], Implementation], base: str | None = None) -> None:
        self.name = name
        self.flink_base = base  # the release X.Y a fork's jar derives from (None: from the name)
        self._make = make
        self._impls: dict[str, Implementation] = {}

    def for_version(self, version: str) -> Implementation:
        if version not in self._impls:
            self._impls[version] = self._make(version)
        return self._impls[version]

    def answer_many(self, requests: Sequence[Request]) -> list[Response]:
        from oracle.versions import LATEST

        out: list[Response | None] = [None] * len(requests)
        groups: dict[str, list[int]] = {}
        for i, req in enumerate(requests):
            groups.setdefault(str(req.get("flink", str(LATEST))), []).append(i)
        for version, idx in groups.items():
            try:
                answers = self.for_version(version).answer_many([requests[i] for i in idx])
            except ImplementationBroken as exc:
                for i, resp in zip(idx, exc.answered, strict=False):
                    out[i] = resp
                exc.answered = _prefix(out)
                raise
            for i, resp in zip(idx, answers, strict=True):
                out[i] = resp
        return [r for r in out if r is not None]

    def close(self) -> None:
        for impl in self._impls.values():
            impl.close()
        self._impls.clear()


def _prefix(answers: Sequence[Response | None]) -> list[Response]:
    """The answers before the first missing one."""
    out: list[Response] = []
    for resp in answers:
        if resp is None:
            break
        out.append(resp)
    return out


def _flink(version: str, timeout: float) -> Implementation:
    from flinkspec.impls.flinkjars import FlinkUnavailable, bridge_command, resolve_patch

    try:
        argv = bridge_command(version)
    except FlinkUnavailable as exc:
        raise ImplementationBroken(str(exc)) from exc
    env = {k: v for k, v in os.environ.items() if not k.startswith("FLINK_")}  # FLINK_TM_HEAP & co.
    return Subprocess(f"flink:{resolve_patch(version)}", argv, timeout=timeout, env=env)


def _fork(spec: str, jar: str, timeout: float) -> PerVersion:
    """``--impl flink:PATH``: the bridge compiled against the jar at PATH, never a download."""
    from pathlib import Path

    from flinkspec.impls.fingerprint import JarError, base_of, jar_info
    from flinkspec.impls.flinkjars import FlinkUnavailable, fork_bridge_command

    path = Path(jar)
    if not path.is_file():
        raise UsageError(f"--impl {spec}: {jar}: no such jar")
    try:
        base = jar_info(path).base
    except JarError as exc:  # not a readable jar
        raise UsageError(f"--impl {spec}: {exc}") from None

    def make(version: str) -> Implementation:
        try:
            argv = fork_bridge_command(path, base or str(base_of(version) or version))
        except FlinkUnavailable as exc:
            raise ImplementationBroken(str(exc)) from exc
        env = {k: v for k, v in os.environ.items() if not k.startswith("FLINK_")}
        return Subprocess(spec, argv, timeout=timeout, env=env)

    if base is None:  # the manifest names no release: one bridge per version the requests name
        return PerVersion(spec, make)
    return PerVersion(spec, lambda _ver: make(base), base=base)


def _is_jar(rest: str) -> bool:
    from flinkspec.impls.fingerprint import is_jar_spec

    return is_jar_spec(rest)


def search_here(*folders: str) -> None:
    """Let ``python:MODULE:CALLABLE`` find MODULE in the current directory (as ``python -m`` does, which
    the ``flinkspec`` and ``pytest`` scripts do not) and in ``folders``; after the installed packages,
    so that a file of the directory never hides one of them."""
    for folder in (os.getcwd(), *folders):
        if os.path.abspath(folder) not in {os.path.abspath(entry or os.curdir) for entry in sys.path}:
            sys.path.append(folder)


def _python(spec: str, name: str) -> Implementation:
    module, _, attr = spec.partition(":")
    if not module or not attr:
        raise UsageError(f"--impl {name}: expected python:MODULE:CALLABLE")
    search_here()
    try:
        fn = getattr(importlib.import_module(module), attr)
    except (ImportError, AttributeError) as exc:
        raise UsageError(f"--impl {name}: cannot load {module}:{attr}: {exc}") from exc
    if not callable(fn):
        raise UsageError(f"--impl {name}: {module}:{attr} is not callable")
    return InProcess(name, fn)


def check_spec(spec: str) -> None:
    """Reject an ``--impl`` value that cannot name an implementation, without starting anything."""
    kind, _, rest = spec.partition(":")
    if spec == "oracle" or (kind == "flink" and not rest) or (kind == "cmd" and rest.strip()):
        return
    if kind == "flink" and _is_jar(rest):
        from pathlib import Path

        if not Path(rest).is_file():
            raise UsageError(f"--impl {spec}: {rest}: no such jar")
        return
    if kind == "flink":
        from oracle.versions import UnknownVersion, parse_version

        try:
            parse_version(rest)
        except UnknownVersion as exc:
            raise UsageError(f"--impl {spec}: {exc}") from None
        return
    if kind == "mutant":
        from flinkspec.mutants import MUTANTS

        if rest not in MUTANTS:
            raise UsageError(f"--impl {spec}: unknown mutant; known: {', '.join(sorted(MUTANTS))}")
        return
    if kind == "python" and rest.count(":") == 1:
        return
    raise UsageError(
        f"--impl {spec!r} names no implementation; use oracle, flink, flink:X.Y[.Z], flink:PATH.jar, cmd:COMMAND, "
        "python:MODULE:CALLABLE or mutant:NAME"
    )


def open_impl(spec: str, timeout: float = DEFAULT_TIMEOUT_S) -> Implementation:
    """Open the implementation an ``--impl`` value names (see the module docstring)."""
    kind, _, rest = spec.partition(":")
    if spec == "oracle":
        import oracle

        return InProcess("oracle", oracle.answer)
    if kind == "flink":
        from oracle.versions import UnknownVersion, parse_version

        if not rest:
            return PerVersion("flink", lambda ver: _flink(ver, timeout))
        if _is_jar(rest):
            return _fork(spec, rest, timeout)
        try:
            parse_version(rest)
        except UnknownVersion as exc:
            raise UsageError(f"--impl {spec}: {exc}") from None
        return PerVersion(spec, lambda _ver: _flink(rest, timeout))
    if kind == "cmd" and rest.strip():
        return Subprocess(spec, shlex.split(rest), timeout=timeout)
    if kind == "python":
        return _python(rest, spec)
    if kind == "mutant":
        from flinkspec.mutants import MUTANTS

        if rest not in MUTANTS:
            raise UsageError(f"--impl {spec}: unknown mutant; known: {', '.join(sorted(MUTANTS))}")
        return InProcess(spec, MUTANTS[rest].answer)
    raise UsageError(
        f"--impl {spec!r} names no implementation; use oracle, flink, flink:X.Y[.Z], flink:PATH.jar, cmd:COMMAND, "
        "python:MODULE:CALLABLE or mutant:NAME"
    )


def spec_pinned_version(spec: str) -> str | None:
    """The Flink release an ``--impl`` value pins, without starting it (None: not pinned).

    ``flink:2.3.0`` -> ``2.3`` (its minor's newest patch), ``flink:1.15.1`` -> ``1.15.1``;
    ``flink:PATH.jar`` -> the base its manifest names (or None).
    """
    kind, _, rest = spec.partition(":")
    if kind != "flink" or not rest:
        return None
    if _is_jar(rest):
        from pathlib import Path

        from flinkspec.impls.fingerprint import JarError, jar_info

        try:
            return jar_info(Path(rest)).base
        except JarError:  # a missing or unreadable jar: opening it reports why
            return None
    return _release_name(rest)


def _release_name(text: str) -> str | None:
    """``"2.3.0"`` -> ``"2.3"`` (a minor's newest patch goes by the minor), ``"1.15.1"`` stays;
    None for a value that names no release (opening it reports why)."""
    from oracle.versions import UnknownVersion, parse_version

    try:
        return str(parse_version(text))
    except UnknownVersion:
        return None


def pinned_version(impl: Implementation) -> str | None:
    """The Flink release an implementation is pinned to (``flink:2.3.0`` -> ``2.3``, ``flink:1.15.1``
    -> ``1.15.1``), if any.

    A fork's jar (``flink:PATH``) is pinned to the base release its manifest names, if it names one.
    """
    name = impl.name
    base = getattr(impl, "flink_base", None)
    if base is not None:
        return str(base)
    if name.startswith("flink:") and _is_jar(name.split(":", 1)[1]):
        return None
    if name.startswith("flink:"):
        return _release_name(name.split(":", 1)[1])
    return None
