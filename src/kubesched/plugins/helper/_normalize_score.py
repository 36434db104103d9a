"""DefaultNormalizeScore.

Mirrors pkg/scheduler/framework/plugins/helper/normalize_score.go (master 2026): scale scores
so the highest becomes ``max_priority`` (integer math, truncating), optionally reversed. When
every score is 0 (or below), scores stay as they are, except with ``reverse`` where they all
become ``max_priority``: a node with nothing "bad" is as good as it gets.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from ._gomath import go_div_array

__all__ = ["default_normalize_score"]


def default_normalize_score(max_priority: int, reverse: bool, scores: npt.NDArray[np.int64]) -> None:
    """Normalize ``scores`` in place (an int64 array, one entry per node)."""
    if scores.size == 0:
        return
    max_count = max(int(np.maximum.reduce(scores)), 0)  # upstream starts maxCount at 0
    if max_count == 0:
        if reverse:
            scores[:] = max_priority
        return
    out = go_div_array(np.int64(max_priority) * scores, max_count)
    if reverse:
        out = max_priority - out
    scores[:] = out
