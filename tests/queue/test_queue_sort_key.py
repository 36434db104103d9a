"""The optional sort key orders every heap exactly as the less function does."""

from __future__ import annotations

import random

import pytest
from queue_helpers import NODE_ADD, make_pod, new_queue, priority_key

from kubesched.clock import VirtualClock
from kubesched.queue import PriorityQueue


def _run(seed: int, use_key: bool, pop_from_backoff_q: bool) -> list[tuple[float, str]]:
    rng = random.Random(seed)
    clock = VirtualClock()
    q: PriorityQueue = new_queue(clock, pop_from_backoff_q=pop_from_backoff_q,
                                 sort_key=priority_key if use_key else None)
    q.start()
    trace: list[tuple[float, str]] = []
    for i in range(40):
        q.add(make_pod(f"p{i}", rng.randrange(3)))
        clock.advance(rng.choice([0.0, 0.25, 0.5]))
    for _ in range(300):
        action = rng.random()
        if action < 0.6:
            p = q.pop()
            if p is None:
                if not clock.step():
                    break
                continue
            trace.append((clock.now, p.pod.name))
            if rng.random() < 0.7:
                p.unschedulable_plugins = {"fooPlugin"} if rng.random() < 0.8 else set()
                q.add_unschedulable_if_not_present(p, q.scheduling_cycle)
            else:
                q.done(p.pod.uid)
        elif action < 0.8:
            q.move_all_to_active_or_backoff_queue(NODE_ADD, None, None)
        else:
            clock.advance(rng.choice([0.3, 1.0, 2.5]))
    return trace


@pytest.mark.parametrize("pop_from_backoff_q", [True, False])
@pytest.mark.parametrize("seed", range(8))
def test_sort_key_and_less_agree(seed: int, pop_from_backoff_q: bool) -> None:
    with_less = _run(seed, False, pop_from_backoff_q)
    assert len(with_less) > 40
    assert _run(seed, True, pop_from_backoff_q) == with_less
