"""Two scheduler configurations side by side on the same inputs and seed: the pods they place
differently, and for one such pod each configuration's per-plugin reasons.

What ``kubesched compare`` does for a trace (the same input under each configuration, one seed)
done for the inputs the page shows: both runs are :class:`~kubesched.simulator.Simulator`'s and
the difference is :func:`~._whatif.diff_placements`'s. A pod's reasons come from the dry-run
cycle ``explain`` runs (:func:`kubesched.simulator.explain_simulated_pod`: the pod at its first
scheduling attempt in each configuration's simulation), reduced to what tells the two apart:
each plugin's verdict and weighted score on the nodes either configuration chose.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final

from ..api.loader import LoadedObjects
from ..framework import Code
from ..scheduler import ExplainError, Explanation
from ..simulator import Simulation, explain_simulated_pod
from ._problems import InputProblems
from ._whatif import PlacementChange, diff_placements, prepare, run_progress

__all__ = ["Comparison", "compare_configs", "pod_reasons"]

_REJECTED: Final = frozenset({Code.ERROR, Code.UNSCHEDULABLE, Code.UNSCHEDULABLE_AND_UNRESOLVABLE})
"""Filter codes that reject the node (Skip: the plugin had nothing to check)."""


@dataclass(slots=True)
class Comparison:
    """Runs ``a`` and ``b`` of the same inputs, and every pod whose outcome differs (``before``
    is ``a``'s, ``after`` ``b``'s)."""

    a: Simulation
    b: Simulation
    changes: list[PlacementChange]

    def to_dict(self) -> dict[str, Any]:
        return {
            "differing": [{"pod": c.pod, "a": _side(c.before), "b": _side(c.after)} for c in self.changes],
            "pods": len(self.a.pods),
            "pending": {"a": len(self.a.unplaced()), "b": len(self.b.unplaced())},
            "scheduled": {"a": len(self.a.scheduled()), "b": len(self.b.scheduled())},
            "preemptions": {"a": len(self.a.preemptions), "b": len(self.b.preemptions)},
        }


def _side(o: Any) -> dict[str, Any] | None:
    return None if o is None else {"node": o.node or None, "status": o.status, "message": o.message}


def compare_configs(loaded: LoadedObjects, config_a: Any, config_b: Any, *, seed: int = 0,
                    features: Mapping[str, bool] | None = None, text: str = "",
                    progress: Callable[[int, int, int], None] | None = None) -> Comparison:
    """Simulate ``loaded`` under each configuration with the same seed and compare. ``text``:
    the what-if's manifests ``loaded`` holds (:func:`~._whatif.with_manifests`), so that an
    object admission refuses is reported on its line. ``progress(run, done, total)``: each
    run's pods placed (run 0 is A's, 1 B's)."""
    sims = []
    for side, cfg in (("A", config_a), ("B", config_b)):
        try:
            sims.append(prepare(loaded, text, cfg, seed, features))
        except InputProblems as exc:
            if exc.what == "configuration":
                exc.what = f"configuration {side}"
            raise
    a, b = (s.run(run_progress(progress, i)) for i, s in enumerate(sims))
    return Comparison(a, b, diff_placements(a.pods, b.pods))


def pod_reasons(loaded: LoadedObjects, pod: str, configs: Sequence[Any], *, seed: int = 0,
                features: Mapping[str, bool] | None = None) -> dict[str, Any]:
    """Why each configuration put ``pod`` (``namespace/name``) where it did: per configuration
    the node selected at its first attempt (or the failure message), and for each node any
    configuration selected, every Filter plugin's verdict and every Score plugin's weighted
    score. Raises ExplainError (a ValueError) when the pod never has an attempt."""
    namespace, _, name = pod.partition("/")
    if not name:
        raise ExplainError(f"pod {pod!r}: expected namespace/name")
    explained: list[Explanation] = []
    for cfg in configs:
        explained.append(explain_simulated_pod(loaded, namespace, name, config=cfg, seed=seed,
                                               features=features).explanation)
    chosen = list(dict.fromkeys(e.selected_node for e in explained if e.selected_node))
    return {
        "pod": pod,
        "nodes": chosen,
        "configs": [_reasons(e, chosen) for e in explained],
    }


def _reasons(e: Explanation, nodes: Sequence[str]) -> dict[str, Any]:
    by_name = {n.name: n for n in e.nodes}
    rejected: dict[str, int] = {}
    for n in e.nodes:
        for f in n.filters:
            if f.code in _REJECTED:
                rejected[f.plugin] = rejected.get(f.plugin, 0) + 1
    per_node = {}
    for name in nodes:
        if name not in by_name:
            continue
        n = by_name[name]
        per_node[name] = {
            "feasible": n.feasible,
            "filters": [{"plugin": f.plugin, "code": str(f.code), "reasons": list(f.reasons)}
                        for f in n.filters if f.code in _REJECTED],
            "scores": {s.plugin: {"weight": s.weight, "normalized": s.normalized, "weighted": s.weighted}
                       for s in n.scores},
            "totalScore": n.total_score,
        }
    return {"selectedNode": e.selected_node, "message": e.message, "rejectedBy": rejected, "nodes": per_node}
