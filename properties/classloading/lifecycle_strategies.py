"""Requests for ``classloading.lifecycle``: a loader's content, planted faults and a sequence of operations
that reaches the corners of the class-loader lifecycle.

A request draws the content first (class names on and around the parent-first patterns, as for
``classloading.resolve``, placed in the user jar, the parent jar, both or neither), then the faults (every
Throwable type at both stages, messages on both sides of each release's Metaspace test, a fault on
``java.lang.Object`` that every user class trips over), then the operations: loads and ``Class.forName``
calls of those names, JDK and unknown names, resource lookups, and one or two ``close`` operations placed
anywhere, so that a name is asked for before and after the loader is closed. The leak check and
``classloader.fail-on-metaspace-oom-error`` are each on and off about half the time.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from hypothesis import strategies as st

from oracle import classloading_config as clc
from oracle.classloading import class_file, jdk_classes
from oracle.classloading_lifecycle import THROWABLES, Kind
from oracle.versions import FlinkVersion
from properties.classloading.strategies import _seed_names, configs
from properties.draws import booleans, integers, lists_of, sampled

AREA = "classloading.lifecycle"

# messages on both sides of ExceptionUtils.isMetaspaceOutOfMemoryError (startsWith "Metaspace" until 1.14,
# "metaspace" in any case from 1.15)
METASPACE_MESSAGES = (
    "Metaspace", "Metaspace", "metaspace", "METASPACE", "MetaSpace", "Metaspace: class loading",
    "Compressed class space", "Java heap space", "Direct buffer memory", "Out of Metaspace", "not metaspace at all",
    "Meta space", "Metaspac",
    "", "ⓜetaspace", "Metaspace\u0130", "Metaspace. The metaspace out-of-memory error has occurred.", None,
)
OTHER_MESSAGES = ("boom", "x/Y", "a.b.C", "", "ünïcode 日本", "with: colon", "line\nbreak", None)
ERROR_TYPES = tuple(t for t, k in THROWABLES.items() if k is Kind.ERROR)
THROWN_ON_READ = tuple(t for t, k in THROWABLES.items() if k is not Kind.CHECKED)
UNKNOWN = ("com.acme.Missing", "zz.Nowhere", "java.lang.Missing", "org.apache.flink.Missing")
RESOURCES = ("META-INF/x.txt", "com/acme/app.properties", "log4j2.xml", "java/lang/Object.class")


_OTHER_NAMES = st.lists(st.sampled_from([*UNKNOWN, "java.lang.String", "java.util.List",
                                         "org.apache.flink.api.common.JobID"]), max_size=2)


@lru_cache(maxsize=64)
def _thrown(pool: tuple[str, ...]) -> st.SearchStrategy[str]:
    return st.one_of(st.just("OutOfMemoryError"), st.sampled_from(pool))


@st.composite
def faults(draw: st.DrawFn, names: list[str], content: dict[str, list[str]],
           initializers: bool) -> list[dict[str, Any]]:
    """0-4 faults on names not already in their side's jar; initializer faults only if ``initializers``."""
    out: list[dict[str, Any]] = []
    taken: set[tuple[str, str]] = set()
    for _ in range(draw(integers(0, 4))):
        side = draw(sampled(("user", "user", "parent")))
        name = draw(sampled((*names, "com.acme.Boom", "com.acme.Init", "f.Oom")))
        files = {class_file(n) for n in content[f"{side}_classes"]} | set(content.get(f"{side}_resources", []))
        if (side, name) in taken or class_file(name) in files or (initializers and name.startswith("java.")):
            continue
        stage = draw(sampled(("define", "define", "initialize"))) if initializers else "define"
        pool = THROWN_ON_READ if stage == "define" else tuple(THROWABLES)
        throws = draw(_thrown(pool))
        messages = METASPACE_MESSAGES if throws == "OutOfMemoryError" else OTHER_MESSAGES
        if throws in ("OutOfMemoryError", "ExceptionInInitializerError") and draw(booleans()):
            messages = METASPACE_MESSAGES
        out.append({"class": name, "side": side, "stage": stage, "throws": throws,
                    "message": draw(sampled(messages))})
        taken.add((side, name))
    return out


