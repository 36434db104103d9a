"""Read Kubernetes manifests: files, directories, stdin; YAML (multi-document) and JSON;
``kind: List`` and ``<Kind>List`` wrappers as ``kubectl get -o yaml`` writes them.

Loading is all-or-nothing: the first bad document raises one :class:`LoadError` that names the
file, the document number (and the List item number), both counted from 1, and the object;
nothing is returned half loaded. Namespaced objects without a namespace get ``default``, as
``kubectl apply`` does. An empty input (a file with no document, a directory with no manifest)
is an error too: a dump that lost its content must not look like an empty cluster.

A dump of a whole cluster holds many kinds the scheduler never reads (ConfigMaps, Events,
Secrets, ...): objects of a kind not in :data:`KINDS` are skipped and counted
(:attr:`LoadedObjects.skipped`), or refused with ``strict=True``. A kind in :data:`KINDS` with
another apiVersion (a ``policy/v1beta1`` PodDisruptionBudget) is always an error.

YAML goes through libyaml (PyYAML's ``CSafeLoader``) when PyYAML was built with it: a large
dump parses several times faster than with the pure-Python parser.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path as FsPath
from typing import Any, Final, Literal, TypeAlias

import yaml

from ..process import gc_paused
from . import _fields
from ._node import Node
from ._objects import (
    CSINode,
    Namespace,
    PersistentVolume,
    PersistentVolumeClaim,
    PodDisruptionBudget,
    PriorityClass,
    StorageClass,
)
from ._pod import Pod
from ._raw import DELETE, with_paths
from ._resource import DeviceClass, ResourceClaim, ResourceClaimTemplate
from ._resource_slice import DeviceTaintRule, ResourceSlice
from ._scheduling_group import SCHEDULING_API_VERSIONS, PodGroup, Workload
from ._share import BranchSharer
from ._validation import validate_object
from ._version import KubeVersion
from ._workloads import (
    DaemonSet,
    Deployment,
    Job,
    ReplicaSet,
    ReplicationController,
    Service,
    StatefulSet,
)
from ._yaml import ExcessiveAliasing, load_yaml

__all__ = [
    "KINDS",
    "ApiObject",
    "KindInfo",
    "LiveUse",
    "LoadError",
    "LoadedObjects",
    "ProgressFn",
    "kind_of",
    "load_documents",
    "load_paths",
    "manifest_files",
    "parse_object",
    "parse_update",
]

ApiObject: TypeAlias = (
    Pod
    | Node
    | Namespace
    | PriorityClass
    | PodDisruptionBudget
    | PersistentVolume
    | PersistentVolumeClaim
    | StorageClass
    | CSINode
    | Service
    | ReplicationController
    | ReplicaSet
    | StatefulSet
    | DeviceClass
    | ResourceSlice
    | DeviceTaintRule
    | ResourceClaimTemplate
    | ResourceClaim
    | Deployment
    | DaemonSet
    | Job
    | Workload
    | PodGroup
)


LiveUse: TypeAlias = Literal["", "list", "watch"]


@dataclass(frozen=True, slots=True)
class KindInfo:
    """A kind the scheduler reads: its REST resource (group/version, plural, scope), its parser,
    and how a live cluster is read for it. The one table of kinds (:data:`KINDS`): the loader,
    the embedded store, the live store and the cluster input all derive from it."""

    kind: str
    api_version: str
    """The preferred group/version (``"v1"`` for the core group)."""
    plural: str
    """The resource name in REST paths and RBAC rules (``"persistentvolumeclaims"``)."""
    namespaced: bool
    cls: type[Any]
    other_versions: tuple[str, ...] = ()
    """Further apiVersions the kind is read from (``api_version`` is the preferred one)."""
    live: LiveUse = ""
    """``"watch"``: kube-scheduler has an informer for it, so ``kubesched run`` watches it and
    a live cluster input lists it; ``"list"``: only listed as a live cluster input; ``""``:
    read from files only."""
    optional: bool = False
    """A live cluster may not serve it or not grant it to the scheduler: read as empty then."""
    gates: tuple[str, ...] = ()
    """Feature gates kube-scheduler starts its informer under (all of them on): ``run``
    watches the kind only then. The newest release's; see ``release_gates``."""
    release_gates: tuple[tuple[KubeVersion, tuple[str, ...]], ...] = ()
    """``(release, gates)`` entries in release order where older releases started the informer
    under other gates (that release and later ones up to the next entry; ``gates`` after
    the last). Empty: ``gates`` in every release."""
    release_versions: tuple[tuple[KubeVersion, str], ...] = ()
    """``(release, apiVersion)`` entries in release order: the version the informer of that
    release's kube-scheduler (and of later ones up to the next entry) lists and watches, the
    typed informer it was built with; before the first entry it has none. Empty: every
    release reads ``api_version``."""

    @property
    def group(self) -> str:
        """The API group (``""`` for the core group), as in RBAC rules."""
        return self.api_version.rpartition("/")[0]

    def gates_for(self, release: KubeVersion) -> tuple[str, ...]:
        """The feature gates ``release``'s kube-scheduler starts this kind's informer under."""
        out = self.gates
        for first, gates in self.release_gates:
            if first <= release:
                out = gates
        return out

    def version_for(self, release: KubeVersion) -> str | None:
        """The apiVersion ``release``'s kube-scheduler reads this kind from (see
        ``release_versions``), None when it reads none."""
        if not self.release_versions:
            return self.api_version
        out: str | None = None
        for first, version in self.release_versions:
            if first <= release:
                out = version
        return out


