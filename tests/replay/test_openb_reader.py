"""read_openb: the openb CSVs as a Trace (sample shipped in tests/fixtures/openb)."""

from __future__ import annotations

from pathlib import Path

import pytest

from kubesched.api.loader import parse_object
from kubesched.replay import GPU_RESOURCE, ReaderOptions, Trace, read_format
from kubesched.replay.openb import (
    GPU_COUNT,
    GPU_MILLI,
    GPU_MODEL,
    OpenbFormatError,
    read_openb,
    read_openb_pods,
)

FIX = Path(__file__).parents[1] / "fixtures" / "openb"
NODES, PODS = FIX / "nodes.csv", FIX / "pods.csv"
HEADER = ("name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,pod_phase,creation_time,deletion_time,"
          "scheduled_time\n")


def test_trace_arrival_nodes_and_pods_as_manifests() -> None:
    trace = read_openb(NODES, PODS)
    assert isinstance(trace, Trace) and trace.name == "openb:pods"
    assert len(trace.cluster) == 12
    node = parse_object(trace.cluster[0])
    assert node.name == "openb-node-0000"
    assert node.capacity[GPU_COUNT] == 2 and node.allocatable[GPU_MILLI] == 2000
    assert node.capacity["cpu"] == 64000 and node.labels[GPU_MODEL] == "P100"
    events = list(trace.events)
    assert [e.time for e in events] == sorted(e.time for e in events)
    creates = [e for e in events if e.op == "create"]
    deletes = [e for e in events if e.op == "delete"]
    assert len(creates) == len(deletes) == 36
    first = parse_object(creates[0].obj)
    assert first.name == "openb-pod-0000" and events[0].time == 0.0
    assert first.meta.annotations == {GPU_MILLI: "1000", GPU_COUNT: "1"}
    assert first.requests["cpu"] == 12000
    assert creates[0].source.endswith("pods.csv:2")


def test_gpu_spec_and_cpu_pods() -> None:
    pods = {p.name: p for p in read_openb_pods(PODS)}
    assert pods["openb-pod-0009"].manifest["metadata"]["annotations"][GPU_MODEL] == "V100M16|V100M32"
    assert pods["openb-pod-0009"].request.spec == "V100M16|V100M32"
    assert "annotations" not in pods["openb-pod-0005"].manifest["metadata"]  # a CPU-only pod
    assert pods["openb-pod-0005"].request.total == 0
    assert pods["openb-pod-0128"].request.total == 8000


def test_deletion_follows_creation_at_equal_times(tmp_path: Path) -> None:
    p = tmp_path / "p.csv"
    p.write_text(HEADER + "b,1000,10,0,0,,BE,Running,5,5,5\na,1000,10,0,0,,BE,Running,5,9,5\n")
    ev = list(read_openb(NODES, p).events)
    assert [(e.op, (e.obj or {}).get("metadata", {}).get("name") or e.ref.name) for e in ev] == [  # type: ignore[union-attr]
        ("create", "a"), ("create", "b"), ("delete", "b"), ("delete", "a")]


def test_shuffled_is_seeded_and_never_deletes() -> None:
    a = list(read_openb(NODES, PODS, seed=1, arrival="shuffled").events)
    b = list(read_openb(NODES, PODS, seed=1, arrival="shuffled").events)
    c = list(read_openb(NODES, PODS, seed=2, arrival="shuffled").events)
    names = [[e.obj["metadata"]["name"] for e in x] for x in (a, b, c)]  # type: ignore[index]
    assert names[0] == names[1] != names[2]
    assert sorted(names[0]) == sorted(p.name for p in read_openb_pods(PODS))
    assert all(e.op == "create" for e in a) and [e.time for e in a] == list(range(len(a)))


def test_shuffled_nodes_ranked_by_seed() -> None:
    """As the simulator: nodes renamed <rank>-<name>, listed by rank, ranks seeded."""
    t1 = read_openb(NODES, PODS, seed=1, arrival="shuffled")
    t2 = read_openb(NODES, PODS, seed=2, arrival="shuffled")
    n1 = [n["metadata"]["name"] for n in t1.cluster]
    assert n1 == sorted(n1) and n1[0].startswith("0000-")
    plain = [n["metadata"]["name"] for n in read_openb(NODES, PODS).cluster]
    assert sorted(x[5:] for x in n1) == sorted(plain)
    assert n1 != [n["metadata"]["name"] for n in t2.cluster]
    assert t1.cluster[0]["metadata"]["labels"]["kubernetes.io/hostname"] == n1[0]


