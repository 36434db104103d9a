"""Store events -> cache and queue (eventhandlers.go): which events move which parked pods."""

from __future__ import annotations

from kubesched.api import Node

from .env import Env
from .test_schedule_one import _node, _pod


def _parked(env: Env) -> list[str]:
    return [p.name for p in env.sched.queue.unschedulable_pods()]


def test_assigned_pod_deletion_requeues_pods_rejected_for_resources() -> None:
    env = Env().add(_node("n0", cpu="1"), _pod("a"))
    env.run()
    env.add(_pod("p"))
    env.run()
    assert _parked(env) == ["p"]
    env.store.delete("Pod", "default", "a", grace_period_seconds=0)
    assert _parked(env) == []
    env.run()
    assert env.node_of("p") == "n0"


def test_pod_bound_by_someone_else_leaves_the_queue() -> None:
    env = Env().add(_node("n0", cpu="1"), _pod("p", cpu="2"))
    env.run()
    assert _parked(env) == ["p"]
    env.store.bind("default", "p", "n0")
    assert env.sched.queue.pending_pods()[0] == []
    assert env.sched.cache.get_pod(env.pod("p")).node_name == "n0"


def _update_node(env: Env, name: str, edit: dict[str, object]) -> None:
    d = env.store.get("Node", "", name).to_dict()
    d["spec"].update(edit)
    env.store.update(Node.from_dict(d))


def test_node_taint_removal_moves_pod_but_label_change_does_not() -> None:
    env = Env().add(_node("n0").taint("dedicated", "x"), _pod("p"))
    env.run()
    assert _parked(env) == ["p"]
    d = env.store.get("Node", "", "n0").to_dict()
    d["metadata"].setdefault("labels", {})["color"] = "blue"
    env.store.update(Node.from_dict(d))
    assert _parked(env) == ["p"]  # UpdateNodeLabel: TaintToleration does not care
    _update_node(env, "n0", {"taints": []})
    assert _parked(env) == []  # UpdateNodeTaint
    env.run()
    assert env.node_of("p") == "n0"


def test_node_becoming_schedulable_moves_pod() -> None:
    env = Env().add(_node("n0").unschedulable(), _pod("p"))
    env.run()
    assert _parked(env) == ["p"]
    _update_node(env, "n0", {"unschedulable": False})
    env.run()
    assert env.node_of("p") == "n0"
