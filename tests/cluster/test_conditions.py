"""Pod condition upserts (podutil.UpdatePodCondition): several at once equal one after another."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from kubesched.api import format_time
from kubesched.cluster import update_pod_condition
from kubesched.cluster._conditions import update_pod_conditions

_T0, _T1 = 100.0, 200.0
_SCHEDULED_FALSE = {"type": "PodScheduled", "status": "False", "reason": "Unschedulable",
                    "lastTransitionTime": format_time(_T0)}


@pytest.mark.parametrize(
    ("existing", "updates", "changed"),
    [
        pytest.param([], [{"type": "PodScheduled", "status": "True"}], True, id="append"),
        pytest.param([_SCHEDULED_FALSE], [{"type": "PodScheduled", "status": "True"},
                                          {"type": "Ready", "status": "True"}], True, id="flip-and-append"),
        pytest.param([_SCHEDULED_FALSE], [{"type": "PodScheduled", "status": "False",
                                           "reason": "Unschedulable"}], False, id="unchanged-keeps-time"),
        pytest.param([_SCHEDULED_FALSE], [{"type": "PodScheduled", "status": "False",
                                           "reason": "Unschedulable", "message": "0/3 nodes"}], True,
                     id="new-message-keeps-time"),
        pytest.param([], [{"type": "Ready", "status": "False"}, {"type": "Ready", "status": "True"}], True,
                     id="same-type-twice"),
        pytest.param([_SCHEDULED_FALSE], [], False, id="nothing"),
    ],
)
def test_update_pod_conditions_equals_one_at_a_time(existing: list[dict[str, Any]],
                                                    updates: list[dict[str, Any]], changed: bool) -> None:
    before = copy.deepcopy(existing)
    want, want_changed = [dict(c) for c in existing], False
    for u in updates:
        want, ch = update_pod_condition(want, u, _T1)
        want_changed = want_changed or ch
    got, got_changed = update_pod_conditions(existing, updates, _T1)
    assert (got, got_changed) == (want, want_changed)
    assert got_changed == changed
    assert existing == before  # the input is not edited
