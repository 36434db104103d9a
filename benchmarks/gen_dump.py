"""Write a realistic ``kubectl get -A -o yaml`` / ``-o json`` cluster dump, for measuring loading.

The dump is one ``kind: List`` as kubectl writes it: nodes with image lists, 20,000 pods with the
metadata, spec and status a real API server returns (managedFields, ownerReferences, env, volumes,
probes, conditions, container statuses), PriorityClasses, and objects of kinds the scheduler does
not read (ConfigMaps, Secrets, Endpoints, Events, Deployments), which the loader skips.
Deterministic: the same arguments write the same bytes.

    python benchmarks/gen_dump.py OUT_DIR [--pods 20000] [--nodes 500]

writes ``OUT_DIR/dump.yaml`` and ``OUT_DIR/dump.json`` (the same objects).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import random
from pathlib import Path
from typing import Any

import yaml

_TS = "2026-03-02T08:%02d:%02dZ"
_APPS = (
    "web",
    "api",
    "checkout",
    "cart",
    "search",
    "catalog",
    "payments",
    "auth",
    "orders",
    "shipping",
    "recommendation",
    "inventory",
    "notification",
    "gateway",
    "frontend",
    "reporting",
)
_NAMESPACES = ("shop", "platform", "data", "ml", "observability", "team-a", "team-b", "team-c")
_ZONES = ("eu-west-1a", "eu-west-1b", "eu-west-1c")
_IMAGES = tuple(f"registry.example.com/{a}:{v}" for a in _APPS for v in ("1.4.2", "1.5.0"))


def _ts(rng: random.Random) -> str:
    return _TS % (rng.randrange(60), rng.randrange(60))


def _uid(*parts: object) -> str:
    h = hashlib.md5("/".join(map(str, parts)).encode()).hexdigest()
    return f"{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:32]}"


def _digest(s: str) -> str:
    return hashlib.sha256(s.encode()).hexdigest()


def node(i: int, rng: random.Random) -> dict[str, Any]:
    name = f"ip-10-0-{i // 250}-{i % 250}.eu-west-1.compute.internal"
    zone = _ZONES[i % len(_ZONES)]
    images = [
        {
            "names": [f"{img.split(':')[0]}@sha256:{_digest(img)}", img],
            "sizeBytes": rng.randrange(20_000_000, 900_000_000),
        }
        for img in rng.sample(_IMAGES, 12)
    ]
    return {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {
            "annotations": {
                "node.alpha.kubernetes.io/ttl": "0",
                "volumes.kubernetes.io/controller-managed-attach-detach": "true",
            },
            "creationTimestamp": _ts(rng),
            "labels": {
                "beta.kubernetes.io/arch": "amd64",
                "beta.kubernetes.io/instance-type": "m6i.4xlarge",
                "beta.kubernetes.io/os": "linux",
                "failure-domain.beta.kubernetes.io/region": "eu-west-1",
                "failure-domain.beta.kubernetes.io/zone": zone,
                "kubernetes.io/arch": "amd64",
                "kubernetes.io/hostname": name,
                "kubernetes.io/os": "linux",
                "node.kubernetes.io/instance-type": "m6i.4xlarge",
                "topology.kubernetes.io/region": "eu-west-1",
                "topology.kubernetes.io/zone": zone,
            },
            "name": name,
            "resourceVersion": str(1_000_000 + i),
            "uid": _uid("node", i),
        },
        "spec": {
            "providerID": f"aws:///{zone}/i-{_digest(name)[:17]}",
            "podCIDR": f"10.1.{i % 256}.0/24",
            "podCIDRs": [f"10.1.{i % 256}.0/24"],
        },
        "status": {
            "addresses": [
                {"address": f"10.0.{i // 250}.{i % 250}", "type": "InternalIP"},
                {"address": name, "type": "Hostname"},
            ],
            "allocatable": {
                "cpu": "15890m",
                "ephemeral-storage": "95491281146",
                "hugepages-1Gi": "0",
                "hugepages-2Mi": "0",
                "memory": "63193116Ki",
                "pods": "110",
            },
            "capacity": {
                "cpu": "16",
                "ephemeral-storage": "104845292Ki",
                "hugepages-1Gi": "0",
                "hugepages-2Mi": "0",
                "memory": "64210460Ki",
                "pods": "110",
            },
            "conditions": [
                {
                    "lastHeartbeatTime": _ts(rng),
                    "lastTransitionTime": _ts(rng),
                    "message": msg,
                    "reason": reason,
                    "status": status,
                    "type": typ,
                }
                for typ, status, reason, msg in (
                    (
                        "MemoryPressure",
                        "False",
                        "KubeletHasSufficientMemory",
                        "kubelet has sufficient memory available",
                    ),
                    ("DiskPressure", "False", "KubeletHasNoDiskPressure", "kubelet has no disk pressure"),
                    (
                        "PIDPressure",
                        "False",
                        "KubeletHasSufficientPID",
                        "kubelet has sufficient PID available",
                    ),
                    ("Ready", "True", "KubeletReady", "kubelet is posting ready status"),
                )
            ],
            "daemonEndpoints": {"kubeletEndpoint": {"Port": 10250}},
            "images": images,
            "nodeInfo": {
                "architecture": "amd64",
                "bootID": _uid("boot", i),
                "containerRuntimeVersion": "containerd://1.7.24",
                "kernelVersion": "6.1.119-129.201.amzn2023.x86_64",
                "kubeProxyVersion": "v1.35.0",
                "kubeletVersion": "v1.35.0",
                "machineID": _digest(name)[:32],
                "operatingSystem": "linux",
                "osImage": "Amazon Linux 2023.6.20241212",
                "systemUUID": _uid("sys", i),
            },
        },
    }


def _managed_fields(ts: str) -> list[dict[str, Any]]:
    """The managedFields entry the kubelet's status updates leave on a running pod."""
    return [
        {
            "apiVersion": "v1",
            "fieldsType": "FieldsV1",
            "manager": "kubelet",
            "operation": "Update",
            "subresource": "status",
            "time": ts,
            "fieldsV1": {
                "f:status": {
                    "f:conditions": {'k:{"type":"Ready"}': {".": {}, "f:status": {}, "f:type": {}}},
                    "f:containerStatuses": {},
                    "f:hostIP": {},
                    "f:phase": {},
                    "f:podIP": {},
                    "f:startTime": {},
                }
            },
        }
    ]


