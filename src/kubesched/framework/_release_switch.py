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

from ..api import KubeVersion, read_out_of_range_quantities

if TYPE_CHECKING:
    from ._handle import Handle

__all__ = ["QUANTITY_VALUE_SATURATES", "ReleaseSwitch", "read_quantities_as"]


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


QUANTITY_VALUE_SATURATES = ReleaseSwitch(
    "QuantityValueSaturates", KubeVersion(1, 37), 141305,
    "Quantity.Value()/MilliValue() of an amount beyond int64 saturate at the int64 maximum; "
    "before, they wrap (cpu: 1E reads as 0 millicores)")
"""kubernetes PR #141305 (apimachinery, v1.37): how every object's amounts are read, so not a
plugin's switch: :func:`read_quantities_as` sets it for the process before any input is read
(``api.read_out_of_range_quantities`` has both readings)."""


def read_quantities_as(version: KubeVersion) -> None:
    """Read quantities beyond int64 from here on as release ``version``'s apimachinery does
    (:data:`QUANTITY_VALUE_SATURATES`). Process-wide, like the objects' parsed amounts: a
    command calls it once it knows its release, before reading its inputs."""
    read_out_of_range_quantities(QUANTITY_VALUE_SATURATES.on(version))
