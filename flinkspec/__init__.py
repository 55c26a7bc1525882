"""flinkspec: the reference oracle and conformance suite for Apache Flink's runtime rules."""

__version__ = "0.1.0"
