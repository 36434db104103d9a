"""What-if: manifests typed in the page, added on top of the inputs (or replacing the input's
object of the same kind, namespace and name: an edit), simulated, and compared with the
simulation of the inputs alone.

Nothing here schedules: the text goes through the loader ``kubesched validate`` uses
(:func:`kubesched.api.loader.load_documents`), the objects through the same admission (the
:class:`~kubesched.simulator.Simulator`'s store), and both runs are
:meth:`Simulator.run <kubesched.simulator.Simulator.run>`'s. What this module adds is the overlay
and the difference: per pod, where it went without and with the change.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final

from ..api import ExcessiveAliasing
from ..api.loader import LoadedObjects, LoadError, kind_of, load_documents
from ..cluster import StoreError
from ..framework import FrameworkBuildError
from ..simulator import PodOutcome, ProgressFn, Simulation, Simulator
from ._locate import Problem, line_of_message, yaml_error_line
from ._problems import InputProblems

__all__ = ["WHATIF_SOURCE", "PlacementChange", "WhatIf", "diff_placements", "overlay", "parse_manifests",
           "prepare", "run_progress", "run_whatif"]

WHATIF_SOURCE: Final = "what-if.yaml"
"""The name the editor's text goes by in messages, as a file's name would."""

_OBJECT: Final = re.compile(r"^[^(]*\((\w+ [^()]*)\):")


@dataclass(frozen=True, slots=True)
class PlacementChange:
    """One pod whose outcome differs: ``before`` is None for a pod only the what-if has (added,
    or created by an added workload), ``after`` None for one it no longer has."""

    pod: str
    before: PodOutcome | None
    after: PodOutcome | None

    @property
    def change(self) -> str:
        """``added``, ``removed``, ``moved`` (another node), ``placed`` (was left without a node),
        ``unplaced`` (now left without one), or ``status`` (same node, another status)."""
        b, a = self.before, self.after
        if b is None:
            return "added"
        if a is None:
            return "removed"
        if b.node and a.node:
            return "moved" if b.node != a.node else "status"
        if a.node:
            return "placed"
        return "unplaced" if b.node else "status"

    def to_dict(self) -> dict[str, Any]:
        return {"pod": self.pod, "change": self.change, "before": _outcome(self.before),
                "after": _outcome(self.after)}


def _outcome(o: PodOutcome | None) -> dict[str, Any] | None:
    if o is None:
        return None
    return {"node": o.node or None, "status": o.status, "message": o.message}


@dataclass(slots=True)
class WhatIf:
    """The what-if's run against the inputs' run: the objects added and replaced (``Kind
    namespace/name``), every pod whose outcome changed, and the pending counts of both."""

    added: list[str]
    replaced: list[str]
    changes: list[PlacementChange]
    before: Simulation
    after: Simulation
    objects: LoadedObjects
    """What the what-if simulated: the inputs with the text on top."""

    def to_dict(self) -> dict[str, Any]:
        return {
            "added": self.added, "replaced": self.replaced,
            "changes": [c.to_dict() for c in self.changes],
            "pending": {"before": len(self.before.unplaced()), "after": len(self.after.unplaced())},
            "scheduled": {"before": len(self.before.scheduled()), "after": len(self.after.scheduled())},
            "pods": len(self.after.pods),
        }


def parse_manifests(text: str, *, source: str = WHATIF_SOURCE, strict: bool = False) -> LoadedObjects:
    """The editor's manifests through the loader; InputProblems (with the line) when refused, a
    ValueError (the message alone) for an alias bomb."""
    try:
        return load_documents(text, source, strict=strict)
    except LoadError as exc:
        if isinstance(exc.__cause__, ExcessiveAliasing):  # refused whole (a 400), not on a line
            raise ValueError(str(exc)) from None
        line = yaml_error_line(exc.__cause__)
        raise InputProblems("manifests", [_problem(text, str(exc), line)]) from exc


def _problem(text: str, message: str, line: int | None = None) -> Problem:
    """A loader or admission message with its line (when it is about the editor's text) and the
    object it names (both write ``WHERE (Kind namespace/name): why``)."""
    m = _OBJECT.match(message)
    if line is None and message.startswith(WHATIF_SOURCE):
        line = line_of_message(text, message)
    return Problem(message, line, m[1] if m else "")


def overlay(base: LoadedObjects, added: LoadedObjects) -> tuple[LoadedObjects, list[str], list[str]]:
    """``base`` with ``added`` on top: an object of a kind, namespace and name the base has
    replaces it in place (an edit), any other is appended. Returns the objects and the
    ``Kind namespace/name`` of those added and of those replaced."""
    by_key = {(kind_of(o), o.meta.namespace, o.meta.name): o for o in added.objects}
    out = LoadedObjects(skipped=dict(base.skipped))
    replaced: list[str] = []
    for obj in base.objects:
        key = (kind_of(obj), obj.meta.namespace, obj.meta.name)
        new = by_key.pop(key, None)
        if new is not None:
            out.add(new, added.origins.get(key, ""))
            replaced.append(_name(new))
        else:
            out.add(obj, base.origins.get(key, ""))
    for key, obj in by_key.items():
        out.add(obj, added.origins.get(key, ""))
    return out, [_name(o) for o in by_key.values()], replaced


def with_manifests(base: LoadedObjects, text: str, *,
                   strict: bool = False) -> tuple[LoadedObjects, list[str], list[str]]:
    """:func:`overlay` of the editor's text (none: ``base`` as it is) on ``base``; InputProblems
    when the loader refuses the text (a duplicate inside it included: the base has none, and an
    object of the text replaces the base's). ``strict``: as ``--strict`` (an object of a kind
    the scheduler does not read is refused, not skipped)."""
    return overlay(base, parse_manifests(text, strict=strict) if text.strip() else LoadedObjects())


def _name(obj: Any) -> str:
    return f"{kind_of(obj)} {obj.meta.key}"


def prepare(loaded: LoadedObjects, text: str, config: Any = None, seed: int = 0,
            features: Mapping[str, bool] | None = None) -> Simulator:
    """A simulator of ``loaded`` (admitted as ``validate`` and ``simulate`` admit); an admission
    error becomes InputProblems about ``text``'s line when it names the editor, a profile the
    framework cannot build one about the configuration."""
    try:
        return Simulator(loaded, config, seed, features)
    except FrameworkBuildError as exc:  # the configuration's profiles cannot be built
        raise InputProblems("configuration", [Problem(str(exc))]) from exc
    except (StoreError, ValueError) as exc:
        raise InputProblems("manifests", [_problem(text, str(exc))]) from exc


def diff_placements(before: Sequence[PodOutcome], after: Sequence[PodOutcome]) -> list[PlacementChange]:
    """The pods whose node or status differs between two runs, by pod name."""
    a = {p.pod: p for p in after}
    b = {p.pod: p for p in before}
    out = []
    for key in sorted(set(a) | set(b)):
        old, new = b.get(key), a.get(key)
        if old is None or new is None or (old.node, old.status) != (new.node, new.status):
            out.append(PlacementChange(key, old, new))
    return out


_SAME: Final[Any] = object()


def run_progress(progress: Callable[[int, int, int], None] | None, run: int) -> ProgressFn | None:
    """``progress`` (run, done, total) as one run's :data:`~kubesched.simulator.ProgressFn`."""
    if progress is None:
        return None
    return lambda done, total: progress(run, done, total)


def run_whatif(base: LoadedObjects, text: str, *, config: Any = None, base_config: Any = _SAME,
               seed: int = 0, features: Mapping[str, bool] | None = None,
               before: Simulation | None = None, strict: bool = False,
               progress: Callable[[int, int, int], None] | None = None) -> WhatIf:
    """Simulate ``base`` with the editor's ``text`` on top under ``config`` and compare it with
    ``base`` alone under ``base_config`` (default: ``config`` too; the page passes the
    configuration ``kubesched ui`` started with, so that an edited configuration shows what it
    changes). ``before``: that run, when the caller has it already. Raises InputProblems,
    nothing run, when the text or the result is refused. ``strict``: as ``--strict``.
    ``progress(run, done, total)``: each run's pods placed (run 0 the what-if's; 1 the inputs'
    alone, when not given as ``before``)."""
    loaded, new, replaced = with_manifests(base, text, strict=strict)
    after_sim = prepare(loaded, text, config, seed, features)
    after = after_sim.run(run_progress(progress, 0))
    if before is None:
        before = Simulator(base, config if base_config is _SAME else base_config, seed,
                           features).run(run_progress(progress, 1))
    return WhatIf(new, replaced, diff_placements(before.pods, after.pods), before, after, loaded)