def gpu_capacity() -> int:
    return sum(int(n["status"]["capacity"].get(GPU_MILLI, 0)) for n in read_openb(NODES, PODS).cluster)


def test_tune_up_to_target_gpu_demand() -> None:
    capacity = gpu_capacity()
    pods = [parse_object(e.obj) for e in read_openb(NODES, PODS, seed=3, arrival="shuffled", tune=1.3).events]
    total = sum(int(p.meta.annotations.get(GPU_MILLI, 0)) * int(p.meta.annotations.get(GPU_COUNT, 0))
                for p in pods)
    # as the simulator, a copy is admitted on its milli per GPU, not its total: a multi-GPU copy
    # may overshoot the target, by less than its own request
    ann = pods[-1].meta.annotations
    milli, count = int(ann.get(GPU_MILLI, 0)), int(ann.get(GPU_COUNT, 0))
    assert total - milli * count + milli <= 1.3 * capacity
    assert any("-tuned-" in p.name for p in pods)
    assert len({p.name for p in pods}) == len(pods)


def test_tune_down_drops_pods() -> None:
    capacity = gpu_capacity()
    pods = [parse_object(e.obj) for e in read_openb(NODES, PODS, seed=3, arrival="shuffled", tune=0.1).events]
    total = sum(int(p.meta.annotations.get(GPU_MILLI, 0)) * int(p.meta.annotations.get(GPU_COUNT, 0))
                for p in pods)
    assert total <= 0.1 * capacity and 0 < len(pods) < 36


BAD_ROWS = [
    ("not-int", "x,abc,10,0,0,,BE,Running,0,1,0", "pod x: cpu_milli: not an integer: 'abc'"),
    ("negative", "x,-5,10,0,0,,BE,Running,0,1,0", "pod x: cpu_milli: must be >= 0, got -5"),
    ("milli-over", "x,1000,10,1,1500,,BE,Running,0,1,0", "pod x: gpu_milli: must be in 1..1000"),
    ("gpu-no-milli", "x,1000,10,1,0,,BE,Running,0,1,0", "pod x: gpu_milli: must be in 1..1000"),
    ("milli-no-gpu", "x,1000,10,0,500,,BE,Running,0,1,0", "pod x: gpu_milli: 500 for a pod without GPUs"),
    ("multi-share", "x,1000,10,2,500,,BE,Running,0,1,0", "pod x: gpu_milli: a pod with 2 GPUs takes whole"),
    ("time-order", "x,1000,10,0,0,,BE,Running,9,3,0", "pod x: deletion_time 3 is before creation_time 9"),
    ("no-creation", "x,1000,10,0,0,,BE,Running,,3,0", "pod x: creation_time: empty"),
    ("no-name", ",1000,10,0,0,,BE,Running,0,3,0", "pod (no name): name: empty"),
]


@pytest.mark.parametrize(("row", "message"), [pytest.param(r, m, id=i) for i, r, m in BAD_ROWS])
def test_bad_pod_rows_name_file_line_and_pod(tmp_path: Path, row: str, message: str) -> None:
    p = tmp_path / "pods.csv"
    p.write_text(HEADER + "ok,1000,10,0,0,,BE,Running,0,1,0\n" + row + "\n")
    with pytest.raises(OpenbFormatError) as err:
        read_openb(NODES, p)
    assert f"{p}:3: {message}" in str(err.value)


def test_every_bad_row_is_reported(tmp_path: Path) -> None:
    p = tmp_path / "pods.csv"
    p.write_text(HEADER + "a,x,10,0,0,,BE,Running,0,1,0\na,1000,10,0,0,,BE,Running,0,1,0\n")
    with pytest.raises(OpenbFormatError) as err:
        read_openb(NODES, p)
    assert f"{p}:2: pod a: cpu_milli" in str(err.value)
    assert f"{p}:3: pod a: duplicate of line 2" in str(err.value)


