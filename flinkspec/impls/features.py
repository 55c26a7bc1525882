"""What the suite can send beyond protocol version 1, feature by feature.

docs/protocol/v1.md is protocol version 1: an implementation written exactly to it must never be
failed for not knowing something added since. Every input feature added since (a field, an event
kind, a config key, a whole area) is registered here with the protocol version that added it,
the area whose requests carry it, a one-line description, a detector ``used(request)`` and, where
the feature can be taken out of a request that stays well-formed, ``strip(request)``. Version 2:
the extensions of docs/protocol/v2.md, docs/protocol/checkpoint-alignment.md and
docs/protocol/checkpoint-coordinator.md, which appeared together, with no published version in between.
Version 3 (:data:`CURRENT`, what the suite speaks): docs/protocol/v3.md (``getResource`` lookups).

A feature of version 1 (``config.spelling``: how a config value is written) is part of v1.md; it is
registered so that an implementation can declare it does not model it, and be treated for it as one
that does not speak it.

Answers can carry additions too (:data:`ANSWER_FEATURES`): Flink's answer to a version-1 request
may hold an entry that only version 2 defines (``was_pending``); the expected answer drops it for
an implementation that does not speak it, or, where it cannot be dropped, the case is not checked.

Detectors and strips never raise on a malformed request (they see the suite's own requests, but
also those of the bad-input tests and the reducer's candidates); strips never mutate: they return
a new request, sharing the parts they leave unchanged. See :meth:`flinkspec.impls.capabilities.Capabilities.fit`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import attrs

from oracle.alignment import ALIGNMENT as _ALIGNMENT
from oracle.classloading import RESOLVE
from oracle.coordinator import COORDINATOR
from oracle.memory import JOBMANAGER, TASKMANAGER
from oracle.recovery import RECOVERY as _RECOVERY
from oracle.watermark import TIMERS, VALVE
from properties.areas import AREAS

Request = dict[str, Any]
Output = dict[str, Any]

CURRENT = 3  # the protocol version the suite speaks
V1_AREAS = tuple(name for name, area in AREAS.items() if area.protocol == 1)  # the areas of docs/protocol/v1.md


ENVELOPE = "envelope"  # a feature of the request's envelope, which every area's requests carry
ALL_AREAS = tuple(AREAS)


@attrs.frozen
class Feature:
    """One input feature added since protocol 1. ``area`` is the area that defines it; ``also`` the
    further areas whose inputs can carry it (``checkpoint.recovery`` takes alignment inputs). A
    feature named like its area is a whole area. ``detect`` looks at the input of a request of one
    of those areas; ``strip`` is None where taking the feature out would leave a request about
    something else (the request is then not checked), and returns None for the requests it cannot
    take the feature out of (``config.spelling``: a value with no plain spelling of its meaning).

    A feature of ``version`` 1 is part of docs/protocol/v1.md: an implementation is sent it unless it
    declares the feature unsupported (:class:`flinkspec.impls.capabilities.Capabilities`).

    ``unanswer`` takes out of an answer what only a request using the feature asks for (``resource``
    for ``resource_lookup_one``): Flink's recorded answer to the request, fitted to the request as sent
    to an implementation that does not speak the feature."""

    name: str
    version: int
    area: str
    description: str
    detect: Callable[[Request], bool]
    strip: Callable[[Request], Request | None] | None = None
    also: tuple[str, ...] = ()
    unanswer: Callable[[Output], Output] | None = None

    def used(self, request: Request) -> bool:
        """Whether ``request`` uses the feature (never for a request of another area)."""
        return isinstance(request, Mapping) and request.get("area") in self.areas and self.detect(request)

    @property
    def areas(self) -> tuple[str, ...]:
        return ALL_AREAS if self.area == ENVELOPE else (self.area, *self.also)

    @property
    def whole_area(self) -> bool:
        return self.name == self.area

    def need(self) -> str:
        """Why a request using the feature is not sent to an implementation that does not speak it."""
        if self.version == 1:  # part of protocol 1: the implementation declared it unsupported
            return f"needs feature {self.name} ({self.description})"
        return f"needs protocol {self.version} feature {self.name} ({self.description})"


@attrs.frozen
class AnswerFeature:
    """An addition to the answers since protocol 1: ``shown(output)`` says whether an ``output``
    object holds it, ``drop(output)`` removes it (None: it cannot be removed, the case is not checked)."""

    name: str
    version: int
    area: str
    description: str
    shown: Callable[[Output], bool]
    drop: Callable[[Output], Output] | None = None

    def need(self) -> str:
        return f"needs protocol {self.version} feature {self.name} ({self.description})"


# ------------------------------------------------------------------------------------------------
# small readers and rewriters of a request; all tolerate a malformed one


def _input(req: Mapping[str, Any]) -> Mapping[str, Any]:
    inp = req.get("input") if isinstance(req, Mapping) else None
    return inp if isinstance(inp, Mapping) else {}


def _events(req: Mapping[str, Any]) -> list[Any]:
    events = _input(req).get("events")
    return events if isinstance(events, list) else []


def _config(req: Mapping[str, Any]) -> Mapping[str, Any]:
    config = _input(req).get("config")
    return config if isinstance(config, Mapping) else {}


def _area_is(name: str) -> Callable[[Request], bool]:
    return lambda req: isinstance(req, Mapping) and req.get("area") == name


def _with_input(req: Request, inp: Mapping[str, Any]) -> Request:
    return {**req, "input": dict(inp)}


def _without_field(name: str) -> Callable[[Request], Request]:
    """Strip: the input without field ``name``."""
    return lambda req: _with_input(req, {k: v for k, v in _input(req).items() if k != name})


def _has_field(name: str) -> Callable[[Request], bool]:
    return lambda req: name in _input(req)


def _event_field_used(name: str) -> Callable[[Request], bool]:
    return lambda req: any(isinstance(e, Mapping) and name in e for e in _events(req))


def _without_event_field(name: str) -> Callable[[Request], Request]:
    """Strip: every event without its field ``name`` (events keep their place)."""

    def strip(req: Request) -> Request:
        events = [{k: v for k, v in e.items() if k != name} if isinstance(e, Mapping) and name in e else e
                  for e in _events(req)]
        return _with_input(req, {**_input(req), "events": events})

    return strip


def _config_key_used(keys: Callable[[str], bool]) -> Callable[[Request], bool]:
    return lambda req: any(keys(k) for k in _config(req))


def _without_config_keys(keys: Callable[[str], bool]) -> Callable[[Request], Request]:
    """Strip: the config without the keys ``keys`` selects."""
    return lambda req: _with_input(req, {**_input(req), "config": {k: v for k, v in _config(req).items()
                                                                     if not keys(k)}})


# ------------------------------------------------------------------------------------------------
# watermark.valve, watermark.timers


def _subpartitions_used(req: Request) -> bool:
    return "subpartitions" in _input(req) or _event_field_used("subpartition")(req)


def _strip_subpartitions(req: Request) -> Request:
    stripped = _without_event_field("subpartition")(req)
    return _without_field("subpartitions")(stripped)


# ------------------------------------------------------------------------------------------------
# classloading.resolve

RESOLVE_ORDER = "classloader.resolve-order"
ADDITIONAL = "classloader.parent-first-patterns.additional"
PATTERNS_DEFAULT = "classloader.parent-first-patterns.default"
PATTERNS_DEPRECATED = "classloader.parent-first-patterns"
CHECK_LEAKED = "classloader.check-leaked-classloader"
V1_CLASSLOADING_KEYS = (RESOLVE_ORDER, ADDITIONAL)
CLASSLOADING_KEYS = (*V1_CLASSLOADING_KEYS, PATTERNS_DEFAULT, PATTERNS_DEPRECATED, CHECK_LEAKED)
CLASSLOADING_FIELDS: dict[str, Callable[[], Any]] = {
    "config": dict, "user_classes": list, "parent_classes": list, "lookups": list,
    "user_resources": list, "parent_resources": list, "resource_lookups": list,
}


def _is(key: str) -> Callable[[str], bool]:
    return lambda k: k == key


def _other_classloading_key(key: str) -> bool:
    return key not in CLASSLOADING_KEYS


def _classloading_fields_missing(req: Request) -> bool:
    return any(name not in _input(req) for name in CLASSLOADING_FIELDS)


def _fill_classloading_fields(req: Request) -> Request:
    """Every optional field present: an absent list is ``[]``, an absent config ``{}`` (docs/protocol/v2.md)."""
    inp = _input(req)
    return _with_input(req, {**{name: empty() for name, empty in CLASSLOADING_FIELDS.items()}, **inp})


def _jars_used(req: Request) -> bool:
    return any(name in _input(req) for name in ("user_jars", "parent_jars"))


def _without_output_field(name: str) -> Callable[[Output], Output]:
    return lambda out: {k: v for k, v in out.items() if k != name} if isinstance(out, Mapping) and name in out else out


# ------------------------------------------------------------------------------------------------
# checkpoint.coordinator

def _coordinator_defaults() -> dict[str, Any]:
    """The settings ``CheckpointCoordinatorConfiguration`` gets when the config leaves them out; the
    values of docs/protocol/v1.md's own example, in its order."""
    from oracle.coordinator import CONFIG_DEFAULTS

    return dict(CONFIG_DEFAULTS)


