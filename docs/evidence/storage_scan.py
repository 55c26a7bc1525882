"""``checkpoint.storage`` against every release's jar: writes docs/evidence/checkpoint-storage.json.

    python docs/evidence/storage_scan.py [--n 1000] [--full] [--seed 0] [--flink all-patches]

N requests per release (``--full``: 20,000 at the newest patch of each minor) from
``properties/checkpoint/storage_strategies.py``, each answered by the oracle and by the release's jar
through the bridge (``StorageArea.java``), compared exactly (see ``area_scan.py``). Exit 1 if any answer
differs.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from area_scan import main

from properties.checkpoint.storage_strategies import AREA, requests

if __name__ == "__main__":
    sys.exit(main(AREA, requests, Path(__file__).with_name("checkpoint-storage.json")))
