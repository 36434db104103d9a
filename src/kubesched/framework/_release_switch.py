"""ReleaseSwitch: one behaviour that changed between Kubernetes releases.

kubesched follows upstream master; ``--kube-version`` makes it behave as an older release. Each
difference is one named switch declared next to the code it changes, saying since which release
the newer behaviour holds and which upstream PR made the change, so that a reader of that code
sees the old rule beside the new one and docs/releases.md's table of switches can be checked against
the code. There is no copy of a plugin per release: the plugin asks its switch, with the
release from its handle, once when it is built.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ..api import KubeVersion
    from ._handle import Handle

__all__ = ["ReleaseSwitch"]


@dataclass(frozen=True, slots=True)
class ReleaseSwitch:
    """The newer behaviour holds from release ``since`` on (kubernetes PR ``pr``); ``what``
    says in a line what changed."""

    name: str
    since: KubeVersion
    pr: int
    what: str

    def on(self, version: KubeVersion) -> bool:
        """The newer behaviour, in ``version``."""
        return version >= self.since

    def on_for(self, handle: Handle | None) -> bool:
        """The newer behaviour for a plugin built with ``handle`` (no handle: the newest
        release, as a plugin built outside a framework in tests)."""
        return handle is None or self.on(handle.kube_version)

    @property
    def url(self) -> str:
        return f"https://github.com/kubernetes/kubernetes/pull/{self.pr}"