def _coordinator_defaults_used(req: Request) -> bool:
    inp = _input(req)
    config = inp.get("config")
    if "config" not in inp:
        return True
    return isinstance(config, Mapping) and any(k not in config for k in _coordinator_defaults())


def _fill_coordinator_defaults(req: Request) -> Request:
    inp = _input(req)
    config = inp.get("config", {})
    if not isinstance(config, Mapping):
        return req
    return _with_input(req, {**inp, "config": {**_coordinator_defaults(), **config}})


# ------------------------------------------------------------------------------------------------
# checkpoint.alignment (and checkpoint.recovery, which takes alignment inputs)


def _cancel_used(req: Request) -> bool:
    return any(isinstance(e, Mapping) and "cancel" in e for e in _events(req))


def _strip_cancel(req: Request) -> Request:
    """The events without the cancel markers; a recovery request's ``fail_after`` still cuts the
    sequence behind the same events."""
    inp = _input(req)
    events = _events(req)
    kept = [not (isinstance(e, Mapping) and "cancel" in e) for e in events]
    out: dict[str, Any] = {**inp, "events": [e for e, keep in zip(events, kept, strict=True) if keep]}
    fail_after = inp.get("fail_after")
    if type(fail_after) is int and 0 <= fail_after <= len(events):
        out["fail_after"] = sum(kept[:fail_after])
    return _with_input(req, out)


