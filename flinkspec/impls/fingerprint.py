"""What a flink-dist jar is, and how much of it the suite's verdict covers.

flinkspec fingerprint JAR [--base X.Y] [--json] compares, per area, the Flink classes the
bridge drives with Apache's jar of the same release: a fork (a vendor's build, a patched jar)
whose driven classes are byte-identical to Apache's is "valid" only because Apache's classes are;
the suite says nothing about what the fork changed elsewhere.

The driven classes are derived from the bridge sources: every org.apache.flink... class an
*Area.java names (imports, qualified names, reflection strings), with its inner classes;
an area that delegates to another area's bridge class drives that one's classes too. What those
classes load in turn is not followed.

A report of --impl flink:PATH.jar describes the jar the same way (report.json's impl_jar; describe_impl()).
"""

from __future__ import annotations

import re
import zipfile
from pathlib import Path
from typing import Any

import attrs

from flinkspec.impls.errors import UsageError

BRIDGE_PKG = Path(__file__).parent / "bridge" / "src" / "flinkspec" / "bridge"
_QUALIFIED = re.compile(r"org\.apache\.flink(?:\.[a-z_][a-z0-9_]*)+(?:[.$][A-Z][A-Za-z0-9_]*)+")
_BRIDGE_AREA = re.compile(r"\b([A-Z][A-Za-z]*Area)\b")


class JarError(UsageError):
    """A jar that cannot be read, or compared with Apache's: the message says why."""


_SNAPSHOT = re.compile(r"^(\d+)\.(\d+)(?:\.(\d+))?(?:[-.].*)?$")


@attrs.frozen
class JarInfo:
    """A jar's identity as its manifest and Maven metadata tell it."""

    path: str
    sha256: str
    vendor: str | None
    version: str | None  # as the jar says it (2.2-SNAPSHOT, 2.3.0, ...)
    base: str | None  # the Flink release X.Y it derives from


def _manifest(zf: zipfile.ZipFile) -> dict[str, str]:
    try:
        text = zf.read("META-INF/MANIFEST.MF").decode("utf-8", "replace")
    except KeyError:
        return {}
    fields: dict[str, str] = {}
    key = None
    for line in text.splitlines():
        if line.startswith(" ") and key:
            fields[key] += line[1:]
        elif ":" in line:
            key, _, value = line.partition(":")
            fields[key.strip()] = value.strip()
    return fields


def _pom_version(zf: zipfile.ZipFile) -> str | None:
    """The version in the flink-dist pom.properties, if the jar carries one."""
    for name in zf.namelist():
        if name.startswith("META-INF/maven/") and name.endswith("/flink-dist/pom.properties"):
            for line in zf.read(name).decode("utf-8", "replace").splitlines():
                if line.startswith("version="):
                    return line.split("=", 1)[1].strip()
    return None


def base_of(version: str | None) -> str | None:
    """The Apache release a jar's version derives from, as ``--flink`` names it: ``1.15.1`` and
    ``1.20.1-cp3`` -> that patch release (when PyPI ships it), ``2.3.0`` -> ``2.3`` (a minor's newest
    patch goes by the minor), ``2.2-SNAPSHOT`` or an unknown patch -> the minor; junk -> None."""
    from oracle.versions import UnknownVersion, parse_version

    m = _SNAPSHOT.match(version or "")
    if m is None:
        return None
    line = f"{m.group(1)}.{m.group(2)}"
    try:
        return str(parse_version(f"{line}.{m.group(3)}" if m.group(3) else line))
    except UnknownVersion:
        return line


def jar_info(jar: Path) -> JarInfo:
    """Read the manifest (``Implementation-Version``/``-Vendor``, else the pom) of ``jar``."""
    from flinkspec.impls.flinkjars import jar_sha256

    if not jar.is_file():
        raise JarError(f"{jar}: no such jar")
    try:
        with zipfile.ZipFile(jar) as zf:
            mf = _manifest(zf)
            version = mf.get("Implementation-Version") or mf.get("Specification-Version") or _pom_version(zf)
    except (zipfile.BadZipFile, OSError) as exc:
        raise JarError(f"{jar}: not a readable jar ({exc})") from None
    vendor = mf.get("Implementation-Vendor-Id") or mf.get("Implementation-Vendor") or mf.get("Specification-Vendor")
    return JarInfo(str(jar.resolve()), jar_sha256(jar), vendor, version, base_of(version))


def is_jar_spec(rest: str) -> bool:
    """Whether the part after ``flink:`` names a jar (an existing file, or a path ending in .jar)."""
    return rest.endswith(".jar") or ("/" in rest and Path(rest).is_file()) or Path(rest).is_file()


def describe_impl(spec: str) -> dict[str, Any] | None:
    """report.json's description of ``--impl flink:PATH`` (path, sha256, vendor, version, base).

    None for any other ``--impl`` (Apache releases are named by their version already).
    """
    kind, _, rest = spec.partition(":")
    if kind != "flink" or not rest or not is_jar_spec(rest):
        return None
    try:
        info = jar_info(Path(rest))
    except JarError as exc:
        return {"path": rest, "error": str(exc)}
    described = attrs.asdict(info)
    try:  # what a 'valid' covers: which driven classes are Apache's own
        found = fingerprint(Path(rest), None, info)
        described["fingerprint"] = {
            "apache_release": found["apache_release"], "covers": found["covers"],
            "by_area": [{"areas": a["areas"], "classes": len(a["classes"]), "changed": a["changed"]}
                        for a in found["by_area"]]}
    except JarError as exc:
        described["fingerprint_error"] = str(exc)
    return described


