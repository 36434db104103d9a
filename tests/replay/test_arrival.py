"""Format 3: a snapshot whose pending pods arrive one by one (input order or shuffled), tuned."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from kubesched.api import Pod, parse_object
from kubesched.replay import Replay, ResourceDemand, read_snapshot

from ._traces import node, pod


def _snapshot(tmp_path: Path, n_pods: int = 6) -> Path:
    docs: list[dict[str, Any]] = [node("n1", cpu="4"), node("n2", cpu="4")]
    bound = pod("old", "1")
    bound["spec"]["nodeName"] = "n1"
    docs.append(bound)
    docs += [pod(f"p{i}", "1") for i in range(n_pods)]
    path = tmp_path / "snap.yaml"
    path.write_text(yaml.safe_dump_all(docs))
    return path


def _names(trace: Any) -> list[str]:
    return [ev.obj["metadata"]["name"] for ev in trace.events]


def test_input_order_and_the_cluster(tmp_path: Path) -> None:
    trace = read_snapshot([_snapshot(tmp_path)])
    assert _names(trace) == [f"p{i}" for i in range(6)]
    assert [e.time for e in trace.events] == [0.0] * 6
    assert sorted(m["metadata"]["name"] for m in trace.cluster) == ["n1", "n2", "old"]


def test_shuffled_by_seed(tmp_path: Path) -> None:
    path = _snapshot(tmp_path, 20)
    a = _names(read_snapshot([path], arrival="shuffled", seed=1))
    assert a == _names(read_snapshot([path], arrival="shuffled", seed=1))  # re-iterable, same order
    assert a != _names(read_snapshot([path], arrival="shuffled", seed=2))
    assert sorted(a) == sorted(f"p{i}" for i in range(20)) and a != sorted(a)


def test_tune_reaches_the_target_demand(tmp_path: Path) -> None:
    # capacity 8 cpu; six 1-cpu pods. tune 1.3: pods arrive until 10.4 cpu -> 11 pods: the
    # six, then five copies drawn at random, renamed <name>-<k>.
    trace = read_snapshot([_snapshot(tmp_path)], tune=1.3, interval=2, seed=5)
    names = _names(trace)
    assert len(names) == 11 and names[:6] == [f"p{i}" for i in range(6)]
    assert len(set(names)) == 11 and all(n.rsplit("-", 1)[0] in names[:6] for n in names[6:])
    assert names == _names(trace)  # the same draws on each pass
    assert len(_names(read_snapshot([_snapshot(tmp_path)], tune=0.5))) == 4  # truncated at 4 cpu
    assert [e.time for e in trace.events][-1] == 20
    res = Replay(read_snapshot([_snapshot(tmp_path)], tune=1.3)).run()
    # 1 cpu already bound + 7 of the 11 arriving fill the 8 cpu; 4 stay unschedulable
    assert res.summary["scheduled"] == 7 and res.summary["unschedulable"] == 4
    assert res.summary["arrivedDemand"] == pytest.approx(12 / 8)  # the bound pod counts too
    # the row where the arrived demand first reached 100% (8 cpu: the bound pod and 7 more,
    # all placed) and 130% (10.4: 11 cpu asked, 3 left out)
    at = res.summary["atArrivedDemand"]
    assert at["100%"]["arrivedDemand"] == 1.0 and at["100%"]["allocation:cpu"] == 1.0
    assert at["100%"]["unschedulable"] == 0
    assert at["130%"]["arrivedDemand"] == 11 / 8 and at["130%"]["unschedulable"] == 3
    assert "160%" not in at


def test_tune_by_another_resource(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="request no memory"):
        read_snapshot([_snapshot(tmp_path)], tune=0.5, demand=ResourceDemand("memory"))
    p = parse_object(pod("x", "1"))
    assert isinstance(p, Pod) and ResourceDemand().of_pod(p) == 1000


def test_bad_options(tmp_path: Path) -> None:
    path = _snapshot(tmp_path)
    with pytest.raises(ValueError, match="arrival"):
        read_snapshot([path], arrival="backwards")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="tune"):
        read_snapshot([path], tune=0)
