"""Entry point for ``spark-submit``: the same options as ``flinkspec fanout``, the master from spark-submit.

    spark-submit --master spark://host:7077 \\
        "$(python -c 'import spark_harness.submit as s; print(s.__file__)')" \\
        --impl flink:2.3.0 --cases 1000000 --report reports/flink
"""

from __future__ import annotations

import sys

from flinkspec.cli.main import main  # fanout is spark_harness.cli's command, found by its entry point

if __name__ == "__main__":
    sys.exit(main(["fanout", *sys.argv[1:]]))