def _patch_release_named(req: Request) -> bool:
    """``flink`` names a patch release other than its minor's newest (``"1.15.1"``): version 1
    knows ``MAJOR.MINOR`` only, which means the newest patch."""
    from oracle.versions import UnknownVersion, parse_version

    flink = req.get("flink")
    if not isinstance(flink, str) or flink.count(".") != 2:
        return False
    try:
        return not parse_version(flink).is_newest_patch
    except UnknownVersion:
        return False


# ------------------------------------------------------------------------------------------------
# config.spelling (memory.*, classloading.resolve): how a config value is written


def _request_version(req: Request) -> Any:
    """The request's Flink version, or None for one the suite does not know (a BadRequest anyway)."""
    from oracle.versions import LATEST, UnknownVersion, parse_version

    flink = req.get("flink")
    if flink is None:
        return LATEST
    try:
        return parse_version(flink)
    except UnknownVersion:
        return None


def _spelling_used(req: Request) -> bool:
    """Some config value is not written plainly (:mod:`flinkspec.impls.spelling`)."""
    from flinkspec.impls import spelling

    version = _request_version(req)
    return version is not None and bool(spelling.odd_keys(_config(req), version))


def _respell(req: Request) -> Request | None:
    """Every config value written plainly, as Flink of the request's version reads it; None when one has
    no plain spelling with its meaning."""
    from flinkspec.impls import spelling

    version = _request_version(req)
    config = spelling.respelled(_config(req), version) if version is not None else None
    return None if config is None else _with_input(req, {**_input(req), "config": config})


# ------------------------------------------------------------------------------------------------
# the registry


