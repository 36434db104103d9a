"""What the controllers share: the store they act on, the clock, the seeded generator for
random name suffixes, and the record of what they created (``simulate`` reports it)."""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from ..api import kind_of
from ..api.loader import ApiObject
from ..clock import Clock
from ..cluster import NotFound, Store
from ._names import generate_name

__all__ = ["Context"]


@dataclass
class Context:
    store: Store
    rng: random.Random
    clock: Clock
    created: list[ApiObject] = field(default_factory=list)
    requeue: Callable[[float], None] = field(default=lambda _delay: None)
    features: Mapping[str, bool] = field(default_factory=dict)
    """Feature gates the controllers read (kube-controller-manager's --feature-gates)."""
    """Ask for another reconcile ``delay`` seconds from now (AddAfter on the work queue: a
    StatefulSet waiting for its pod's minReadySeconds)."""

    def create(self, obj: ApiObject) -> Any:
        """Create ``obj`` in the store (admission included) and remember it."""
        out = self.store.create(obj)
        self.created.append(out)
        return out

    def delete(self, obj: ApiObject) -> None:
        """Delete ``obj`` as the controllers' DeletePod does: the store's one deletion path,
        graceful for a running pod (its own terminationGracePeriodSeconds), as a drain's or
        preemption's victims; an object already gone is not an error (IsNotFound)."""
        try:
            self.store.delete(kind_of(obj), obj.meta.namespace, obj.meta.name)
        except NotFound:
            return

    def unique_name(self, kind: str, namespace: str, base: str) -> str:
        """generateName: ``base`` + 5 random characters, drawn again on the (rare) clash the API
        server would answer with AlreadyExists and the controller retry."""
        while True:
            name = generate_name(self.rng, base)
            if self.store.try_get(kind, namespace, name) is None:
                return name

    def created_ids(self) -> set[tuple[str, str, str]]:
        return {(kind_of(o), o.meta.namespace, o.meta.name) for o in self.created}
