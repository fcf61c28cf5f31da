"""Constants and user-adjustable defaults of the placement engine (series lengths, Epoch commitment
discounts, spot-overhead assumptions), each with its unit and source.

Part of :mod:`engine.placement`; the references [n] are in its docstring.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict

from engine.assumptions import Assumption, assumed, assumptions_of
from engine.placement.commitment import spot_effective_eur_per_gpu_hour

#: Hours in a week [h]; the shortest uploaded demand series.
HOURS_PER_WEEK = 168
#: Longest uploaded demand series: a leap year [h].
MAX_SERIES_HOURS = 8784
#: Longest plan horizon [month]: twenty years, the longest Rent-or-own horizon (engine.tco.TcoInputs).
MAX_HORIZON_MONTHS = 240
#: Default plan horizon [month] when none is given: one year, the length of the default demand profile.
DEFAULT_HORIZON_MONTHS = 12

# -- Work budget of one request (engine.placement.budget; issue #28): measured on the 2-core reference machine,
# the Placement page at these limits (13 solves: plan, two baselines, sensitivity) takes a few seconds and a
# few hundred MB (README, security model).
#: Most GPUs one workload may use in any hour (mean, peak, uploaded series) [GPU]; the page grid's maximum.
MAX_WORKLOAD_GPUS = 10_000
#: Most workloads x largest peak [GPU]: the duration curves hold one column per GPU level for every workload.
MAX_PORTFOLIO_CELLS = 250_000
#: Most workloads x demand hours (the hourly profiles) [h].
MAX_DEMAND_CELLS = 100 * MAX_SERIES_HOURS
#: Most capacity-level LP columns of one solve (one per GPU level per workload at each capacity-limited venue).
MAX_LEVEL_COLUMNS = 50_000

#: Commitment discount vs on demand by catalog ``provider_id`` and term in years [-]:
#: Epoch AI ``constants.py`` ``DEFAULT_CUD`` (AWS 41 % / 64 %, Google Cloud 37 % / 56 %, Azure 25 % / 49 %,
#: Lambda 34 % / 56 %). Reserved rate = on-demand rate x (1 - discount); r/o = 1 - discount.
EPOCH_COMMITMENT_DISCOUNT_FRACTION: dict[str, dict[int, float]] = {
    "aws": {1: 0.41, 3: 0.64},
    "gcp": {1: 0.37, 3: 0.56},
    "azure": {1: 0.25, 3: 0.49},
    "lambda": {1: 0.34, 3: 0.56},
}
#: The source line of :data:`EPOCH_COMMITMENT_DISCOUNT_FRACTION` in assumption tables.
EPOCH_SOURCE = "Epoch AI training-cost-trends constants.py DEFAULT_CUD (github.com/epoch-research/training-cost-trends)"

#: ``min_commitment`` values (catalog enum) that forbid pay-as-you-go use of a venue.
COMMITMENT_REQUIRED = frozenset({"monthly", "annual", "multi-year"})


class PlacementAssumptions(BaseModel):
    """Defaults of the placement engine that are not catalog facts, each with its unit and source.

    The spot overhead follows the domain model (section 6): effective spot rate
    ``c_spot (1 + (tau/2 + t_restart)/M + delta/tau)`` with Young's interval ``tau = sqrt(2 delta M)``.

    Examples
    --------
    >>> a = PlacementAssumptions()
    >>> round(a.spot_overhead_fraction(), 4)  # tau = 2 h: 1/24 x (1 h + 10 min) + 5 min / 2 h
    0.0903
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    spot_mean_time_between_interruptions_hours: float = assumed(
        24.0, "h", "assumption (user input): one spot interruption per day; no published per-offer preemption "
        "rate is in the catalog (AWS documents a two-minute notice, GCP 30 s; domain-model section 6)", gt=0)
    checkpoint_write_hours: float = assumed(
        5.0 / 60.0, "h", "assumption (user input): 5 min to write a checkpoint (delta in Young 1974)", ge=0)
    restart_hours: float = assumed(
        10.0 / 60.0, "h", "assumption (user input): 10 min to get a new spot instance and reload", ge=0)

    def spot_overhead_fraction(self) -> float:
        """Extra cost of a useful spot GPU-hour at Young's checkpoint interval [-]."""
        return float(spot_effective_eur_per_gpu_hour(
            1.0, self.spot_mean_time_between_interruptions_hours, self.checkpoint_write_hours,
            self.restart_hours) - 1.0)

    def table(self) -> tuple[Assumption, ...]:
        """The fields as :class:`Assumption` rows, plus the derived spot overhead."""
        rows = list(assumptions_of(self))
        rows.append(Assumption("spot_overhead_fraction", round(self.spot_overhead_fraction(), 4), "-",
                               "derived: Young (1974) optimum checkpoint interval, domain-model section 6"))
        return tuple(rows)


DEFAULT_ASSUMPTIONS = PlacementAssumptions()
