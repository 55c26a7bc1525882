"""Judging one answer of an implementation: the rules it breaks, how it differs from Flink's (its
divergence) and the smallest request that still diverges so. The areas' rules come in as a parameter
(:class:`flinkspec.judge.verdict.AreaRules`, which :class:`properties.area.Area` is), so that this
layer imports nothing of properties/ that judges with it."""