def pod(i: int, nodes: list[str], rng: random.Random) -> dict[str, Any]:
    app = _APPS[i % len(_APPS)]
    ns = _NAMESPACES[(i // len(_APPS)) % len(_NAMESPACES)]
    rs_hash = _digest(f"{ns}/{app}")[:10]
    name = f"{app}-{rs_hash}-{i:05x}"
    ts = _ts(rng)
    bound = i % 50 != 0  # 2% pending
    finished = bound and i % 37 == 0  # completed Job-like pods
    node_name = nodes[rng.randrange(len(nodes))]
    image = f"registry.example.com/{app}:1.4.2"
    cpu = rng.choice(("100m", "250m", "500m", "1"))
    mem = rng.choice(("128Mi", "256Mi", "512Mi", "1Gi"))
    spec: dict[str, Any] = {
        "containers": [
            {
                "env": [
                    {"name": "APP_NAME", "value": app},
                    {
                        "name": "POD_NAME",
                        "valueFrom": {"fieldRef": {"apiVersion": "v1", "fieldPath": "metadata.name"}},
                    },
                ],
                "image": image,
                "imagePullPolicy": "IfNotPresent",
                "livenessProbe": {
                    "failureThreshold": 3,
                    "httpGet": {"path": "/healthz", "port": 8080, "scheme": "HTTP"},
                    "initialDelaySeconds": 10,
                    "periodSeconds": 10,
                    "successThreshold": 1,
                    "timeoutSeconds": 1,
                },
                "name": "app",
                "ports": [{"containerPort": 8080, "name": "http", "protocol": "TCP"}],
                "resources": {"limits": {"memory": mem}, "requests": {"cpu": cpu, "memory": mem}},
                "terminationMessagePath": "/dev/termination-log",
                "terminationMessagePolicy": "File",
                "volumeMounts": [
                    {
                        "mountPath": "/var/run/secrets/kubernetes.io/serviceaccount",
                        "name": "kube-api-access-" + _digest(name)[:5],
                        "readOnly": True,
                    }
                ],
            }
        ],
        "dnsPolicy": "ClusterFirst",
        "enableServiceLinks": True,
        "preemptionPolicy": "PreemptLowerPriority",
        "priority": 0,
        "restartPolicy": "Always",
        "schedulerName": "default-scheduler",
        "securityContext": {},
        "serviceAccount": "default",
        "serviceAccountName": "default",
        "terminationGracePeriodSeconds": 30,
        "tolerations": [
            {
                "effect": "NoExecute",
                "key": "node.kubernetes.io/not-ready",
                "operator": "Exists",
                "tolerationSeconds": 300,
            },
            {
                "effect": "NoExecute",
                "key": "node.kubernetes.io/unreachable",
                "operator": "Exists",
                "tolerationSeconds": 300,
            },
        ],
        "volumes": [
            {
                "name": "kube-api-access-" + _digest(name)[:5],
                "projected": {
                    "defaultMode": 420,
                    "sources": [
                        {"serviceAccountToken": {"expirationSeconds": 3607, "path": "token"}},
                        {
                            "configMap": {
                                "items": [{"key": "ca.crt", "path": "ca.crt"}],
                                "name": "kube-root-ca.crt",
                            }
                        },
                        {
                            "downwardAPI": {
                                "items": [
                                    {
                                        "fieldRef": {"apiVersion": "v1", "fieldPath": "metadata.namespace"},
                                        "path": "namespace",
                                    }
                                ]
                            }
                        },
                    ],
                },
            }
        ],
    }
    if i % 4 == 0:
        spec["topologySpreadConstraints"] = [
            {
                "labelSelector": {"matchLabels": {"app": app}},
                "maxSkew": 1,
                "topologyKey": "topology.kubernetes.io/zone",
                "whenUnsatisfiable": "ScheduleAnyway",
            }
        ]
    status: dict[str, Any] = {"phase": "Pending", "qosClass": "Burstable"}
    if bound:
        spec["nodeName"] = node_name
        phase = "Succeeded" if finished else "Running"
        ready = "False" if finished else "True"
        status = {
            "conditions": [
                {"lastProbeTime": None, "lastTransitionTime": ts, "status": s, "type": t}
                for t, s in (
                    ("Initialized", "True"),
                    ("Ready", ready),
                    ("ContainersReady", ready),
                    ("PodScheduled", "True"),
                )
            ],
            "containerStatuses": [
                {
                    "containerID": "containerd://" + _digest(name + "c"),
                    "image": image,
                    "imageID": f"registry.example.com/{app}@sha256:{_digest(image)}",
                    "lastState": {},
                    "name": "app",
                    "ready": not finished,
                    "restartCount": rng.choice((0, 0, 0, 1, 2)),
                    "started": not finished,
                    "state": (
                        {
                            "terminated": {
                                "containerID": "containerd://" + _digest(name + "c"),
                                "exitCode": 0,
                                "finishedAt": ts,
                                "reason": "Completed",
                                "startedAt": ts,
                            }
                        }
                        if finished
                        else {"running": {"startedAt": ts}}
                    ),
                }
            ],
            "hostIP": f"10.0.{i % 7}.{i % 250}",
            "hostIPs": [{"ip": f"10.0.{i % 7}.{i % 250}"}],
            "phase": phase,
            "podIP": f"10.1.{i % 256}.{i % 250}",
            "podIPs": [{"ip": f"10.1.{i % 256}.{i % 250}"}],
            "qosClass": "Burstable",
            "startTime": ts,
        }
    else:
        status["conditions"] = [
            {
                "lastProbeTime": None,
                "lastTransitionTime": ts,
                "message": "0/500 nodes are available: 500 Insufficient cpu. preemption: 0/500 nodes are "
                "available: 500 No preemption victims found for incoming pod.",
                "reason": "Unschedulable",
                "status": "False",
                "type": "PodScheduled",
            }
        ]
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {
            "annotations": {"prometheus.io/scrape": "true"},
            "creationTimestamp": ts,
            "generateName": f"{app}-{rs_hash}-",
            "labels": {"app": app, "pod-template-hash": rs_hash},
            "managedFields": _managed_fields(ts),
            "name": name,
            "namespace": ns,
            "ownerReferences": [
                {
                    "apiVersion": "apps/v1",
                    "blockOwnerDeletion": True,
                    "controller": True,
                    "kind": "ReplicaSet",
                    "name": f"{app}-{rs_hash}",
                    "uid": _uid("rs", ns, app),
                }
            ],
            "resourceVersion": str(2_000_000 + i),
            "uid": _uid("pod", i),
        },
        "spec": spec,
        "status": status,
    }


def unread(i: int, rng: random.Random) -> dict[str, Any]:
    """An object of a kind the scheduler does not read (skipped by the loader)."""
    app = _APPS[i % len(_APPS)]
    ns = _NAMESPACES[i % len(_NAMESPACES)]
    kind = ("ConfigMap", "Endpoints", "Event", "Secret", "Deployment")[i % 5]
    meta = {
        "creationTimestamp": _ts(rng),
        "name": f"{app}-{i}",
        "namespace": ns,
        "resourceVersion": str(3_000_000 + i),
        "uid": _uid(kind, i),
    }
    body: dict[str, Any]
    if kind == "ConfigMap":
        body = {"data": {"app.properties": "\n".join(f"key{k}=value{k}" for k in range(20))}}
    elif kind == "Endpoints":
        body = {
            "subsets": [
                {
                    "addresses": [{"ip": f"10.1.{k}.{i % 250}", "nodeName": f"n{k}"} for k in range(5)],
                    "ports": [{"name": "http", "port": 8080, "protocol": "TCP"}],
                }
            ]
        }
    elif kind == "Event":
        body = {
            "involvedObject": {"kind": "Pod", "name": f"{app}-{i}", "namespace": ns},
            "reason": "Pulled",
            "message": f'Container image "registry.example.com/{app}:1.4.2" already present on machine',
            "type": "Normal",
            "count": 1,
            "firstTimestamp": meta["creationTimestamp"],
        }
    elif kind == "Secret":
        body = {
            "type": "Opaque",
            "data": {"password": "c2VjcmV0LXBhc3N3b3JkLW9mLXRoZS1hcHA=", "username": "YXBwLXVzZXI="},
        }
    else:
        body = {
            "spec": {
                "replicas": 3,
                "selector": {"matchLabels": {"app": app}},
                "template": {
                    "metadata": {"labels": {"app": app}},
                    "spec": {"containers": [{"name": "app", "image": f"{app}:1.4.2"}]},
                },
            }
        }
    api = "apps/v1" if kind == "Deployment" else "v1"
    return {"apiVersion": api, "kind": kind, "metadata": meta, **body}


def dump(pods: int, nodes: int, unread_objects: int, seed: int = 0) -> dict[str, Any]:
    rng = random.Random(seed)
    node_objs = [node(i, rng) for i in range(nodes)]
    names = [n["metadata"]["name"] for n in node_objs]
    items: list[dict[str, Any]] = [
        {
            "apiVersion": "scheduling.k8s.io/v1",
            "kind": "PriorityClass",
            "metadata": {"name": "business-critical", "creationTimestamp": _ts(rng)},
            "value": 100000,
            "preemptionPolicy": "PreemptLowerPriority",
            "description": "Revenue paths.",
        },
        *node_objs,
        *(pod(i, names, rng) for i in range(pods)),
        *(unread(i, rng) for i in range(unread_objects)),
    ]
    return {"apiVersion": "v1", "items": items, "kind": "List", "metadata": {"resourceVersion": ""}}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("out", type=Path)
    ap.add_argument("--pods", type=int, default=20_000)
    ap.add_argument("--nodes", type=int, default=500)
    ap.add_argument("--unread", type=int, default=2_000, help="objects of kinds the scheduler does not read")
    args = ap.parse_args()
    data = dump(args.pods, args.nodes, args.unread)
    args.out.mkdir(parents=True, exist_ok=True)
    dumper = getattr(yaml, "CSafeDumper", yaml.SafeDumper)
    with (args.out / "dump.yaml").open("w") as f:
        yaml.dump(data, f, Dumper=dumper, default_flow_style=False, sort_keys=True, width=10_000)
    with (args.out / "dump.json").open("w") as f:
        json.dump(data, f, indent=4, sort_keys=True)
        f.write("\n")


if __name__ == "__main__":
    main()
