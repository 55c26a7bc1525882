"""What the suite's tests need of the implementation under test, and of the judge they reach it
through, as protocols. flinkspec's harness provides both (the pytest plugin's ``impl`` and ``gate``
fixtures, :mod:`flinkspec.plugin`); the suite names only these, so that ``properties/`` never
imports the harness above it."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol

from oracle.versions import FlinkVersion

Request = dict[str, Any]
Response = dict[str, Any]


class Implementation(Protocol):
    """Anything that answers protocol requests (docs/protocol/v1.md), a batch at a time."""

    name: str

    def answer_many(self, requests: Sequence[Request]) -> list[Response]: ...

    def close(self) -> None: ...


def answer_one(impl: Implementation, request: Request) -> Response:
    return impl.answer_many([request])[0]


def refuses_then_answers(impl: Implementation, area: str, version: FlinkVersion, bad: dict[str, Any], says: str,
                         good: dict[str, Any]) -> dict[str, Any]:
    """The implementation answers the malformed input ``bad`` with a BadRequest whose message contains ``says``
    (the field it names), then still answers the well-formed ``good``: its output, for the caller to check."""
    answer = answer_one(impl, {"id": 1, "area": area, "flink": str(version), "input": bad})
    assert answer.get("error", {}).get("type") == "BadRequest", answer
    assert says in answer["error"].get("message", ""), answer
    ok = answer_one(impl, {"id": 2, "area": area, "flink": str(version), "input": good})
    assert "output" in ok, ok
    output: dict[str, Any] = ok["output"]
    return output


class Judged(Protocol):
    """The implementation under test as every route judges it: each answer against the area's rules
    and Flink's answer, a divergence raised as a failure that names its cause."""

    def answer(self, area: str, version: FlinkVersion, payload: dict[str, Any], *, final: bool | None = None
               ) -> dict[str, Any]: ...

    def judge_all(self, area: str, version: FlinkVersion, payloads: list[dict[str, Any]]) -> list[str]: ...

    def replay(self, request: Request, *, strict: bool = False) -> str: ...
