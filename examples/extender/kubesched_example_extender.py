"""An out-of-tree plugin served to the real kube-scheduler through ``kubesched extender``.

``AvoidLabel`` is a Filter and a Score plugin:

- Filter: nodes carrying the label ``avoidLabel`` (default ``example.com/avoid``, any value) are
  rejected as UnschedulableAndUnresolvable (evicting pods would not help), with the reason
  ``node(s) had the label example.com/avoid``: kube-scheduler's FailedScheduling message counts
  nodes per reason, so the reason reads like upstream's;
- Score: nodes labelled ``preferLabel=true`` (default ``example.com/preferred``) score
  MaxNodeScore (100), the others 0.

Packaged with a ``kubesched.plugins`` entry point (``pyproject.toml`` next to this file), it is
enabled by name (``AvoidLabel``) in ``kubesched-config.yaml``.
"""

from __future__ import annotations

import dataclasses

from kubesched.api import Pod
from kubesched.cache import NodeInfo
from kubesched.framework import (
    MAX_NODE_SCORE,
    ArgsError,
    ClusterEventWithHint,
    Code,
    CycleState,
    PluginArgs,
    PluginBase,
    Status,
)


@dataclasses.dataclass(frozen=True, kw_only=True)
class AvoidLabelArgs(PluginArgs):
    """``pluginConfig[].args`` (camelCase in YAML: ``avoidLabel``, ``preferLabel``)."""

    avoid_label: str = "example.com/avoid"
    prefer_label: str = "example.com/preferred"

    def validate(self) -> None:
        if not self.avoid_label:
            raise ArgsError("avoidLabel: Required value")


class AvoidLabel(PluginBase):
    """Keeps pods off nodes with ``avoidLabel``; prefers nodes with ``preferLabel=true``."""

    NAME = "AvoidLabel"
    Args = AvoidLabelArgs

    def _args(self) -> AvoidLabelArgs:
        return self.args if isinstance(self.args, AvoidLabelArgs) else AvoidLabelArgs()

    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status | None:
        labels = node_info.node.labels if node_info.node is not None else {}
        key = self._args().avoid_label
        if key in labels:
            return Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, f"node(s) had the label {key}")
        return None

    def score(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> tuple[int, Status | None]:
        labels = node_info.node.labels if node_info.node is not None else {}
        return (MAX_NODE_SCORE if labels.get(self._args().prefer_label) == "true" else 0), None

    def events_to_register(self) -> list[ClusterEventWithHint]:
        """Only a node's labels can change the verdict; kube-scheduler, not kubesched, queues
        the pods here, so this only matters when the plugin runs inside ``kubesched``."""
        return []