KINDS: Final[Mapping[str, KindInfo]] = {
    k.kind: k
    for k in (
        KindInfo("Namespace", "v1", "namespaces", False, Namespace, live="watch"),
        # kube-scheduler has no PriorityClass informer (Priority admission writes spec.priority,
        # all it reads; system:kube-scheduler may not list them): a simulation's admission does.
        KindInfo("PriorityClass", "scheduling.k8s.io/v1", "priorityclasses", False, PriorityClass,
                 live="list", optional=True),
        KindInfo("StorageClass", "storage.k8s.io/v1", "storageclasses", False, StorageClass, live="watch"),
        KindInfo("CSINode", "storage.k8s.io/v1", "csinodes", False, CSINode, live="watch"),
        KindInfo("Node", "v1", "nodes", False, Node, live="watch"),
        KindInfo("PersistentVolume", "v1", "persistentvolumes", False, PersistentVolume, live="watch"),
        KindInfo("PersistentVolumeClaim", "v1", "persistentvolumeclaims", True, PersistentVolumeClaim,
                 live="watch"),
        KindInfo("PodDisruptionBudget", "policy/v1", "poddisruptionbudgets", True, PodDisruptionBudget,
                 live="watch"),
        KindInfo("Service", "v1", "services", True, Service, live="watch"),
        KindInfo("ReplicationController", "v1", "replicationcontrollers", True, ReplicationController,
                 live="watch"),
        KindInfo("ReplicaSet", "apps/v1", "replicasets", True, ReplicaSet, live="watch"),
        KindInfo("StatefulSet", "apps/v1", "statefulsets", True, StatefulSet, live="watch"),
        # resource.k8s.io/v1 is served from 1.34, granted while DynamicResourceAllocation is on.
        KindInfo("DeviceClass", "resource.k8s.io/v1", "deviceclasses", False, DeviceClass,
                 live="watch", optional=True),
        KindInfo("ResourceSlice", "resource.k8s.io/v1", "resourceslices", False, ResourceSlice,
                 live="watch", optional=True),
        # The ResourceSlice tracker's rule informer (staging/.../resourceslice/tracker, built in
        # pkg/scheduler/scheduler.go while its gate is on): v1alpha3 under DRADeviceTaints in
        # 1.33 and 1.34 (kubernetes#130447), under DRADeviceTaintRules from 1.35
        # (kubernetes#134152, which also dropped deviceClassName and CEL selectors): v1alpha3
        # in 1.35, v1beta2 in 1.36 (beta, off by default, and the version off unless
        # --runtime-config turns it on), v1 from 1.37.
        KindInfo("DeviceTaintRule", "resource.k8s.io/v1", "devicetaintrules", False, DeviceTaintRule,
                 ("resource.k8s.io/v1beta2", "resource.k8s.io/v1alpha3"), live="watch", optional=True,
                 gates=("DynamicResourceAllocation", "DRADeviceTaintRules"),
                 release_gates=((KubeVersion(1, 33), ("DynamicResourceAllocation", "DRADeviceTaints")),
                                (KubeVersion(1, 35), ("DynamicResourceAllocation", "DRADeviceTaintRules"))),
                 release_versions=((KubeVersion(1, 33), "resource.k8s.io/v1alpha3"),
                                   (KubeVersion(1, 36), "resource.k8s.io/v1beta2"),
                                   (KubeVersion(1, 37), "resource.k8s.io/v1"))),
        KindInfo("ResourceClaimTemplate", "resource.k8s.io/v1", "resourceclaimtemplates", True,
                 ResourceClaimTemplate),
        KindInfo("ResourceClaim", "resource.k8s.io/v1", "resourceclaims", True, ResourceClaim,
                 live="watch", optional=True),
        KindInfo("Deployment", "apps/v1", "deployments", True, Deployment),
        KindInfo("DaemonSet", "apps/v1", "daemonsets", True, DaemonSet),
        KindInfo("Job", "batch/v1", "jobs", True, Job),
        KindInfo("Workload", SCHEDULING_API_VERSIONS[0], "workloads", True, Workload,
                 SCHEDULING_API_VERSIONS[1:]),
        KindInfo("PodGroup", SCHEDULING_API_VERSIONS[0], "podgroups", True, PodGroup,
                 SCHEDULING_API_VERSIONS[1:]),
        KindInfo("Pod", "v1", "pods", True, Pod, live="watch"),
    )
}
"""Kinds in dependency order: what a store must create first comes first."""

