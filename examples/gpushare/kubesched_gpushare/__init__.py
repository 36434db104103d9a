"""The FGD paper's GPU-sharing model and its six scheduling policies as kubesched plugins.

``GpuShare`` (Filter, Reserve) is the GPU-share model; the policies are Score plugins:
``RandomScore``, ``DotProductScore``, ``GpuClusteringScore``, ``GpuPackingScore``,
``BestFitScore`` and ``FGDScore``. See README.md beside this package.
"""

from .best_fit import BestFitScore
from .dot_product import DotProductScore
from .fgd import FGDScore
from .gpu_clustering import GpuClusteringScore
from .gpu_packing import GpuPackingScore
from .gpushare import GpuShare
from .name_order import NameOrderCoarse, NameOrderFine
from .random_score import RandomScore

__all__ = [
    "BestFitScore",
    "DotProductScore",
    "FGDScore",
    "GpuClusteringScore",
    "GpuPackingScore",
    "GpuShare",
    "NameOrderCoarse",
    "NameOrderFine",
    "RandomScore",
]
