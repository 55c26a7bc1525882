"""flinkspec's conformance suite: strategies, invariants and pytest properties per area.

Run it against any implementation: ``pytest --pyargs properties --impl cmd:./my-engine``.
"""

from hypothesis.internal.conjecture import providers as _providers

# Hypothesis (6.13x and later) mixes the constants it finds in the source of every loaded local
# module into its draws, so the same seed drew other inputs depending on which of our modules a
# process had imported (a pytest run of one file, the whole suite, a Spark worker, `flinkspec
# check`): counterexamples and corpora would not replay across them. The suite's draws depend on
# the seed alone: no local constants (Hypothesis's fixed global ones stay).
if hasattr(_providers, "_get_local_constants"):
    from hypothesis.internal.constants_ast import Constants  # the class providers.Constants is

    _NO_LOCAL_CONSTANTS = Constants()
    _providers._get_local_constants = lambda: _NO_LOCAL_CONSTANTS
