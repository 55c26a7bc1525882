"""Root conftest: loads flinkspec's pytest plugin (options --impl/--flink/--conformance and the
Hypothesis profiles dev/ci/thorough chosen by HYPOTHESIS_PROFILE) when running from a checkout."""

pytest_plugins = ["properties.plugin"]