_KIND_OF_CLASS: Final = {k.cls: k.kind for k in KINDS.values()}
_CONFIG_KINDS: Final = frozenset({"KubeSchedulerConfiguration", "KubeSchedulerPolicy"})
_SUFFIXES: Final = (".yaml", ".yml", ".json")


def kind_of(obj: ApiObject) -> str:
    """The kind name of a parsed object (``"Pod"``, ``"Node"``, ...)."""
    return _KIND_OF_CLASS[type(obj)]


class LoadError(ValueError):
    """A manifest that cannot be loaded; the message names file, document and object."""


ProgressFn: TypeAlias = Callable[[str, int, int], None]
"""(what is being done, done so far, total; 0 when unknown) -> None: loading a large input.
Parsing counts characters (a kubectl List in YAML is parsed in chunks; anything else in one
step), reading counts objects."""


@dataclass
class LoadedObjects:
    """Everything loaded, in input order, with where each object came from, and how many
    objects of kinds the scheduler does not read were skipped."""

    objects: list[ApiObject] = field(default_factory=list)
    origins: dict[tuple[str, str, str], str] = field(default_factory=dict)
    skipped: dict[str, int] = field(default_factory=dict)
    """Kind -> objects of that kind skipped (kinds not in KINDS), in first-seen order."""

    def warnings(self) -> list[str]:
        """What a user should hear about, once: the skipped objects, most numerous kind first."""
        if not self.skipped:
            return []
        total = sum(self.skipped.values())
        kinds = sorted(self.skipped.items(), key=lambda kv: (-kv[1], kv[0]))
        return [f"skipped {total} object{'s' if total != 1 else ''} of kinds kubesched does not read: "
                + ", ".join(f"{k} {n}" for k, n in kinds)]

    def of_kind(self, kind: str) -> list[Any]:
        cls = KINDS[kind].cls
        return [o for o in self.objects if type(o) is cls]

    def origin_of(self, obj: ApiObject) -> str:
        """``file: document N[, item M]`` for an object loaded here, else ``""``."""
        return self.origins.get((kind_of(obj), obj.meta.namespace, obj.meta.name), "")

    def counts(self) -> dict[str, int]:
        """Objects per kind, in KINDS order, kinds with none left out."""
        out = {k: 0 for k in KINDS}
        for o in self.objects:
            out[kind_of(o)] += 1
        return {k: n for k, n in out.items() if n}

    @property
    def pods(self) -> list[Pod]:
        return self.of_kind("Pod")

    @property
    def nodes(self) -> list[Node]:
        return self.of_kind("Node")

    @property
    def namespaces(self) -> list[Namespace]:
        return self.of_kind("Namespace")

    @property
    def priority_classes(self) -> list[PriorityClass]:
        return self.of_kind("PriorityClass")

    @property
    def pdbs(self) -> list[PodDisruptionBudget]:
        return self.of_kind("PodDisruptionBudget")

    @property
    def pvs(self) -> list[PersistentVolume]:
        return self.of_kind("PersistentVolume")

    @property
    def pvcs(self) -> list[PersistentVolumeClaim]:
        return self.of_kind("PersistentVolumeClaim")

    @property
    def storage_classes(self) -> list[StorageClass]:
        return self.of_kind("StorageClass")

    @property
    def csinodes(self) -> list[CSINode]:
        return self.of_kind("CSINode")

    @property
    def services(self) -> list[Service]:
        return self.of_kind("Service")

    @property
    def replication_controllers(self) -> list[ReplicationController]:
        return self.of_kind("ReplicationController")

    @property
    def replica_sets(self) -> list[ReplicaSet]:
        return self.of_kind("ReplicaSet")

    @property
    def stateful_sets(self) -> list[StatefulSet]:
        return self.of_kind("StatefulSet")

    @property
    def device_classes(self) -> list[DeviceClass]:
        return self.of_kind("DeviceClass")

    @property
    def resource_slices(self) -> list[ResourceSlice]:
        return self.of_kind("ResourceSlice")

    @property
    def device_taint_rules(self) -> list[DeviceTaintRule]:
        return self.of_kind("DeviceTaintRule")

    @property
    def resource_claim_templates(self) -> list[ResourceClaimTemplate]:
        return self.of_kind("ResourceClaimTemplate")

    @property
    def resource_claims(self) -> list[ResourceClaim]:
        return self.of_kind("ResourceClaim")

    @property
    def deployments(self) -> list[Deployment]:
        return self.of_kind("Deployment")

    @property
    def daemon_sets(self) -> list[DaemonSet]:
        return self.of_kind("DaemonSet")

    @property
    def jobs(self) -> list[Job]:
        return self.of_kind("Job")

    def extend(self, other: LoadedObjects) -> None:
        """Add ``other``'s objects and skip counts; a duplicate raises LoadError naming both places."""
        for obj in other.objects:
            key = (kind_of(obj), obj.meta.namespace, obj.meta.name)
            where = other.origins.get(key, "")
            self.add(obj, where)
        for kind, n in other.skipped.items():
            self.skipped[kind] = self.skipped.get(kind, 0) + n

    def add(self, obj: ApiObject, where: str) -> None:
        """Add one object loaded from ``where``; a duplicate raises LoadError naming both places."""
        key = (kind_of(obj), obj.meta.namespace, obj.meta.name)
        if key in self.origins:
            raise LoadError(
                f"{where} ({_describe(obj)}): duplicate object, already defined at {self.origins[key]}"
            )
        self.origins[key] = where
        self.objects.append(obj)


