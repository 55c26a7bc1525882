"""Consumer-weight mutants: bugs a reimplementation of Flink's ``ManagedMemoryUtils`` plausibly has.

Each answers with one function or table of :mod:`oracle.memory_consumers` swapped for the buggy one, for the
duration of one answer (:func:`properties.mutant.with_patches`).
"""

from __future__ import annotations

from collections.abc import Mapping

import oracle.memory_consumers as mc
from oracle.changes import FIRST
from oracle.javanum import JavaBigDecimal
from oracle.memory_options import Configuration
from oracle.versions import FlinkVersion
from properties.mutant import Mutant, with_patches

AREA = mc.CONSUMERS
MUTANTS: list[Mutant] = []  # this module's mutants, in the order flinkspec mutants lists them

_configured = mc.configured_weights
_fraction = mc.fraction_of_slot
_weights = mc.weights_of


def _rounded_half_up(dividend: int, divisor: int) -> float:
    """The quotient rounded to the nearest 16th decimal instead of down."""
    unscaled = (2 * dividend * 10**mc.SCALE + divisor) // (2 * divisor)
    return JavaBigDecimal(unscaled, -mc.SCALE).double_value()


def _upper_case_names(conf: Configuration, version: FlinkVersion) -> dict[str, str]:
    return {name.upper(): value for name, value in _configured(conf, version).items()}


def _backend_always_counted(use_case: mc.UseCase, of_use_case: float, use_cases: frozenset[mc.UseCase],
                            weights: Mapping[mc.UseCase, int], backend_managed: bool) -> float:
    """A state backend without managed memory still counts in the total (only its own share is 0)."""
    if use_case == "STATE_BACKEND" and not backend_managed:
        return 0.0
    return _fraction(use_case, of_use_case, use_cases, weights, True)


def _zero_dropped(conf: Configuration, version: FlinkVersion) -> dict[mc.UseCase, int]:
    return {uc: w for uc, w in _weights(conf, version).items() if w > 0}


for _name, _doc, _patches in (
    ("mcw-round-half-up", "A use case's fraction of the slot is rounded to the nearest 16th decimal instead of "
     "down.", ((mc, "fraction_rounded_down", _rounded_half_up),)),
    ("mcw-long-total", "The weights of the slot's use cases are summed as a long: a sum past Integer.MAX_VALUE "
     "does not wrap.", ((mc, "java_int", lambda value: value),)),
    ("mcw-backend-always-counted", "A state backend that uses no managed memory still takes part in the total "
     "weight of the slot.", ((mc, "fraction_of_slot", _backend_always_counted),)),
    ("mcw-names-any-case", "Consumer names are matched in any letter case (operator:10 is OPERATOR's weight).",
     ((mc, "configured_weights", _upper_case_names),)),
    ("mcw-dataproc-forever", "DATAPROC is read as OPERATOR's and STATE_BACKEND's weight in every release (Flink "
     "2.0 no longer reads it).", ((mc, "CONSUMER_NAMES", {FIRST: mc.CONSUMER_NAMES[FIRST]}),)),
    ("mcw-zero-weight-dropped", "A use case configured with weight 0 is left out of the weights read (Flink "
     "keeps it, with weight 0).", ((mc, "weights_of", _zero_dropped),)),
):
    MUTANTS.append(Mutant(_name, AREA, _doc, after=with_patches(*_patches)))
