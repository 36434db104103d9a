"""End-to-end invariants of the whole scheduler on random small clusters.

Each example is a generated cluster (``_gen.clusters``) simulated to the end by the public
Scheduler on a MemoryStore and a VirtualClock (``run_simulation``, what ``kubesched simulate``
runs); the final state is then checked against rules upstream kube-scheduler guarantees. The
examples are derandomized and few, so the suite is deterministic and quick.
"""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kubesched.api.loader import load_documents
from kubesched.cli._report import dump_yaml, state_manifests
from kubesched.scheduler import Scheduler, SchedulerOptions, explain
from kubesched.simulator import Simulation, Simulator

from ._checks import (
    check_capacity,
    check_filters,
    check_pending,
    check_pod_affinity,
    check_preemptions,
    check_topology_spread,
    outcome_signature,
)
from ._gen import ClusterSpec, clusters

FUZZ = settings(max_examples=20, derandomize=True, deadline=None, database=None,
                suppress_health_check=list(HealthCheck), print_blob=False)
SMALL = settings(FUZZ, max_examples=8)


def _simulate(spec: ClusterSpec, seed: int = 0, options: SchedulerOptions | None = None) -> Simulation:
    simulator = Simulator(spec.loaded(), seed=seed)
    if options is not None:
        # Rebuild the scheduler with the options on the same admitted store.
        simulator.sched.close()
        simulator.sched = Scheduler(simulator.store, simulator.clock, None, seed=seed, options=options)
    return simulator.run()


def _check_all(spec: ClusterSpec, seed: int) -> None:
    simulator = Simulator(spec.loaded(), seed=seed)
    initial = list(simulator.initial)
    sim = simulator.run()
    problems = (check_capacity(sim, initial) + check_filters(sim) + check_pending(sim)
                + check_preemptions(sim, initial) + check_pod_affinity(sim)
                + check_topology_spread(sim, initial))
    assert not problems, "\n".join(problems)


@FUZZ
@given(clusters())
def test_final_state_invariants(spec: ClusterSpec) -> None:
    _check_all(spec, 7)


@SMALL
@given(clusters(max_nodes=4, max_bound=10, max_pending=12))
def test_final_state_invariants_contended(spec: ClusterSpec) -> None:
    """Few small nodes and many pods: preemption and PDBs at work."""
    _check_all(spec, 11)


@SMALL
@given(clusters(max_nodes=8, max_pending=8))
def test_same_seed_same_outcome(spec: ClusterSpec) -> None:
    assert outcome_signature(_simulate(spec, 3)) == outcome_signature(_simulate(spec, 3))


@SMALL
@given(clusters(max_nodes=8, max_pending=8))
def test_batch_and_per_node_filters_agree(spec: ClusterSpec) -> None:
    batch = _simulate(spec, 5)
    per_node = _simulate(spec, 5, SchedulerOptions(per_node_filters=True))
    assert outcome_signature(batch) == outcome_signature(per_node)


@SMALL
@given(clusters(max_nodes=8, max_pending=8))
def test_yaml_round_trip_schedules_nothing(spec: ClusterSpec) -> None:
    first = _simulate(spec)
    text = dump_yaml(state_manifests(first))
    second = Simulator(load_documents(text, "state.yaml")).run()
    assert second.count("Scheduled") == 0
    assert second.preemptions == []
    assert dump_yaml(state_manifests(second)) == text


@SMALL
@given(clusters(max_nodes=8, max_pending=8), st.integers(0, 1000))
def test_explain_agrees_with_the_first_cycle(spec: ClusterSpec, seed: int) -> None:
    """explain's verdict for a pod is what the scheduler's first cycle decides for it: the
    same node (same seed), or the same aggregated failure message."""
    loaded = spec.loaded()
    simulator = Simulator(loaded, seed=seed)
    simulator.sched.schedule_one()
    simulator.clock.run(until=simulator.clock.now)  # the binding cycle, due now
    events = [e for e in simulator.store.events() if e.reason in ("Scheduled", "FailedScheduling")]
    simulator.sched.close()
    assert len(events) <= 1, events
    if not events:
        return
    ev = events[0]
    x = explain(loaded.objects, ev.involved_namespace, ev.involved_name, seed=seed, now=simulator.start)
    if ev.reason == "Scheduled":
        assert ev.message.endswith(f" to {x.selected_node}"), (ev.message, x.selected_node)
    else:
        assert x.selected_node is None and ev.message.startswith(x.message), (ev.message, x.message)
