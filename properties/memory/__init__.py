"""Properties of Flink's TaskManager and JobManager memory derivation."""
