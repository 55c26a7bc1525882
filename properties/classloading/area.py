"""The class-loading area: where a user-code class loader resolves each class and resource."""

from __future__ import annotations

from oracle import classloading
from properties.area import Area, ExtraCorpus, OracleRules
from properties.classloading import invariants, strategies

RESOLVE = Area(
    name=classloading.RESOLVE, prefix="CLR", rules=invariants.BOOK, page="v1.md#classloadingresolve",
    description="where FlinkUserCodeClassLoaders resolves each class and resource (child-first, parent-first)",
    requests=strategies.requests, size=strategies.name_count, corpus_key=strategies.corpus_key,
    # the readers of the class-loading options (CL-2 ... CL-6), their values fuzzed
    corpora=(ExtraCorpus(name="classloading.values", requests=strategies.value_requests,
                         corpus_key=strategies.value_corpus_key),),
    oracle={"classloading": OracleRules(rules=classloading.RULES,
                                        files=("oracle/classloading.py", "oracle/classloading_config.py"))},
)
