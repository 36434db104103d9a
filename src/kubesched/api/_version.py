"""KubeVersion: the Kubernetes release whose scheduler kubesched behaves as.

A release is a major.minor pair, parsed as component-base's ``version.ParseGeneric`` accepts a
release string (``1.35``, ``v1.35.4``, ``1.36.0-alpha.1``: the patch and pre-release parts do
not change scheduling behaviour, so they are dropped). Behavioural differences between releases
are small named switches next to the code they change, each asking ``version < KubeVersion(1,
36)``-style questions of this value; feature-gate defaults per release are upstream's versioned
feature specs (``defaultVersionedKubernetesFeatureGates``), read with :meth:`at_least`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Final

__all__ = ["NEWEST_KUBE_VERSION", "OLDEST_KUBE_VERSION", "KubeVersion"]

_PATTERN: Final = re.compile(r"^v?(\d+)\.(\d+)(?:\.(\d+))?(?:[-+][0-9A-Za-z.+-]*)?$")


@dataclass(frozen=True, slots=True, order=True)
class KubeVersion:
    """A Kubernetes minor release (``1.35``); ordered as releases are."""

    major: int
    minor: int

    @staticmethod
    def parse(text: str) -> KubeVersion:
        """``"1.35"``, ``"v1.35.4"`` or ``"1.36.0-alpha.1"`` -> KubeVersion(1, 35); ValueError
        (saying what is accepted) otherwise."""
        m = _PATTERN.match(text.strip())
        if m is None:
            raise ValueError(f'invalid Kubernetes version "{text}": want MAJOR.MINOR, e.g. 1.35 or v1.35.4')
        return KubeVersion(int(m.group(1)), int(m.group(2)))

    def supported(self) -> bool:
        """Within the releases kubesched can behave as (:data:`OLDEST_KUBE_VERSION` to
        :data:`NEWEST_KUBE_VERSION`)."""
        return OLDEST_KUBE_VERSION <= self <= NEWEST_KUBE_VERSION

    def __str__(self) -> str:
        return f"{self.major}.{self.minor}"


OLDEST_KUBE_VERSION: Final = KubeVersion(1, 32)
"""The oldest release kubesched can behave as."""

NEWEST_KUBE_VERSION: Final = KubeVersion(1, 37)
"""Upstream master (2026, the 1.37 line): the default."""
