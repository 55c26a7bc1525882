"""Consumer-weight mutants: bugs a reimplementation of Flink's ``ManagedMemoryUtils`` plausibly has.

Each answers with one function or table of :mod:`oracle.memory_consumers` swapped for the buggy one, for the
duration of one answer (:func:`properties.mutant.with_patches`).
"""

from __future__ import annotations

from collections.abc import Mapping

import oracle.memory_consumers as mc
from oracle.changes import FIRST
from oracle.javanum import JavaBigDecimal, parse_int
from oracle.memory_options import Configuration, IllegalConfigurationException
from oracle.memory_tm import java_hash_map_order
from oracle.versions import FlinkVersion
from properties.mutant import PR, Mutant, historical, with_patches

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


# why each mutant that no documented rule catches breaks none (the option's description says which names exist
# and that the kinds share a slot's managed memory by weight, nothing finer)
UNDOCUMENTED = {
    "mcw-round-half-up": "The documentation says a slot's managed memory is shared proportionally to the weights; "
    "that Flink rounds each fraction down at the 16th decimal (a difference of 1e-16) is only in "
    "ManagedMemoryUtils.getFractionRoundedDown, so MMC-3 allows that much.",
    "mcw-long-total": "No documentation says the weights are summed as a Java int that wraps past "
    "Integer.MAX_VALUE; MMC-3 judges only slots whose weights sum to an int, as no documented sharing covers "
    "the wrapped sum.",
    "mcw-names-any-case": "The documented consumer names are upper case, but no documentation says a name in "
    "another case is ignored rather than read; only ManagedMemoryUtils' exact map lookup decides it.",
    "mcw-dataproc-forever": "No release's documentation of the option names DATAPROC or says when it stopped "
    "being read; only ManagedMemoryUtils.USE_CASE_CONSUMER_NAMES of each release shows the 2.0 change.",
    "mcw-zero-weight-dropped": "The documentation says nothing of how a weight of 0 is reported: with it or "
    "without, the use case gets no managed memory, which is all the documented sharing rule (MMC-3) judges.",
}

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
    MUTANTS.append(Mutant(_name, AREA, _doc, after=with_patches(*_patches), undocumented=UNDOCUMENTED.get(_name, "")))


# ---- historical mutants (:func:`properties.mutant.historical`) -----------------------------------

# Flink 1.12's consumer names (TaskManagerOptions.ManagedMemoryConsumerNames) and the use cases each weighs, and
# the option's default then
_NAMES_1_12: Mapping[str, tuple[mc.UseCase, ...]] = {"DATAPROC": ("OPERATOR", "STATE_BACKEND"), "PYTHON": ("PYTHON",)}
_DEFAULT_1_12 = {"DATAPROC": "70", "PYTHON": "30"}


def _weights_before_20860(conf: Configuration, version: FlinkVersion) -> dict[mc.UseCase, int]:
    """Flink 1.12's ``getManagedMemoryUseCaseWeightsFromConfig``: each configured entry in ``HashMap`` order,
    its weight parsed, then its name switched on; a name other than DATAPROC and PYTHON throws."""
    configured = _configured(conf, version) if conf.raw(mc.OPTION) is not None else dict(_DEFAULT_1_12)
    out: dict[mc.UseCase, int] = {}
    for name, text in java_hash_map_order(list(configured.items())):
        weight = parse_int(text)
        if weight < 0:
            raise IllegalConfigurationException("Managed memory weight should not be negative. Configured weight "
                                                f"for {name} is {weight}.")
        if name not in _NAMES_1_12:
            raise IllegalConfigurationException(f"Unknown managed memory consumer: {name}")
        out.update(dict.fromkeys(_NAMES_1_12[name], weight))
    return out


MUTANTS.append(historical(
    20860, AREA,
    "The consumer names are Flink 1.12's (a behaviour change of FLINK-20860, not a bug fix): DATAPROC weighs "
    "OPERATOR and STATE_BACKEND, PYTHON weighs PYTHON, and any other name (OPERATOR and STATE_BACKEND among "
    "them) is IllegalConfigurationException('Unknown managed memory consumer: <name>'), instead of being "
    "ignored.",
    f"{PR}14576 (Flink 1.13.0)", "1.12", after=with_patches((mc, "weights_of", _weights_before_20860))))
