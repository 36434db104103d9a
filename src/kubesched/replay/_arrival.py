"""Format 3: a cluster snapshot plus pods arriving one by one, as the FGD simulator replays openb.

Any input ``simulate`` takes is the snapshot. Its pods that wait for a node (no
``spec.nodeName``, not finished) are the workload: they are taken out of the cluster and
created one after the other, ``interval`` seconds apart (0 by default: all at the trace's
start, each scheduled before the next arrives), in input order or shuffled by the seed.
They never leave. ``tune`` sets the arrived demand to reach: the pods arrive (at most until
their summed demand is ``tune`` times the cluster's capacity), then, while short of it,
copies of pods drawn at random with replacement (named ``<name>-<k>``), as the FGD
simulator's ``--tune`` appends re-sampled trace pods (1.3: 130% of the cluster's GPUs
requested). Demand is pluggable (``_demand``): requested cpu unless the
reader is told otherwise.
"""

from __future__ import annotations

import random
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any, Final, Literal

from ..api import Node, Pod
from ..api.loader import ApiObject, LoadedObjects, load_paths
from ._demand import DEFAULT_DEMAND, Demand
from ._trace import Trace, TraceEvent

__all__ = ["ARRIVALS", "Arrival", "arrival_trace", "read_snapshot"]

Arrival = Literal["input", "shuffled"]
ARRIVALS: Final[tuple[Arrival, ...]] = ("input", "shuffled")


def read_snapshot(paths: Sequence[str | Path], *, arrival: Arrival = "input", seed: int = 0,
                  tune: float | None = None, interval: float = 0.0, demand: Demand | None = None,
                  name: str = "") -> Trace:
    """A snapshot (manifest files or directories) whose pending pods arrive in order."""
    loaded = load_paths(list(paths))
    return arrival_trace(loaded, arrival=arrival, seed=seed, tune=tune, interval=interval, demand=demand,
                         name=name or ",".join(Path(p).stem for p in paths))


def arrival_trace(loaded: LoadedObjects | Sequence[ApiObject], *, arrival: Arrival = "input", seed: int = 0,
                  tune: float | None = None, interval: float = 0.0, demand: Demand | None = None,
                  name: str = "") -> Trace:
    """The generic half of format 3, for any reader that has parsed objects (the openb reader
    hands its own demand notion)."""
    if arrival not in ARRIVALS:
        raise ValueError(f"arrival: must be one of {', '.join(ARRIVALS)}, got {arrival!r}")
    if tune is not None and not tune > 0:
        raise ValueError(f"tune: must be positive, got {tune}")
    if not interval >= 0:
        raise ValueError(f"interval: must be a non-negative number of seconds, got {interval}")
    objects = loaded.objects if isinstance(loaded, LoadedObjects) else list(loaded)
    arriving = [o for o in objects if isinstance(o, Pod) and not o.node_name and not o.is_terminal]
    ids = {id(p) for p in arriving}
    cluster = [o.raw for o in objects if id(o) not in ids]
    demand = demand if demand is not None else DEFAULT_DEMAND
    target = None
    if tune is not None:
        target = tune * demand.capacity(o for o in objects if isinstance(o, Node))
        if target > 0 and sum(demand.of_pod(p) for p in arriving) <= 0:
            raise ValueError(f"tune: the snapshot's pending pods request no {demand.name}: no amount "
                             "of them reaches a demand target")
    return Trace(cluster=cluster, events=_Arrivals(arriving, arrival, seed, target, interval, demand),
                 name=name, demand=demand)


class _Arrivals:
    """The create events, generated again on each iteration (same seed, same order)."""

    def __init__(self, pods: list[Pod], arrival: Arrival, seed: int, target: float | None,
                 interval: float, demand: Demand) -> None:
        self.pods, self.arrival, self.seed = pods, arrival, seed
        self.target, self.interval, self.demand = target, interval, demand

    def __iter__(self) -> Iterator[TraceEvent]:
        """The pods once (shuffled or not), then, while short of the target, copies of pods
        drawn at random with replacement; none once the target is reached."""
        rng = random.Random(self.seed)
        demand, target = self.demand, self.target
        order = list(self.pods)
        if self.arrival == "shuffled":
            rng.shuffle(order)
        copies: dict[str, int] = {}
        arrived = 0.0
        i = 0
        while True:
            if target is not None and arrived >= target:
                return
            if i < len(order):
                pod = order[i]
                raw: Any = pod.raw
            elif target is None or not order:
                return
            else:
                pod = rng.choice(order)
                k = copies[pod.key] = copies.get(pod.key, 0) + 1
                raw = _renamed(pod.raw, f"{pod.name}-{k}")
            arrived += demand.of_pod(pod)
            yield TraceEvent(i * self.interval, "create", obj=raw, source=f"arrival {i + 1} ({pod.key})")
            i += 1


def _renamed(raw: Any, name: str) -> dict[str, Any]:
    md = {k: v for k, v in (raw.get("metadata") or {}).items() if k not in ("uid", "resourceVersion")}
    md["name"] = name
    return {**raw, "metadata": md}
