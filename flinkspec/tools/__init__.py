"""Maintainers' tools, apart from what users run: recording real Flink's answers and tables, the
catch rate, the mutation score and the conformance test vectors (``python -m flinkspec.tools.<tool>``)."""
