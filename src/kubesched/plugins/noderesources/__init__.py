"""NodeResourcesFit and NodeResourcesBalancedAllocation (upstream package ``noderesources``)."""

from ._args import (
    NodeResourcesBalancedAllocationArgs,
    NodeResourcesFitArgs,
    RequestedToCapacityRatioParam,
    ResourceSpec,
    ScoringStrategy,
    UtilizationShapePoint,
)
from .balanced_allocation import BalancedAllocation
from .fit import Fit, InsufficientResource, fits

__all__ = [
    "BalancedAllocation",
    "Fit",
    "InsufficientResource",
    "NodeResourcesBalancedAllocationArgs",
    "NodeResourcesFitArgs",
    "RequestedToCapacityRatioParam",
    "ResourceSpec",
    "ScoringStrategy",
    "UtilizationShapePoint",
    "fits",
]
