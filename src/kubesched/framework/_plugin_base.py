"""PluginBase: the small base class every in-tree plugin derives from.

It derives ``name()`` from ``NAME``, supplies the batch methods as loops over the per-node ones
(the path out-of-tree plugins get for free), and a default event registration (all events) for
plugins that do not narrow it, as upstream's framework does for plugins without
EnqueueExtensions. In-tree plugins override only what upstream's plugins implement.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, ClassVar, Self

import numpy as np
import numpy.typing as npt

from ._batch import BatchFilterResult, NodeBatch
from ._cycle_state import CycleState
from ._events import ActionType, ClusterEvent, ClusterEventWithHint, EventResource
from ._interface import FilterInputs, FilterPlugin, PreFilterExtensions, ScoreExtensions, ScorePlugin
from ._status import Code, Status

if TYPE_CHECKING:
    from ..api import Pod
    from ._handle import Handle

__all__ = ["ArgsError", "PluginArgs", "PluginBase"]


class ArgsError(ValueError):
    """Invalid plugin args; the message names the field path (e.g. ``scoringStrategy.type``)."""


def _camel(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(p[:1].upper() + p[1:] for p in rest)


def _snake(name: str) -> str:
    return re.sub(r"(?<!^)(?=[A-Z])", "_", name).lower()


@dataclasses.dataclass(frozen=True, kw_only=True)
class PluginArgs:
    """Base for a plugin's args (``pluginConfig[].args``). Field defaults equal upstream's v1
    defaults; ``from_dict`` maps camelCase keys to fields and rejects unknown ones (strict
    decoding, as kube-scheduler); ``validate`` raises :class:`ArgsError` naming the field."""

    @classmethod
    def from_dict(cls, d: Mapping[str, Any] | None) -> Self:
        d = dict(d or {})
        d.pop("apiVersion", None)
        d.pop("kind", None)
        fields = {f.name: f for f in dataclasses.fields(cls)}
        kwargs: dict[str, Any] = {}
        for key, val in d.items():
            fname = _snake(key)
            if fname not in fields:
                raise ArgsError(f"{key}: unknown field")
            kwargs[fname] = cls.decode_field(fname, val)
        try:
            obj = cls(**kwargs)
        except TypeError as exc:
            raise ArgsError(str(exc)) from exc
        obj.validate()
        return obj

    @classmethod
    def decode_field(cls, name: str, value: Any) -> Any:
        """Hook for nested fields; plain values pass through."""
        return value

    def validate(self) -> None:
        return None

    def to_dict(self) -> dict[str, Any]:
        def enc(v: Any) -> Any:
            if dataclasses.is_dataclass(v) and not isinstance(v, type):
                return {_camel(k): enc(x) for k, x in dataclasses.asdict(v).items()}
            if isinstance(v, tuple | list):
                return [enc(x) for x in v]
            return v

        return {_camel(f.name): enc(getattr(self, f.name)) for f in dataclasses.fields(self)}


class PluginBase:
    NAME: ClassVar[str] = ""
    Args: ClassVar[type[PluginArgs] | None] = None
    FILTER_INPUTS: ClassVar[FilterInputs] = FilterInputs.ANY
    """What ``filter`` reads (see :class:`~kubesched.framework.FilterInputs`): a plugin that
    states less than ``ANY`` lets the batch fast paths decide nodes without copying them."""

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if not cls.NAME:
            raise TypeError(f"{cls.__name__} must set NAME")

    def __init__(self, args: PluginArgs | None = None, handle: Handle | None = None) -> None:
        """Type-check and validate the args once, as upstream's ``New`` functions do
        (``want args to be of type X, got Y``); no args means the v1 defaults."""
        if self.Args is not None:
            if args is None:
                args = self.Args()
            elif not isinstance(args, self.Args):
                raise TypeError(f"want args to be of type {self.Args.__name__}, got {type(args).__name__}")
            args.validate()
        self.args = args
        self.handle = handle

    def error_status(self, err: BaseException) -> Status:
        """An Error status for ``err`` stamped with this plugin's name (AsStatus + WithPlugin)."""
        return Status.from_error(err).with_plugin(self.NAME)

    def name(self) -> str:
        return self.NAME

    def pre_filter_extensions(self) -> PreFilterExtensions | None:
        return None

    def score_extensions(self) -> ScoreExtensions | None:
        return None

    def events_to_register(self) -> list[ClusterEventWithHint]:
        """Default: every event may help (upstream's behaviour for plugins without
        EnqueueExtensions)."""
        return [ClusterEventWithHint(ClusterEvent(EventResource.WILDCARD, ActionType.ALL))]

    # -- batch fallbacks: loop the per-node methods ---------------------------------------
    def filter_batch(self, state: CycleState, pod: Pod, nodes: NodeBatch) -> BatchFilterResult:
        if not isinstance(self, FilterPlugin):
            return BatchFilterResult.all_success(len(nodes))
        return BatchFilterResult.from_statuses([self.filter(state, pod, ni) for ni in nodes.node_infos()])

    def score_batch(self, state: CycleState, pod: Pod,
                    nodes: NodeBatch) -> tuple[npt.NDArray[np.int64], Status | None]:
        if not isinstance(self, ScorePlugin):
            raise TypeError(f"{self.NAME} has no score method")
        out = np.zeros(len(nodes), dtype=np.int64)
        for i, ni in enumerate(nodes.node_infos()):
            s, st = self.score(state, pod, ni)
            if st is not None and st.code != Code.SUCCESS:
                return out, st.with_plugin(self.NAME)
            out[i] = s
        return out, None
