"""The simulated kubelet's last word: pods that run to completion.

A Job's pods finish; in a simulation something must say when. A pod annotated
``kubesched.io/run-seconds: "N"`` (set it in the pod template) whose restartPolicy is not
``Always`` is marked ``Succeeded`` N seconds of virtual time after it started (its
``status.startTime``, which the simulated kubelet sets on binding): phase Succeeded, Ready and
ContainersReady False with reason ``PodCompleted``, as the kubelet's status manager writes them.
The scheduler's informer then drops the finished pod from its cache, freeing its requests, and
the Job controller counts a completion. A value that is not a non-negative number is ignored
(the pod runs for ever, as without the annotation).
"""

from __future__ import annotations

import math
from typing import Any, Final

from ..api import Pod
from ..clock import Clock, Timer
from ..cluster import Store

__all__ = ["RUN_SECONDS_ANNOTATION", "PodRunner", "run_seconds"]

RUN_SECONDS_ANNOTATION: Final = "kubesched.io/run-seconds"


def run_seconds(pod: Pod) -> float | None:
    """The pod's run time, when it has a valid one and may finish (restartPolicy not Always)."""
    text = pod.meta.annotations.get(RUN_SECONDS_ANNOTATION)
    if text is None:
        return None
    if ((pod.raw.get("spec") or {}).get("restartPolicy") or "Always") == "Always":
        return None
    try:
        secs = float(text)
    except ValueError:
        return None
    return secs if math.isfinite(secs) and secs >= 0 else None


class PodRunner:
    def __init__(self, store: Store, clock: Clock) -> None:
        self.store = store
        self.clock = clock
        self._timers: dict[str, Timer] = {}

    def observe(self, pod: Pod) -> None:
        """Start the countdown of a running pod with a run time (once per pod)."""
        if pod.phase != "Running" or not pod.node_name or pod.uid in self._timers:
            return
        secs = run_seconds(pod)
        if secs is None:
            return
        started = pod.start_time if pod.start_time is not None else self.clock.now
        delay = max(0.0, started + secs - self.clock.now)
        ns, name, uid = pod.namespace, pod.name, pod.uid
        self._timers[uid] = self.clock.schedule(delay, lambda: self._complete(ns, name, uid))

    def next_due(self) -> float:
        """When the next pod finishes (``math.inf`` when none will)."""
        due = [t.when for t in self._timers.values() if not t.cancelled]
        return min(due, default=math.inf)

    def _complete(self, namespace: str, name: str, uid: str) -> None:
        timer = self._timers.pop(uid, None)  # done: no longer due, nor held (long replays)
        if timer is not None:
            timer.cancelled = True
        pod = self.store.try_get("Pod", namespace, name)
        if pod is None or pod.uid != uid or pod.is_terminal:
            return
        conditions: list[Any] = []
        for c in pod.conditions:
            c = dict(c)
            if c.get("type") in ("Ready", "ContainersReady"):
                c.update(status="False", reason="PodCompleted")
            conditions.append(c)
        self.store.update(pod.with_changes({("status", "phase"): "Succeeded",
                                            ("status", "conditions"): conditions}))
