"""The class-loading area: where a user-code class loader resolves each class and resource."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from oracle import classloading
from oracle import classloading_config as clc
from oracle import classloading_lifecycle as cll
from properties.area import Area, Checked, ExtraCorpus, OptionDefault, OracleRules, checked
from properties.classloading import (
    invariants,
    lifecycle,
    lifecycle_mutants,
    lifecycle_strategies,
    mutants,
    strategies,
)
from properties.features import (
    AnswerFeature,
    Feature,
    Request,
    config_key_used,
    has_field,
    input_of,
    with_input,
    without_config_keys,
    without_field,
    without_output_field,
)

CL_BAD = "properties/classloading/test_bad_input.py::"
# what checks each rule of the oracle's class loading
_CHECKED: tuple[Checked, ...] = (
    checked("CL-1", "CLR-9"),
    checked("CL-2", "CLR-9"),
    checked("CL-3", "CLR-9"),
    checked("CL-4", "CLR-9"),
    checked("CL-5", "CLR-10", CL_BAD + "test_unknown_resolve_order_is_rejected_by_flink"),
    checked("CL-6", note="CLR-EQ compares the message only with --strict-messages (tests/test_real_flink.py sets it)"),
    checked("CL-7", "CLR-2", "CLR-3", "CLR-4", "CLR-8"),
    checked("CL-8", "CLR-5"),
    checked("CL-9", "CLR-3", "CLR-5", "CLR-6"),
    checked("CL-10", "CLR-7"),
    checked("CL-11", "CLR-7"),
    checked("CL-12", "CLR-7"),
    checked("CL-13", "CLR-11"),
    checked("CL-14", "CLR-12"),
)

PATTERNS_DEPRECATED = "classloader.parent-first-patterns"
KEYS = (clc.RESOLVE_ORDER.key, clc.ADDITIONAL_KEY, clc.DEFAULT_KEY, PATTERNS_DEPRECATED, clc.CHECK_LEAKED.key)
FIELDS: dict[str, Callable[[], Any]] = {
    "config": dict, "user_classes": list, "parent_classes": list, "lookups": list,
    "user_resources": list, "parent_resources": list, "resource_lookups": list,
}


def _is(key: str) -> Callable[[str], bool]:
    return lambda k: k == key


def _other_key(key: str) -> bool:
    return key not in KEYS


def _fields_missing(req: Request) -> bool:
    return any(name not in input_of(req) for name in FIELDS)


def _fill_fields(req: Request) -> Request:
    """Every optional field present: an absent list is ``[]``, an absent config ``{}`` (docs/protocol/v2.md)."""
    inp = input_of(req)
    return with_input(req, {**{name: empty() for name, empty in FIELDS.items()}, **inp})


def _jars_used(req: Request) -> bool:
    return any(name in input_of(req) for name in ("user_jars", "parent_jars"))


def _key(key: str, name: str, description: str) -> Feature:
    return Feature(f"{classloading.RESOLVE}.{name}", 2, classloading.RESOLVE, description, config_key_used(_is(key)),
                   without_config_keys(_is(key)))


RESOLVE = Area(
    size_bar=3,
    name=classloading.RESOLVE, prefix="CLR", rules=invariants.BOOK, page="v1.md#classloadingresolve",
    description="where FlinkUserCodeClassLoaders resolves each class and resource (child-first, parent-first)",
    requests=strategies.requests, size=strategies.name_count, corpus_key=strategies.corpus_key,
    # the readers of the class-loading options (CL-2 ... CL-6), their values fuzzed
    corpora=(ExtraCorpus(name="classloading.values", requests=strategies.value_requests,
                         corpus_key=strategies.value_corpus_key),),
    oracle={"classloading": OracleRules(rules=classloading.RULES,
                                        files=("oracle/classloading.py", "oracle/classloading_config.py"),
                                        checked=_CHECKED)},
    mutants=tuple(mutants.MUTANTS), bridge="ClassLoadingArea", config_spelling=True,
    changes=classloading.CHANGES[classloading.RESOLVE], strict_messages=True,
    defaults=(OptionDefault(option=clc.DEFAULT_KEY, table=clc.DEFAULT_PATTERNS, show=";".join),),
    features=(
        Feature(f"{classloading.RESOLVE}.optional-fields", 2, classloading.RESOLVE,
                "config and name lists left out, taken as empty", _fields_missing, _fill_fields),
        _key(clc.DEFAULT_KEY, "patterns-default", f"the config key {clc.DEFAULT_KEY}"),
        _key(PATTERNS_DEPRECATED, "patterns-deprecated-key", f"the deprecated config key {PATTERNS_DEPRECATED}"),
        _key(clc.CHECK_LEAKED.key, "check-leaked-classloader", f"the config key {clc.CHECK_LEAKED.key}"),
        Feature(f"{classloading.RESOLVE}.other-config-keys", 2, classloading.RESOLVE,
                "config keys other than the class-loading options, which Flink ignores",
                config_key_used(_other_key), without_config_keys(_other_key)),
        Feature(f"{classloading.RESOLVE}.jars", 2, classloading.RESOLVE,
                "real jars on the class path: user_jars, parent_jars", _jars_used),
        Feature(f"{classloading.RESOLVE}.resource-lookup-one", 3, classloading.RESOLVE,
                "getResource lookups: resource_lookup_one, answered in resource", has_field("resource_lookup_one"),
                without_field("resource_lookup_one"), unanswer=without_output_field("resource")),
    ),
)


# what checks each rule of the oracle's class-loader lifecycle
_LIFECYCLE_CHECKED: tuple[Checked, ...] = (
    checked("CLL-1", "CLC-2"),
    checked("CLL-2", "CLC-4"),
    checked("CLL-3", note="only CLC-EQ: no document says what Class.forName answers through a closed loader"),
    checked("CLL-4", "CLC-3", "CLC-5"),
    checked("CLL-5", "CLC-3"),
    checked("CLL-6", note="only CLC-EQ"),
    checked("CLL-7", "CLC-3"),
    checked("CLL-8", note="CLC-EQ compares the message only with --strict-messages"),
    checked("CLL-9", note="only CLC-EQ"),
    checked("CLL-10", note="CLC-EQ compares the message only with --strict-messages"),
    checked("CLL-11", "CLC-2", "CLC-3"),
    checked("CLL-12", "CLC-1"),
    checked("CLL-13", note="only CLC-EQ: no document says which of Flink's loaders are parallel capable"),
)


def _operation_count(req: Request) -> int:
    inp = input_of(req)
    return len(inp.get("operations", [])) + len(inp.get("faults", []))


LIFECYCLE = Area(
    name=cll.LIFECYCLE, prefix="CLC", rules=lifecycle.BOOK, page="classloading-lifecycle.md", protocol=4,
    description="a TaskManager's user-code class loader used, closed and used again, and the Throwables its "
    "class-loading exception handler receives (classloader.check-leaked-classloader, "
    "classloader.fail-on-metaspace-oom-error)",
    requests=lifecycle_strategies.requests, size=_operation_count,
    oracle={"classloading_lifecycle": OracleRules(rules=cll.RULES, files=("oracle/classloading_lifecycle.py",),
                                                  checked=_LIFECYCLE_CHECKED)},
    mutants=tuple(lifecycle_mutants.MUTANTS), bridge="LifecycleArea", changes=cll.CHANGES[cll.LIFECYCLE],
    strict_messages=True,
    answer_features=(AnswerFeature(f"{cll.LIFECYCLE}.parallel-capable", 4, cll.LIFECYCLE,
                                   "parallel_capable: whether the loader is registered as parallel capable",
                                   lambda out: isinstance(out, dict) and "parallel_capable" in out,
                                   without_output_field("parallel_capable")),),
)
