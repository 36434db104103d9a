"""Property: whatever a manifest's fields hold, the CLI never crashes. Valid manifests (the
quickstart example, a ``kubectl get -o yaml`` dump, one object of every kind the loader reads)
are mutated (a field at any depth replaced by a value of another type, or deleted) and given to
``validate`` and ``simulate``: they exit 0, or 2 with exactly one error line on stderr that
names the file and the document; never a traceback. ``simulate`` also covers what a value the
loader accepts could break later, in the store or in a plugin."""

from __future__ import annotations

import math
import re
import tempfile
from pathlib import Path
from typing import Any

import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from _mutations import DELETE, document_paths, mutated
from kubesched.cli import app

ROOT = Path(__file__).parent.parent.parent
runner = CliRunner()

EVERY_KIND = """
apiVersion: v1
kind: Namespace
metadata: {name: team-a, labels: {tier: gold}}
---
apiVersion: scheduling.k8s.io/v1
kind: PriorityClass
metadata: {name: high}
value: 1000
preemptionPolicy: PreemptLowerPriority
---
apiVersion: storage.k8s.io/v1
kind: StorageClass
metadata: {name: local, annotations: {storageclass.kubernetes.io/is-default-class: "true"}}
provisioner: kubernetes.io/no-provisioner
volumeBindingMode: WaitForFirstConsumer
allowedTopologies:
- matchLabelExpressions: [{key: zone, values: [a, b]}]
---
apiVersion: storage.k8s.io/v1
kind: CSINode
metadata: {name: n1}
spec:
  drivers: [{name: ebs.csi.aws.com, nodeID: i-1, allocatable: {count: 2}, topologyKeys: [zone]}]
---
apiVersion: v1
kind: Node
metadata: {name: n1, labels: {zone: a, kubernetes.io/hostname: n1}}
spec: {taints: [{key: dedicated, value: db, effect: PreferNoSchedule}]}
status:
  allocatable: {cpu: "4", memory: 8Gi, pods: "20", attachable-volumes-csi-ebs.csi.aws.com: "2"}
  images: [{names: [web:1], sizeBytes: 100000000}]
  conditions: [{type: Ready, status: "True", lastTransitionTime: "2026-01-01T00:00:00Z"}]
---
apiVersion: v1
kind: PersistentVolume
metadata: {name: pv1, labels: {zone: a}}
spec:
  capacity: {storage: 10Gi}
  accessModes: [ReadWriteOnce]
  storageClassName: local
  csi: {driver: ebs.csi.aws.com, volumeHandle: vol-1}
  nodeAffinity:
    required:
      nodeSelectorTerms: [{matchExpressions: [{key: zone, operator: In, values: [a]}]}]
---
apiVersion: v1
kind: PersistentVolumeClaim
metadata: {name: data, namespace: team-a}
spec:
  accessModes: [ReadWriteOnce]
  storageClassName: local
  resources: {requests: {storage: 1Gi}}
---
apiVersion: policy/v1
kind: PodDisruptionBudget
metadata: {name: web, namespace: team-a}
spec: {minAvailable: 1, selector: {matchLabels: {app: web}}}
---
apiVersion: v1
kind: Pod
metadata: {name: db-0, namespace: team-a, labels: {app: db}}
spec:
  nodeName: n1
  containers: [{name: db, image: db:1, resources: {requests: {cpu: "1", memory: 1Gi}}}]
status: {phase: Running, startTime: "2026-01-01T00:00:00Z", conditions: [{type: Ready, status: "True"}]}
---
apiVersion: v1
kind: Pod
metadata: {name: web-0, namespace: team-a, labels: {app: web}}
spec:
  priorityClassName: high
  nodeSelector: {zone: a}
  tolerations: [{key: dedicated, operator: Equal, value: db, effect: PreferNoSchedule, tolerationSeconds: 5}]
  affinity:
    nodeAffinity:
      requiredDuringSchedulingIgnoredDuringExecution:
        nodeSelectorTerms: [{matchExpressions: [{key: zone, operator: In, values: [a]}]}]
      preferredDuringSchedulingIgnoredDuringExecution:
      - {weight: 10, preference: {matchExpressions: [{key: zone, operator: Exists}]}}
    podAntiAffinity:
      preferredDuringSchedulingIgnoredDuringExecution:
      - weight: 50
        podAffinityTerm: {topologyKey: kubernetes.io/hostname, labelSelector: {matchLabels: {app: db}}}
  topologySpreadConstraints:
  - maxSkew: 1
    topologyKey: zone
    whenUnsatisfiable: ScheduleAnyway
    labelSelector: {matchLabels: {app: web}}
  initContainers: [{name: init, image: busybox, resources: {requests: {cpu: 200m}}}]
  containers:
  - name: web
    image: web:1
    ports: [{containerPort: 8080, hostPort: 8080}]
    resources: {requests: {cpu: 500m, memory: 256Mi}, limits: {memory: 512Mi}}
  volumes:
  - {name: data, persistentVolumeClaim: {claimName: data}}
  - {name: scratch, emptyDir: {}}
---
apiVersion: v1
kind: Service
metadata: {name: web, namespace: team-a}
spec: {selector: {app: web}, ports: [{port: 80}]}
---
apiVersion: v1
kind: ReplicationController
metadata: {name: legacy, namespace: team-a}
spec: {replicas: 1, selector: {app: legacy}, template: {metadata: {labels: {app: legacy}}}}
---
apiVersion: apps/v1
kind: ReplicaSet
metadata: {name: web-5d8f, namespace: team-a}
spec:
  selector: {matchLabels: {app: web}, matchExpressions: [{key: tier, operator: Exists}]}
  template: {metadata: {labels: {app: web, tier: front}}}
---
apiVersion: apps/v1
kind: StatefulSet
metadata: {name: db, namespace: team-a}
spec: {selector: {matchLabels: {app: db}}, template: {metadata: {labels: {app: db}}}}
---
apiVersion: apps/v1
kind: StatefulSet
metadata: {name: cache, namespace: team-a}
spec:
  replicas: 2
  serviceName: cache
  podManagementPolicy: Parallel
  ordinals: {start: 1}
  selector: {matchLabels: {app: cache}}
  template:
    metadata: {labels: {app: cache}}
    spec: {containers: [{name: c, image: redis, resources: {requests: {cpu: 100m}}}]}
  volumeClaimTemplates:
  - metadata: {name: data}
    spec: {accessModes: [ReadWriteOnce], storageClassName: local, resources: {requests: {storage: 1Gi}}}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: api, namespace: team-a, annotations: {team: a}}
spec:
  replicas: 2
  strategy: {type: RollingUpdate, rollingUpdate: {maxSurge: 50%, maxUnavailable: 0}}
  selector: {matchLabels: {app: api}}
  template:
    metadata: {labels: {app: api}, annotations: {team: a}}
    spec:
      tolerations: [{key: dedicated, operator: Exists}]
      containers: [{name: api, image: api:1, resources: {requests: {cpu: 100m, memory: 64Mi}}}]
status: {collisionCount: 1}
---
apiVersion: apps/v1
kind: DaemonSet
metadata: {name: agent, namespace: team-a, generation: 2}
spec:
  selector: {matchLabels: {app: agent}}
  template:
    metadata: {labels: {app: agent}}
    spec:
      hostNetwork: true
      nodeSelector: {zone: a}
      tolerations: [{key: node.kubernetes.io/unschedulable, operator: Exists, effect: NoSchedule}]
      containers: [{name: agent, image: agent:1, resources: {requests: {cpu: 50m}}}]
---
apiVersion: batch/v1
kind: Job
metadata: {name: crunch, namespace: team-a}
spec:
  completions: 3
  parallelism: 2
  completionMode: Indexed
  template:
    metadata: {annotations: {kubesched.io/run-seconds: "30"}}
    spec:
      restartPolicy: Never
      containers: [{name: crunch, image: crunch:1, resources: {requests: {cpu: 200m}}}]
"""


