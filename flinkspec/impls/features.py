"""What the suite can send beyond protocol version 1, feature by feature: the registry.

docs/protocol/v1.md is protocol version 1: an implementation written exactly to it must never be
failed for not knowing something added since. Every input feature added since (a field, an event
kind, a config key, a whole area) is registered here with the protocol version that added it,
the area whose requests carry it, a one-line description, a detector ``used(request)`` and, where
the feature can be taken out of a request that stays well-formed, ``strip(request)``
(:class:`properties.features.Feature`). Each area declares its own (:attr:`properties.area.Area.features`);
an area added since protocol 1 is a feature of its own; the envelope's features are declared here.
Version 2: the extensions of docs/protocol/v2.md, docs/protocol/checkpoint-alignment.md and
docs/protocol/checkpoint-coordinator.md, which appeared together, with no published version in between.
Version 3: docs/protocol/v3.md (``getResource`` lookups).
Version 4 (:data:`CURRENT`, what the suite speaks): docs/protocol/v4.md (the areas of the class-loader
lifecycle and of checkpoint storage).

A feature of version 1 (``config.spelling``: how a config value is written) is part of v1.md; it is
registered so that an implementation can declare it does not model it, and be treated for it as one
that does not speak it.

Answers can carry additions too (:data:`ANSWER_FEATURES`): Flink's answer to a version-1 request
may hold an entry that only a later version defines; the expected answer drops it for an
implementation that does not speak it, or, where it cannot be dropped, the case is not checked.
See :meth:`flinkspec.impls.capabilities.Capabilities.fit`.
"""

from __future__ import annotations

import functools
from typing import Any

from properties.areas import AREAS
from properties.features import (
    ENVELOPE,
    AnswerFeature,
    Feature,
    Request,
    area_is,
    config_of,
    input_of,
    with_input,
)

CURRENT = 4  # the protocol version the suite speaks
V1_AREAS = tuple(name for name, area in AREAS.items() if area.protocol == 1)  # the areas of docs/protocol/v1.md
ALL_AREAS = tuple(AREAS)


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
# config.spelling (the areas declaring ``config_spelling``): how a config value is written


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
    return version is not None and bool(spelling.odd_keys(config_of(req), version))


def _respell(req: Request) -> Request | None:
    """Every config value written plainly, as Flink of the request's version reads it; None when one has
    no plain spelling with its meaning."""
    from flinkspec.impls import spelling

    version = _request_version(req)
    config = spelling.respelled(config_of(req), version) if version is not None else None
    return None if config is None else with_input(req, {**input_of(req), "config": config})


# ------------------------------------------------------------------------------------------------
# the registry

_SPELLED = tuple(name for name, area in AREAS.items() if area.config_spelling)

FEATURES: tuple[Feature, ...] = (
    Feature("flink.patch-release", 2, ENVELOPE,
            "flink naming a patch release other than its minor's newest (1.15.1)", _patch_release_named,
            also=ALL_AREAS),
    # every area added since protocol 1, a feature of its own
    *(Feature(area.name, area.protocol, area.name, area.description, area_is(area.name))
      for area in AREAS.values() if area.protocol > 1),
    # each area's own, in the registry's order
    *(f for area in AREAS.values() for f in area.features),
    # last: the strips above may drop keys first
    Feature("config.spelling", 1, _SPELLED[0],
            "config values not written plainly: whitespace, letter case, quotes, list syntax, number notation",
            _spelling_used, _respell, also=_SPELLED[1:]),
)
ANSWER_FEATURES: tuple[AnswerFeature, ...] = tuple(f for area in AREAS.values() for f in area.answer_features)

_ALL_FEATURES: tuple[Feature | AnswerFeature, ...] = (*FEATURES, *ANSWER_FEATURES)
BY_NAME: dict[str, Feature | AnswerFeature] = {f.name: f for f in _ALL_FEATURES}
if len(BY_NAME) != len(FEATURES) + len(ANSWER_FEATURES):
    raise ValueError("two features share a name")
for _f in FEATURES:
    if _f.area != ENVELOPE and not set(_f.areas) <= AREAS.keys():
        raise ValueError(f"feature {_f.name} names an area no one declares: {_f.areas}")


@functools.cache
def for_area(area: str) -> tuple[Feature, ...]:
    """The input features a request of ``area`` can carry, whole areas excluded (the registry is fixed at
    import, so each area's are found once)."""
    return tuple(f for f in FEATURES if area in f.areas and not f.whole_area)


@functools.cache
def answer_features(area: str) -> tuple[AnswerFeature, ...]:
    """The additions to the answers of ``area``."""
    return tuple(f for f in ANSWER_FEATURES if f.area == area)


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
