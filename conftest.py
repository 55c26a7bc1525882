"""Root conftest: loads flinkspec's pytest plugin when running from a checkout (an installed
package loads it through its ``pytest11`` entry point): the options --impl, --flink, --area,
--capabilities, --conformance and --strict-messages, the markers, and the Hypothesis profiles
dev/ci/thorough chosen by HYPOTHESIS_PROFILE."""

pytest_plugins = ["flinkspec.plugin"]
