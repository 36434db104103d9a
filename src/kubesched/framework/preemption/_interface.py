"""Candidate and the policy hooks a preemption plugin supplies to the Evaluator.

Mirrors the ``Candidate`` and ``Interface`` types of pkg/scheduler/framework/preemption
(preemption.go, master 2026): the Evaluator runs the algorithm; a plugin (DefaultPreemption, or
an out-of-tree one) decides how many nodes to sample, who is eligible, which victims to pick on a
node and how to rank candidate nodes.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol, runtime_checkable

from .._cycle_state import CycleState
from .._status import Status
from ._util import ScoreFunc, Victims

if TYPE_CHECKING:
    from ...api import Pod, PodDisruptionBudget
    from ...cache import NodeInfo

__all__ = ["Candidate", "Interface"]


@dataclass(slots=True)
class Candidate:
    """A node the preemptor could be nominated to, with the victims to evict there."""

    name: str
    victims: Victims


@runtime_checkable
class Interface(Protocol):
    """preemption.Interface."""

    def get_offset_and_num_candidates(self, num_nodes: int) -> tuple[int, int]:
        """A random offset into the potential nodes and how many candidates to shortlist."""
        ...

    def candidates_to_victims_map(self, candidates: Sequence[Candidate]) -> dict[str, Victims]:
        """Node name -> victims (one candidate per node)."""
        ...

    def pod_eligible_to_preempt_others(self, pod: Pod,
                                       nominated_node_status: Status | None) -> tuple[bool, str]:
        """Whether ``pod`` may preempt at all, and the reason when it may not."""
        ...

    def select_victims_on_node(self, state: CycleState, pod: Pod, node_info: NodeInfo,
                               pdbs: Sequence[PodDisruptionBudget]) -> tuple[list[Pod], int, Status]:
        """The fewest pods to evict on the node (``state`` and ``node_info`` are copies the
        method may change), the number of PDB violations, and Success or why the node is no
        candidate."""
        ...

    def ordered_score_funcs(self, nodes_to_victims: dict[str, Victims]) -> list[ScoreFunc] | None:
        """Score functions for pickOneNodeForPreemption; None for the defaults."""
        ...