FEATURES: tuple[Feature, ...] = (
    Feature("flink.patch-release", 2, ENVELOPE,
            "flink naming a patch release other than its minor's newest (1.15.1)", _patch_release_named),
    # every area added since protocol 1, a feature of its own
    *(Feature(area.name, area.protocol, area.name, area.description, _area_is(area.name))
      for area in AREAS.values() if area.protocol > 1),
    Feature("watermark.valve.subpartitions", 2, VALVE,
            "channels consuming several subpartitions, Flink 1.19+", _subpartitions_used, _strip_subpartitions),
    Feature("watermark.timers.namespace", 2, TIMERS,
            "timers registered and deleted in a namespace", _event_field_used("namespace"),
            _without_event_field("namespace")),
    Feature("classloading.resolve.optional-fields", 2, RESOLVE,
            "config and name lists left out, taken as empty", _classloading_fields_missing,
            _fill_classloading_fields),
    Feature("classloading.resolve.patterns-default", 2, RESOLVE,
            f"the config key {PATTERNS_DEFAULT}", _config_key_used(_is(PATTERNS_DEFAULT)),
            _without_config_keys(_is(PATTERNS_DEFAULT))),
    Feature("classloading.resolve.patterns-deprecated-key", 2, RESOLVE,
            f"the deprecated config key {PATTERNS_DEPRECATED}", _config_key_used(_is(PATTERNS_DEPRECATED)),
            _without_config_keys(_is(PATTERNS_DEPRECATED))),
    Feature("classloading.resolve.check-leaked-classloader", 2, RESOLVE,
            f"the config key {CHECK_LEAKED}", _config_key_used(_is(CHECK_LEAKED)),
            _without_config_keys(_is(CHECK_LEAKED))),
    Feature("classloading.resolve.other-config-keys", 2, RESOLVE,
            "config keys other than the class-loading options, which Flink ignores",
            _config_key_used(_other_classloading_key), _without_config_keys(_other_classloading_key)),
    Feature("classloading.resolve.jars", 2, RESOLVE,
            "real jars on the class path: user_jars, parent_jars", _jars_used),
    Feature("checkpoint.coordinator.config-defaults", 2, COORDINATOR,
            "config settings left out, taking their defaults", _coordinator_defaults_used,
            _fill_coordinator_defaults),
    Feature("checkpoint.coordinator.sources", 2, COORDINATOR,
            "checkpoints triggered on some of the tasks only", _has_field("sources"), _without_field("sources")),
    Feature("checkpoint.alignment.cancel", 2, _ALIGNMENT,
            "cancel checkpoint markers: cancel events", _cancel_used, _strip_cancel, also=(_RECOVERY,)),
    Feature("checkpoint.alignment.checkpoints-after-finish", 2, _ALIGNMENT,
            "the checkpoints_after_finish option", _has_field("checkpoints_after_finish"),
            _without_field("checkpoints_after_finish"), also=(_RECOVERY,)),
    Feature("classloading.resolve.resource-lookup-one", 3, RESOLVE,
            "getResource lookups: resource_lookup_one, answered in resource", _has_field("resource_lookup_one"),
            _without_field("resource_lookup_one"), unanswer=_without_output_field("resource")),
    # last: the strips above may drop keys first
    Feature("config.spelling", 1, TASKMANAGER,
            "config values not written plainly: whitespace, letter case, quotes, list syntax, number notation",
            _spelling_used, _respell, also=(JOBMANAGER, RESOLVE)),
)


def _steps(out: Output) -> list[Any]:
    steps = out.get("steps") if isinstance(out, Mapping) else None
    return steps if isinstance(steps, list) else []


def _trace(out: Output) -> list[Any]:
    trace = out.get("trace") if isinstance(out, Mapping) else None
    return trace if isinstance(trace, list) else []


def _drop_was_pending(out: Output) -> Output:
    return {**out, "steps": [{k: v for k, v in s.items() if k != "was_pending"} if isinstance(s, Mapping) else s
                             for s in _steps(out)]}


ANSWER_FEATURES: tuple[AnswerFeature, ...] = (
    AnswerFeature("checkpoint.coordinator.was-pending", 2, COORDINATOR,
                  "was_pending in a step: a late ack Flink still accepted",
                  lambda out: any(isinstance(s, Mapping) and "was_pending" in s for s in _steps(out)),
                  _drop_was_pending),
    AnswerFeature("checkpoint.alignment.fail", 2, _ALIGNMENT,
                  "a fail entry in the trace: the barrier handler threw",
                  lambda out: any(isinstance(s, Mapping) and "fail" in s for s in _trace(out))),
)

_ALL_FEATURES: tuple[Feature | AnswerFeature, ...] = (*FEATURES, *ANSWER_FEATURES)
BY_NAME: dict[str, Feature | AnswerFeature] = {f.name: f for f in _ALL_FEATURES}
assert len(BY_NAME) == len(FEATURES) + len(ANSWER_FEATURES), "feature names must be unique"


def for_area(area: str) -> tuple[Feature, ...]:
    """The input features a request of ``area`` can carry, whole areas excluded."""
    return tuple(f for f in FEATURES if area in f.areas and not f.whole_area)


def area_feature(area: str) -> Feature | None:
    """The feature that is ``area`` itself, for an area added since protocol 1."""
    return next((f for f in FEATURES if f.whole_area and f.name == area), None)


def table() -> list[dict[str, Any]]:
    """Every feature as a row (docs/protocol/v2.md's table; ``flinkspec`` reports)."""
    rows = [{"name": f.name, "area": f.area, "version": f.version, "what": f.description,
             "kind": "area" if f.whole_area else "input", "strippable": f.strip is not None} for f in FEATURES]
    rows += [{"name": f.name, "area": f.area, "version": f.version, "what": f.description, "kind": "answer",
              "strippable": f.drop is not None} for f in ANSWER_FEATURES]
    return rows