def _describe(obj: ApiObject) -> str:
    return f"{kind_of(obj)} {obj.meta.key}"


def _describe_raw(doc: Mapping[str, Any]) -> str:
    raw_md = doc.get("metadata")
    md: Mapping[str, Any] = raw_md if isinstance(raw_md, Mapping) else {}
    name = md.get("name") or "<no name>"
    ns = md.get("namespace")
    return f"{doc.get('kind') or '<no kind>'} {f'{ns}/' if ns else ''}{name}"


def parse_object(doc: Mapping[str, Any]) -> ApiObject:
    """One manifest -> its typed object, checking kind and apiVersion; raises ValueError.

    Namespaced kinds without a namespace get ``default``; a namespace on a cluster-scoped
    kind is dropped (the API server ignores it)."""
    if not isinstance(doc, Mapping):
        raise ValueError(f"a manifest must be a mapping, got {type(doc).__name__}")
    kind = _fields.string(doc.get("kind"), "kind")
    if not kind:
        raise ValueError("kind: required")
    if kind in _CONFIG_KINDS:
        raise ValueError(f"{kind} is a scheduler configuration, not a cluster object: pass it with --config")
    info = KINDS.get(str(kind))
    if info is None:
        raise ValueError(f"unknown kind {kind!r} (supported: {', '.join(KINDS)})")
    api_version = doc.get("apiVersion")
    if api_version != info.api_version and api_version not in info.other_versions:
        expected = " or ".join(repr(v) for v in (info.api_version, *info.other_versions))
        raise ValueError(f"apiVersion {api_version!r} is not supported for {kind} (expected {expected})")
    md = doc.get("metadata")
    if not isinstance(md, Mapping) or not md.get("name"):
        raise ValueError("metadata.name: required")
    if info.namespaced and not md.get("namespace"):
        doc = with_paths(doc, {("metadata", "namespace"): "default"})
    elif not info.namespaced and "namespace" in md:
        doc = with_paths(doc, {("metadata", "namespace"): DELETE})
    obj: ApiObject = info.cls.from_dict(doc)
    validate_object(obj)
    return obj