def _documents(text: str) -> list[dict[str, Any]]:
    """The objects of a YAML stream, List items unwrapped (so a mutation can reach each)."""
    out: list[dict[str, Any]] = []
    for doc in yaml.safe_load_all(text):
        if isinstance(doc, dict) and str(doc.get("kind", "")).endswith("List"):
            out.extend(doc["items"])
        elif doc:
            out.append(doc)
    return out


CORPORA: list[list[dict[str, Any]]] = [
    _documents("---\n".join(p.read_text() for p in sorted((ROOT / "examples/quickstart").glob("*.yaml")))),
    _documents((ROOT / "tests" / "fixtures" / "kubectl-dump.yaml").read_text()),
    _documents(EVERY_KIND),
]

_SKIPPED = ("managedFields",)  # long and never read: mutations there tell nothing
OTHER_VALUES = st.one_of(
    st.sampled_from([[], {}, "", "oops", 0, -1, 7, 2**31, 2**63, -(2**70), 0.5, 1e300,
                     math.inf, -math.inf, math.nan, None, True, False, [1, "a"], {"a": [1]}]),
    st.integers(), st.text(max_size=8), st.floats(allow_nan=True, allow_infinity=True),
)


@st.composite
def mutated_corpus(draw: st.DrawFn) -> list[dict[str, Any]]:
    """A corpus with one to three of its documents each mutated at one path."""
    docs = list(draw(st.sampled_from(CORPORA)))
    for _ in range(draw(st.integers(1, 3))):
        i = draw(st.integers(0, len(docs) - 1))
        paths = document_paths(docs[i], skip=_SKIPPED)
        if not paths:
            continue
        path = draw(st.sampled_from(paths))
        value = draw(st.one_of(OTHER_VALUES, st.just(DELETE)))
        docs[i] = mutated(docs[i], path, value)
    return docs


def _check(command: str, docs: list[dict[str, Any]]) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        manifest = Path(tmp) / "cluster.yaml"
        manifest.write_text(yaml.safe_dump_all(docs))
        output = ["-o", "json"] if command == "simulate" else []
        result = runner.invoke(app, [command, str(manifest), *output])
    assert result.exit_code in (0, 2), (result.output, result.exception)
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise AssertionError(f"{command} crashed") from result.exception
    if result.exit_code == 2:
        lines = [line for line in result.stderr.split("\n") if line.strip()]
        assert len(lines) == 1, result.stderr
        # the file, the document (and List item) and the object: ``(Pod default/web-0)``
        where = rf"error: {re.escape(str(manifest))}: document \d+(, item \d+)? \("
        assert re.match(where, lines[0]), lines[0]
        assert "Traceback" not in result.output and "wrong type" not in lines[0], lines[0]


@settings(max_examples=40, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(mutated_corpus())
def test_validate_never_crashes_on_mutated_manifests(docs: list[dict[str, Any]]) -> None:
    _check("validate", docs)


@settings(max_examples=20, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(mutated_corpus())
def test_simulate_never_crashes_on_mutated_manifests(docs: list[dict[str, Any]]) -> None:
    _check("simulate", docs)
