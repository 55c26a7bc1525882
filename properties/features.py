"""What the suite can send beyond protocol version 1, as values: :class:`Feature` (an input
feature) and :class:`AnswerFeature` (an addition to answers), and the small readers and rewriters
of a request their detectors and strips are made of.

docs/protocol/v1.md is protocol version 1: an implementation written exactly to it must never be
failed for not knowing something added since. Each area declares the input features added to it
since, with the protocol version that added them, a one-line description, a detector
``used(request)`` and, where the feature can be taken out of a request that stays well-formed,
``strip(request)`` (:attr:`properties.area.Area.features`); :mod:`flinkspec.impls.features` is
their registry, with the features of the envelope.

Detectors and strips never raise on a malformed request (they see the suite's own requests, but
also those of the bad-input tests and the reducer's candidates); strips never mutate: they return
a new request, sharing the parts they leave unchanged.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import attrs

Request = dict[str, Any]
Output = dict[str, Any]

ENVELOPE = "envelope"  # a feature of the request's envelope, which every area's requests carry


@attrs.frozen
class Feature:
    """One input feature added since protocol 1. ``area`` is the area that defines it; ``also`` the
    further areas whose inputs can carry it (recovery takes alignment inputs). A
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
    also: tuple[str, ...] = ()  # for an ``ENVELOPE`` feature: every area (filled in by the registry)
    unanswer: Callable[[Output], Output] | None = None

    def used(self, request: Request) -> bool:
        """Whether ``request`` uses the feature (never for a request of another area)."""
        return isinstance(request, Mapping) and request.get("area") in self.areas and self.detect(request)

    @property
    def areas(self) -> tuple[str, ...]:
        return self.also if self.area == ENVELOPE else (self.area, *self.also)

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


def input_of(req: Mapping[str, Any]) -> Mapping[str, Any]:
    inp = req.get("input") if isinstance(req, Mapping) else None
    return inp if isinstance(inp, Mapping) else {}


def events_of(req: Mapping[str, Any]) -> list[Any]:
    events = input_of(req).get("events")
    return events if isinstance(events, list) else []


def config_of(req: Mapping[str, Any]) -> Mapping[str, Any]:
    config = input_of(req).get("config")
    return config if isinstance(config, Mapping) else {}


def area_is(name: str) -> Callable[[Request], bool]:
    return lambda req: isinstance(req, Mapping) and req.get("area") == name


def with_input(req: Request, inp: Mapping[str, Any]) -> Request:
    return {**req, "input": dict(inp)}


def without_field(name: str) -> Callable[[Request], Request]:
    """Strip: the input without field ``name``."""
    return lambda req: with_input(req, {k: v for k, v in input_of(req).items() if k != name})


def has_field(name: str) -> Callable[[Request], bool]:
    return lambda req: name in input_of(req)


def event_field_used(name: str) -> Callable[[Request], bool]:
    return lambda req: any(isinstance(e, Mapping) and name in e for e in events_of(req))


def without_event_field(name: str) -> Callable[[Request], Request]:
    """Strip: every event without its field ``name`` (events keep their place)."""

    def strip(req: Request) -> Request:
        events = [{k: v for k, v in e.items() if k != name} if isinstance(e, Mapping) and name in e else e
                  for e in events_of(req)]
        return with_input(req, {**input_of(req), "events": events})

    return strip


def config_key_used(keys: Callable[[str], bool]) -> Callable[[Request], bool]:
    return lambda req: any(keys(k) for k in config_of(req))


def without_config_keys(keys: Callable[[str], bool]) -> Callable[[Request], Request]:
    """Strip: the config without the keys ``keys`` selects."""
    return lambda req: with_input(req, {**input_of(req), "config": {k: v for k, v in config_of(req).items()
                                                                     if not keys(k)}})


def without_output_field(name: str) -> Callable[[Output], Output]:
    """Unanswer: the output without field ``name``."""
    return lambda out: {k: v for k, v in out.items() if k != name} if isinstance(out, Mapping) and name in out else out