def parse_update(prev: ApiObject, doc: Mapping[str, Any]) -> ApiObject:
    """:func:`parse_object` of ``doc``, a later version of ``prev`` (an informer's update):
    the same object, built cheaper for a Pod whose spec barely changed (see
    :meth:`Pod.updated_from`). Anything else, or a different kind or name, parses whole."""
    if type(prev) is Pod and isinstance(doc, Mapping) and doc.get("kind") == "Pod" \
            and doc.get("apiVersion") == "v1":
        md = doc.get("metadata")
        if isinstance(md, Mapping) and md.get("name") == prev.meta.name and prev.meta.namespace \
                and md.get("namespace") == prev.meta.namespace:
            obj = prev.updated_from(doc)
            validate_object(obj)
            return obj
    return parse_object(doc)


def _is_list(doc: Mapping[str, Any], kind: str) -> bool:
    """``kind: List``, a typed list of a kind we read (``PodList``), or any other ``<Kind>List``
    carrying an ``items`` list (``ConfigMapList``: its items are skipped one by one)."""
    if kind == "List" or (kind.endswith("List") and kind[:-4] in KINDS):
        return True
    return kind.endswith("List") and isinstance(doc.get("items"), list)


def _items(doc: Any, where: str) -> Iterator[tuple[Any, str]]:
    """A document, or each item of a List document, with its location (items counted from 1)."""
    if not isinstance(doc, Mapping):
        raise LoadError(f"{where}: a manifest must be a mapping, got {type(doc).__name__}")
    kind = str(doc.get("kind") or "")
    if not _is_list(doc, kind):
        yield doc, where
        return
    items = doc.get("items") or []
    if not isinstance(items, list):
        raise LoadError(f"{where} ({kind}): items must be a list")
    for j, item in enumerate(items, 1):
        item_where = f"{where}, item {j}"
        if kind != "List" and isinstance(item, Mapping):
            # A typed list (PodList from the raw API) leaves kind/apiVersion off its items.
            item = {"kind": kind[:-4], "apiVersion": doc.get("apiVersion"), **item}
        if isinstance(item, Mapping) and str(item.get("kind") or "").endswith("List"):
            raise LoadError(f"{item_where}: nested lists are not supported")
        yield item, item_where


def _count_items(docs: Sequence[Any]) -> int:
    """How many objects ``docs`` hold (List items counted one by one), for progress."""
    n = 0
    for doc in docs:
        if isinstance(doc, Mapping) and _is_list(doc, str(doc.get("kind") or "")):
            items = doc.get("items")
            n += len(items) if isinstance(items, list) else 1
        else:
            n += 1
    return n


def _parse_text(text: str, source: str, json_only: bool,
                parsed: Callable[[int], None] | None = None) -> list[Any]:
    """The documents of one file, empty ones (``---`` alone, comments, JSON ``null``) left out;
    raises LoadError on malformed text and on a file with no document at all."""
    try:
        if json_only:
            docs = [json.loads(text)] if text.strip() else []
        else:
            docs = load_yaml(text, parsed)
    except ExcessiveAliasing as exc:  # well-formed, but refused before it expands
        raise LoadError(f"{source}: {exc}") from exc
    except (yaml.YAMLError, json.JSONDecodeError) as exc:
        raise LoadError(f"{source}: malformed {'JSON' if json_only else 'YAML'}: {exc}") from exc
    except RecursionError as exc:
        raise LoadError(f"{source}: malformed {'JSON' if json_only else 'YAML'}: nested too deeply") from exc
    return docs


_PROGRESS_EVERY: Final = 512


def load_documents(text: str, source: str, json_only: bool = False, *, strict: bool = False,
                   progress: ProgressFn | None = None) -> LoadedObjects:
    """Parse one file's text (YAML stream, or JSON when ``json_only``); raises LoadError.

    Objects of kinds the scheduler does not read are counted in ``skipped``, or refused when
    ``strict``. ``progress`` hears about the parse and every few hundred objects."""
    with gc_paused():
        return _load_documents(text, source, json_only, strict, progress)


