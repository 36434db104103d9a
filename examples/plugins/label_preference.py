"""An out-of-tree Score plugin: prefer nodes carrying a label.

Enable it from a KubeSchedulerConfiguration by import path (``label_preference:NodeLabelPreference``)
or, once packaged, through a ``kubesched.plugins`` entry point; see README.md next to this file.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import numpy.typing as npt

from kubesched.api import Pod
from kubesched.cache import NodeInfo
from kubesched.framework import (
    MAX_NODE_SCORE,
    ArgsError,
    ClusterEventWithHint,
    CycleState,
    NodeBatch,
    PluginArgs,
    PluginBase,
    Status,
)


@dataclasses.dataclass(frozen=True, kw_only=True)
class NodeLabelPreferenceArgs(PluginArgs):
    """``pluginConfig[].args``: camelCase keys in YAML (``labelKey``), defaults here."""

    label_key: str = "example.com/preferred"
    values: tuple[str, ...] = ()  # empty: any value counts

    @classmethod
    def decode_field(cls, name: str, value: object) -> object:
        return tuple(value) if name == "values" and isinstance(value, list) else value

    def validate(self) -> None:
        if not self.label_key:
            raise ArgsError("labelKey: Required value")


class NodeLabelPreference(PluginBase):
    """Scores MaxNodeScore on nodes with the label (and an accepted value), 0 elsewhere."""

    NAME = "NodeLabelPreference"
    Args = NodeLabelPreferenceArgs

    def _args(self) -> NodeLabelPreferenceArgs:
        assert isinstance(self.args, NodeLabelPreferenceArgs)
        return self.args

    def _matches(self, value: str | None) -> bool:
        a = self._args()
        return value is not None and (not a.values or value in a.values)

    def score(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> tuple[int, Status | None]:
        """The per-node path: what kube-scheduler's Score calls per node."""
        labels = node_info.node.labels if node_info.node else {}
        return (MAX_NODE_SCORE if self._matches(labels.get(self._args().label_key)) else 0), None

    def score_batch(self, state: CycleState, pod: Pod,
                    nodes: NodeBatch) -> tuple[npt.NDArray[np.int64], Status | None]:
        """Optional batch path: all candidate nodes at once from the snapshot's label column.
        Without it the runtime loops ``score``; both must give the same numbers."""
        codes, values = nodes.snapshot.columns.label_column(self._args().label_key)
        good = np.array([self._matches(v) for v in values] + [False], dtype=bool)
        return np.where(good[codes[nodes.indices]], MAX_NODE_SCORE, 0).astype(np.int64), None

    def events_to_register(self) -> list[ClusterEventWithHint]:
        """A Score-only plugin never rejects a pod, so it needs no requeueing events."""
        return []
