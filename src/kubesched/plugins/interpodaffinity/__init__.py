"""InterPodAffinity (pkg/scheduler/framework/plugins/interpodaffinity)."""

from ._args import InterPodAffinityArgs
from .filtering import (
    ERR_REASON_AFFINITY_RULES_NOT_MATCH,
    ERR_REASON_ANTI_AFFINITY_RULES_NOT_MATCH,
    ERR_REASON_EXISTING_ANTI_AFFINITY_RULES_NOT_MATCH,
)
from .plugin import InterPodAffinity

Args = InterPodAffinityArgs

__all__ = [
    "ERR_REASON_AFFINITY_RULES_NOT_MATCH",
    "ERR_REASON_ANTI_AFFINITY_RULES_NOT_MATCH",
    "ERR_REASON_EXISTING_ANTI_AFFINITY_RULES_NOT_MATCH",
    "Args",
    "InterPodAffinity",
    "InterPodAffinityArgs",
]
