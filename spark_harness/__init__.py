"""Fan-out of flinkspec's properties over PySpark: large randomized runs on one machine or a cluster.

The work is cut into seeded *chunks* (:mod:`spark_harness.plan`): a chunk is ``n`` requests of
one area, drawn with the suite's own Hypothesis strategies (:func:`properties.corpus.draw`) from a
seed derived from the run's seed, the area and the chunk's index, and checked at every Flink
version that draws the same inputs. Which cases a run checks depends only on ``--seed`` and
``--cases``, never on the master or the number of partitions, so ``local[*]`` and a cluster find
the same counterexamples.

Spark tasks (:mod:`spark_harness.tasks`) run chunks against their own connection to the
implementation (opened once per Python worker and reused), judge every answer with
:func:`flinkspec.judge.verdict.evaluate`, and return counts and the smallest failing requests per rule.
The driver (:mod:`spark_harness.driver`) watches progress (:mod:`spark_harness.progress`), keeps
every partition's result as it completes, retries what was lost, shrinks each failure
(:mod:`spark_harness.shrink`), removes duplicates by rule and shape, and writes the reports.
"""