@st.composite
def operations(draw: st.DrawFn, names: list[str], resources: list[str]) -> list[dict[str, Any]]:
    """Loads, Class.forName calls (initializing only non-JDK names) and resource lookups, with one or two
    ``close`` operations at any place (also first and last); a name is often asked for again after."""
    pool = [*names, *draw(_OTHER_NAMES)]

    def one(name: str) -> dict[str, Any]:
        kind = draw(sampled(("load", "load", "for_name", "for_name", "init")))
        if kind == "init" and name not in jdk_classes():
            return {"for_name": name, "initialize": True}
        return {"for_name": name, "initialize": False} if kind == "for_name" and draw(booleans()) else {
            "for_name" if kind != "load" else "load": name}

    before = [one(draw(sampled(tuple(pool)))) for _ in range(draw(integers(0, 6)))]
    res_pool = [*resources, *(class_file(n) for n in names[:3])]
    before += [{draw(sampled(("get_resource", "get_resources"))): draw(sampled(tuple(res_pool)))}
               for _ in range(draw(integers(0, 2)))]
    before = list(draw(st.permutations(before)))
    closes = draw(sampled((0, 1, 1, 1, 1, 2)))
    after = [draw(sampled([*before, *(one(n) for n in pool[:2])])) for _ in range(draw(integers(0, 5)))]
    again: bool = draw(booleans())
    if closes and after and again:  # a name asked for before the close, again after it
        after.append(draw(sampled(before)) if before else one(pool[0]))
    ops = list(before)
    if closes:
        ops.append({"close": True})
        ops += after
        if closes == 2:
            ops.insert(draw(integers(len(before) + 1, len(ops))), {"close": True})
    return ops or [one(pool[0])]


@st.composite
def inputs(draw: st.DrawFn, version: FlinkVersion) -> dict[str, Any]:
    initializers = draw(booleans())
    seeds = draw(st.lists(_seed_names(), min_size=1, max_size=4, unique=True))
    if initializers:
        seeds = [s for s in seeds if not s.startswith("java.")] or ["com.acme.Job"]
    elif draw(integers(0, 3)) == 0:
        seeds.append("java.lang.Object")  # in a jar, or a fault every user class trips over
    config = draw(configs(version, seeds))
    if "java.lang.Object" in seeds and draw(booleans()):  # java. not parent-first: a user class's superclass is
        # looked up child-first too, and a fault or SecurityException there leaves several loadClass calls
        config["classloader.parent-first-patterns.default"] = draw(sampled(("", "javax.;org.apache.flink.")))
    leak = draw(sampled((None, "true", "false", "false", "FALSE", "True", "nope")))
    config.pop("classloader.check-leaked-classloader", None)
    if leak is not None:
        config["classloader.check-leaked-classloader"] = leak
    fail_on = draw(sampled((None, "true", "false", "false", "FALSE", "TRUE", "no")))
    if fail_on is not None:
        config["classloader.fail-on-metaspace-oom-error"] = fail_on
    if _rejected(config, version) and draw(integers(0, 5)) > 0:  # most requests reach the operations
        for key in ("classloader.resolve-order", "classloader.check-leaked-classloader",
                    "classloader.fail-on-metaspace-oom-error", "classloader.parent-first-patterns.default",
                    "classloader.parent-first-patterns", "classloader.parent-first-patterns.additional"):
            if _rejected(config, version):
                config.pop(key, None)
    content: dict[str, list[str]] = {"user_classes": [], "parent_classes": []}
    for name in seeds:
        side = draw(sampled(("user", "parent", "both", "neither", "neither")))
        if side in ("user", "both") and not (initializers and name.startswith("java.")):
            content["user_classes"].append(name)
        if side in ("parent", "both"):
            content["parent_classes"].append(name)
    pool = [*RESOURCES, *(class_file(n) for n in seeds)]  # a seed's class file as a plain resource: ClassFormatError
    resources = [r for r in draw(lists_of(tuple(pool), max_size=2, unique=True))
                 if not (initializers and r.startswith("java/"))]
    for side in ("user", "parent"):
        files = {class_file(n) for n in content[f"{side}_classes"]}
        content[f"{side}_resources"] = [r for r in resources if r not in files and draw(booleans())]
    planted = draw(faults(seeds, content, initializers))
    names = list(dict.fromkeys([*seeds, *(f["class"] for f in planted)]))
    return {"config": config, **content, "faults": planted, "operations": draw(operations(names, resources))}


def _rejected(config: dict[str, str], version: FlinkVersion) -> bool:
    try:
        clc.settings(config, version, read_fail_on_metaspace=True)
    except (clc.JavaException, clc.UnmodelledValue):
        return True
    return False


def requests(version: FlinkVersion) -> st.SearchStrategy[dict[str, Any]]:
    """Protocol requests for ``classloading.lifecycle`` and ``version``."""
    return inputs(version).map(lambda i: {"area": AREA, "flink": str(version), "input": i})
