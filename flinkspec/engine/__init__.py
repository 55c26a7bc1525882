"""The check engine: generate requests, judge them (:mod:`flinkspec.judge`), group and shrink the
divergences (:mod:`flinkspec.engine.check`); the exhaustive check and the diff of Flink versions."""
