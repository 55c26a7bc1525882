"""docs/seed-claims-audit.md is what its script writes from the steering repo's SEED_CLAIMS.md, and every
decision in it names rules the registry holds (the script's own checks)."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

from properties.areas import all_rules

ROOT = Path(__file__).resolve().parents[1]
SOURCE = "/work/shared/SEED_CLAIMS.md"  # as the page names it
CLAIMS = next((p for p in (ROOT.parent / "shared" / "SEED_CLAIMS.md", Path(SOURCE)) if p.exists()), Path(SOURCE))


def _script():  # type: ignore[no-untyped-def]
    spec = importlib.util.spec_from_file_location("seed_claims_audit", ROOT / "docs" / "seed_claims_audit.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.skipif(not CLAIMS.exists(), reason=f"{CLAIMS} is not on this machine")
def test_the_audit_page_is_what_its_script_writes() -> None:
    audit = _script()
    rows = audit.claims(CLAIMS.read_text())
    assert audit.problems(rows, set(all_rules())) == []
    assert (ROOT / "docs" / "seed-claims-audit.md").read_text() == audit.render(rows, SOURCE)