def test_bad_node_rows(tmp_path: Path) -> None:
    n = tmp_path / "nodes.csv"
    n.write_text("sn,cpu_milli,memory_mib,gpu,model\nn1,1000,10,2,\nn2,1000,10,x,T4\n")
    with pytest.raises(OpenbFormatError) as err:
        read_openb(n, PODS)
    text = str(err.value)
    assert f"{n}:2: node n1: model: empty for a node with 2 GPU(s)" in text
    assert f"{n}:3: node n2: gpu: not an integer: 'x'" in text


def test_missing_columns_and_files(tmp_path: Path) -> None:
    p = tmp_path / "pods.csv"
    p.write_text("name,cpu_milli\na,1\n")
    with pytest.raises(OpenbFormatError, match=r"pods.csv:1: missing column\(s\): memory_mib, num_gpu"):
        read_openb(NODES, p)
    with pytest.raises(OpenbFormatError, match="cannot read"):
        read_openb(NODES, tmp_path / "absent.csv")
    q = tmp_path / "q.csv"
    q.write_text("name,cpu_milli,memory_mib,num_gpu,gpu_milli\na,1,1,0,0\n")
    with pytest.raises(OpenbFormatError, match=r"missing column.*creation_time"):
        read_openb(NODES, q)  # trace arrival needs the times
    assert len(list(read_openb(NODES, q, arrival="shuffled").events)) == 1


def test_bad_arguments() -> None:
    with pytest.raises(ValueError, match="arrival"):
        read_openb(NODES, PODS, arrival="sorted")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="tune: only with"):
        read_openb(NODES, PODS, tune=1.3)


def test_format_openb_gets_seed_arrival_and_tune() -> None:
    """``--format openb`` is read_openb with the command line's seed, arrival and tune (interval
    has no meaning there); unset options keep the reader's defaults."""
    paths = [str(NODES), str(PODS)]
    got = read_format("openb", paths, ReaderOptions(seed=42, arrival="shuffled", tune=1.3, interval=5.0))
    want = read_openb(NODES, PODS, seed=42, arrival="shuffled", tune=1.3)
    assert got.cluster == want.cluster
    assert [(e.time, e.obj) for e in got.events] == [(e.time, e.obj) for e in want.events]
    default, plain = read_format("openb", paths, ReaderOptions()), read_openb(NODES, PODS)
    assert [(e.time, e.obj) for e in default.events] == [(e.time, e.obj) for e in plain.events]


def test_gpus_are_also_the_device_plugins_whole_gpus() -> None:
    # So that the default plugins (NodeResourcesFit) see GPUs: a node advertises its GPU count,
    # a GPU pod requests (and is limited to) whole GPUs, a share one; a CPU pod none.
    trace = read_openb(NODES, PODS)
    node = parse_object(trace.cluster[0])
    assert node.capacity[GPU_RESOURCE] == node.allocatable[GPU_RESOURCE] == 2
    rows = {p.name: p for p in read_openb_pods(PODS)}
    pods = {name: parse_object(p.manifest) for name, p in rows.items()}
    assert pods["openb-pod-0001"].meta.annotations[GPU_MILLI] == "460"  # a share of one GPU
    assert pods["openb-pod-0001"].requests[GPU_RESOURCE] == 1
    assert pods["openb-pod-0128"].requests[GPU_RESOURCE] == 8
    limits = rows["openb-pod-0128"].manifest["spec"]["containers"][0]["resources"]["limits"]
    assert limits[GPU_RESOURCE] == "8"
    assert GPU_RESOURCE not in pods["openb-pod-0005"].requests


def test_arrived_demand_is_gpu_milli_unless_demand_is_given() -> None:
    trace = read_openb(NODES, PODS)
    assert trace.demand is not None and trace.demand.name == "gpu-milli"
    nodes = [parse_object(n) for n in trace.cluster]
    assert trace.demand.capacity(nodes) == 1000 * sum(n.capacity[GPU_COUNT] for n in nodes)
    share = next(parse_object(e.obj) for e in trace.events
                 if e.obj and e.obj["metadata"]["name"] == "openb-pod-0001")
    assert trace.demand.of_pod(share) == 460
    cpu = read_format("openb", [str(NODES), str(PODS)], ReaderOptions(demand="cpu"))
    assert cpu.demand is not None and cpu.demand.name == "cpu"