def _load_documents(text: str, source: str, json_only: bool, strict: bool,
                    progress: ProgressFn | None) -> LoadedObjects:
    parsed: Callable[[int], None] | None = None
    if progress is not None:
        progress(f"parsing {source}", 0, 0)

        def parsed(n: int) -> None:
            progress(f"parsing {source}", n, len(text))

    docs = _parse_text(text, source, json_only, parsed)
    out = LoadedObjects()
    total = _count_items(docs) if progress is not None else 0
    done = 0
    empty = True
    sharer = BranchSharer()
    for i, doc in enumerate(docs, 1):
        if doc is None:
            continue
        empty = False
        for item, where in _items(doc, f"{source}: document {i}"):
            done += 1
            if progress is not None and done % _PROGRESS_EVERY == 0:
                progress(f"reading {source}", done, total)
            kind = item.get("kind") if isinstance(item, Mapping) else None
            if type(kind) is str and kind and kind not in KINDS and kind not in _CONFIG_KINDS:
                if strict:
                    raise LoadError(f"{where} ({_describe_raw(item)}): kind {kind!r} is not read by the "
                                    f"scheduler (kinds read: {', '.join(KINDS)})")
                out.skipped[kind] = out.skipped.get(kind, 0) + 1
                continue
            if type(item) is dict:
                sharer.share(item)
            try:
                obj = parse_object(item)
            except LoadError:
                raise
            except (ValueError, TypeError, AttributeError, LookupError, ArithmeticError) as exc:
                desc = _describe_raw(item) if isinstance(item, Mapping) else "object"
                # A TypeError/AttributeError means a field of the wrong shape (a string where a
                # mapping or a list belongs): say so rather than quoting Python's message alone.
                why = str(exc) if isinstance(exc, ValueError) else f"a field has the wrong type ({exc})"
                raise LoadError(f"{where} ({desc}): {why}") from exc
            out.add(obj, where)
    if empty:
        raise LoadError(f"{source}: no manifest in it (the input is empty)")
    if progress is not None:
        progress(f"reading {source}", done, total)
    return out


def manifest_files(paths: Sequence[str | FsPath]) -> list[str | FsPath]:
    """The files ``paths`` name: files as given, directories searched recursively (sorted) for
    ``*.yaml``/``*.yml``/``*.json``, ``-`` for stdin. Raises LoadError for a path that does not
    exist and for a directory without a manifest file."""
    out: list[str | FsPath] = []
    for p in paths:
        if str(p) == "-":
            out.append("-")
            continue
        fp = FsPath(p)
        if fp.is_dir():
            found = sorted(f for f in fp.rglob("*") if f.is_file() and f.suffix in _SUFFIXES)
            if not found:
                raise LoadError(f"{p}: no manifest in this directory (no *.yaml, *.yml or *.json file)")
            out.extend(found)
        elif fp.is_file():
            out.append(fp)
        else:
            raise LoadError(f"{p}: no such file or directory")
    return out


def load_paths(paths: Sequence[str | FsPath], stdin: str | None = None, *, strict: bool = False,
               progress: ProgressFn | None = None) -> LoadedObjects:
    """Load every manifest under ``paths`` (see :func:`manifest_files`; ``stdin`` overrides
    sys.stdin, for tests). Raises LoadError on the first bad document, duplicate object,
    unreadable or empty path; with ``strict``, also on an object of a kind not read."""
    with gc_paused():
        return _load_paths(paths, stdin, strict, progress)


def _load_paths(paths: Sequence[str | FsPath], stdin: str | None, strict: bool,
                progress: ProgressFn | None) -> LoadedObjects:
    out = LoadedObjects()
    for p in manifest_files(paths):
        if p == "-":
            text = stdin if stdin is not None else sys.stdin.read()
            out.extend(load_documents(text, "<stdin>", strict=strict, progress=progress))
            continue
        fp = FsPath(p)
        try:
            text = fp.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            raise LoadError(f"{fp}: cannot read: {exc}") from exc
        out.extend(load_documents(text, str(fp), json_only=fp.suffix == ".json", strict=strict,
                                  progress=progress))
    return out