def _top_level(name: str) -> str:
    """``org.apache.flink.a.Outer.Inner`` / ``...Outer$Inner`` -> the jar entry stem ``org/apache/flink/a/Outer``."""
    parts = re.split(r"[.$]", name)
    for i, part in enumerate(parts):
        if part[:1].isupper():
            return "/".join(parts[: i + 1])
    return "/".join(parts)


def driven_classes() -> dict[str, list[str]]:
    """Per bridge area class (``MemoryArea``...), the top-level Flink classes it names, as entry stems."""
    direct: dict[str, set[str]] = {}
    uses: dict[str, set[str]] = {}
    for src in sorted(BRIDGE_PKG.glob("*Area.java")):
        if src.stem == "Area":
            continue
        text = src.read_text(encoding="utf-8")
        direct[src.stem] = {_top_level(m) for m in _QUALIFIED.findall(text)}
        uses[src.stem] = set(_BRIDGE_AREA.findall(text)) - {src.stem}
    out = {}
    for area, names in direct.items():
        for other in uses[area]:
            names = names | direct.get(other, set())
        out[area] = sorted(names)
    return out


def areas_by_bridge_class() -> dict[str, list[str]]:
    """Bridge area class -> the protocol areas it answers (each area's declaration names its class)."""
    from properties.areas import AREAS

    out: dict[str, list[str]] = {}
    for name, area in AREAS.items():
        if area.bridge:
            out.setdefault(area.bridge, []).append(name)
    return out


def _entries(zf: zipfile.ZipFile, stem: str) -> list[str]:
    return [n for n in zf.namelist() if n == stem + ".class" or (n.startswith(stem + "$") and n.endswith(".class"))]


def compare_class(fork: zipfile.ZipFile, apache: zipfile.ZipFile, stem: str) -> dict[str, Any]:
    """One driven class and its inner classes: identical, or which entries differ/are missing/added."""
    mine, theirs = set(_entries(fork, stem)), set(_entries(apache, stem))
    changed = sorted(n for n in mine & theirs if fork.read(n) != apache.read(n))
    status = "identical"
    if not mine and not theirs:
        status = "in neither jar"  # a name the bridge tries by reflection for other releases
    elif not theirs:
        status = "not in Apache's jar"
    elif not mine:
        status = "missing"
    elif changed or mine != theirs:
        status = "changed"
    return {"class": stem.replace("/", "."), "status": status, "entries": len(mine),
            "changed": [n[:-6].replace("/", ".") for n in changed],
            "only_in_fork": sorted(n[:-6].replace("/", ".") for n in mine - theirs),
            "only_in_apache": sorted(n[:-6].replace("/", ".") for n in theirs - mine)}


def fingerprint(jar: Path, base: str | None, info: JarInfo | None = None) -> dict[str, Any]:
    """The comparison of ``jar``'s driven classes with Apache's flink-dist of ``base`` (or the manifest's);
    ``info`` is the jar's :func:`jar_info` when the caller has read it already (it hashes the whole jar)."""
    from flinkspec.impls.flinkjars import FlinkUnavailable, dist_jar, resolve_patch
    from oracle.versions import UnknownVersion

    info = info or jar_info(jar)
    base = base or info.base
    if base is None:
        raise JarError(f"{jar}: its manifest names no Flink version ({info.version!r}); give --base X.Y")
    try:
        apache_path = dist_jar(base)
        release = resolve_patch(base)
    except UnknownVersion as exc:
        raise JarError(f"--base: {exc}") from None
    except FlinkUnavailable as exc:
        raise JarError(f"Apache Flink {base} is not available to compare with: {exc}") from None
    areas = []
    with zipfile.ZipFile(jar) as fork, zipfile.ZipFile(apache_path) as apache:
        served = areas_by_bridge_class()
        for cls, stems in driven_classes().items():
            classes = [c for c in (compare_class(fork, apache, s) for s in stems) if c["status"] != "in neither jar"]
            areas.append({"bridge": cls, "areas": served.get(cls, []), "classes": classes,
                          "changed": [c["class"] for c in classes if c["status"] != "identical"]})
    return {"jar": attrs.asdict(info), "base": base, "apache_release": release, "apache_jar": str(apache_path),
            "covers": "the org.apache.flink classes each bridge area names directly (imports, qualified "
                      "names, reflection strings) and their inner classes; what those load is not compared",
            "by_area": areas}


def render(result: dict[str, Any]) -> list[str]:
    """The human-readable fingerprint: per area, how many driven classes match, naming the changed ones."""
    info = result["jar"]
    lines = [f"{info['path']}", f"  sha256 {info['sha256']}",
             f"  vendor {info['vendor'] or '?'}, version {info['version'] or '?'}, "
             f"compared with Apache Flink {result['apache_release']}",
             f"  covers: {result['covers']}", ""]
    total_changed = 0
    for area in result["by_area"]:
        names = ", ".join(area["areas"]) or "(no protocol area)"
        n = len(area["classes"])
        if area["changed"]:
            total_changed += len(area["changed"])
            lines.append(f"{names}: {len(area['changed'])} of {n} driven classes differ from Apache's")
            for c in area["classes"]:
                if c["status"] != "identical":
                    inner = [x for x in c["changed"] if x != c["class"]]
                    detail = ", ".join(inner + [f"{x} (only in this jar)" for x in c["only_in_fork"]]
                                       + [f"{x} (only in Apache's)" for x in c["only_in_apache"]])
                    lines.append(f"  {c['status']}: {c['class']}" + (f" [{detail}]" if detail else ""))
        else:
            lines.append(f"{names}: all {n} driven classes byte-identical to Apache's")
    lines += ["", "A 'valid' verdict covers the changed classes above; for identical ones it restates "
              "Apache's behaviour." if total_changed else
              "Every driven class is Apache's: a 'valid' verdict says nothing about what this build changed."]
    return lines
