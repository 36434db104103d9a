"""Objects a workload creates, from templates: nodes, namespaces, pods and their volumes.

Mirrors the object makers of test/integration/scheduler_perf (scheduler_perf.go createNodes /
createPods, test/utils/runners.go: LabelNodePrepareStrategy, NodeAllocatableStrategy,
MakePodSpec, the PV/PVC pairs of persistentVolumeTemplatePath), master 2026.

Names: ``metadata.generateName`` plus a per-prefix counter (upstream's API server appends a
random suffix; a counter keeps runs reproducible). String values may use ``{{.Name}}`` (the
generated name) and ``{{.Index}}`` (the object's index within its op), a subset of upstream's
Go templating, so a node template can set ``kubernetes.io/hostname`` to the node's own name; a
placeholder that is a whole unquoted value (``int: {{.Index}}``) becomes the number it renders
to, as Go's text templating (which runs before the YAML is read) makes it.

A template with any other action (``{{range ...}}``, ``{{if ...}}``, variables, functions; the
DRA ``listattributes/`` templates loop over the op's ``templateParams``) is rendered whole, per
object, by :mod:`._gotemplate` (Go's ``text/template`` subset upstream uses) with upstream's env
``{Index, Count, <templateParams>}``, and the rendered text read as YAML, as upstream's
``getSpecFromTextTemplateFile`` does.

``nodeImageStrategy`` (createNodes) is kubesched's own: upstream's scheduler_perf has no way to
give nodes container images, which ImageLocality scores (see :class:`NodeImageStrategy`).
"""

from __future__ import annotations

import copy
import datetime
import random
import re
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import yaml

from ..api import CSINode, Namespace, Node, PersistentVolume, PersistentVolumeClaim, Pod, safe_load_yaml
from ..api.loader import KINDS, parse_object
from ._config import BUNDLED_DIR, ConfigError, Op
from ._gotemplate import GoTemplate, TemplateError
from ._images import CatalogImage, NodeImageStrategy, load_catalog

__all__ = ["ObjectFactory", "resolve_template"]

_TEMPLATES = BUNDLED_DIR / "templates"


def resolve_template(path: str, base_dir: Path) -> Path:
    """The template file: relative to the config's directory, else the bundled template of the
    same base name (``../templates/pod-default.yaml`` in upstream's config finds ours)."""
    p = Path(path)
    candidate = p if p.is_absolute() else base_dir / p
    if candidate.is_file():
        return candidate
    for bundled in (_TEMPLATES / p.parent.name / p.name, _TEMPLATES / p.name):
        if bundled.is_file():
            return bundled
    raise ConfigError(f"template {path} not found (looked in {base_dir} and the bundled templates)")


_PLACEHOLDER = re.compile(r"\{\{\s*(?:\.(Name|Index)|DivideInt\s+\.Index\s+(\d+))\s*\}\}")
"""``{{.Name}}``, ``{{.Index}}`` (spaces allowed inside the braces, as Go templates allow) and
``{{DivideInt .Index N}}`` (upstream's template function, e.g. five pods per claim)."""


def _render_text(text: str, name: str, index: int) -> str:
    def sub(m: re.Match[str]) -> str:
        if m.group(1) == "Name":
            return name
        if m.group(1) == "Index":
            return str(index)
        divisor = int(m.group(2))
        if divisor == 0:
            raise ConfigError(f"template value {text!r}: DivideInt by zero")
        return str(index // divisor)

    return _PLACEHOLDER.sub(sub, text)


_BARE = re.compile(r"^([ \t]*(?:- )?[^#\n]*?:[ \t]+|[ \t]*- )(\{\{[^}\n]*\}\})[ \t]*$", re.MULTILINE)
"""A value that is a placeholder alone, unquoted (``int: {{.Index}}``): Go's text templating
renders it before the YAML is read, so it becomes a number; YAML cannot read it as it stands."""
_TYPED = "\x00"  # marks a bare placeholder quoted by _quote_bare: rendered, then read as YAML


def _quote_bare(text: str) -> str:
    """The template text with its bare placeholders quoted and marked (see :data:`_BARE`)."""
    return _BARE.sub(lambda m: f'{m.group(1)}"\\0{m.group(2)}"', text)  # YAML's escape of _TYPED


def _render(value: Any, name: str, index: int) -> Any:
    """A fresh copy of the template tree (new dicts and lists, which callers may edit; the
    leaves are immutable scalars) with the placeholders of :data:`_PLACEHOLDER` rendered."""
    if isinstance(value, str):
        if value.startswith(_TYPED):
            return safe_load_yaml(_render_text(value[1:], name, index))
        if "{{" in value:
            return _render_text(value, name, index)
        return value
    if isinstance(value, list):
        return [_render(v, name, index) for v in value]
    if isinstance(value, dict):
        # Keys too: a resource name like ``example.com/gpu-{{.Index}}`` (Go templates render
        # the whole text).
        return {(_render_text(k, name, index) if isinstance(k, str) and "{{" in k else k):
                _render(v, name, index) for k, v in value.items()}
    return value if isinstance(value, _IMMUTABLE) else copy.deepcopy(value)


_IMMUTABLE = (int, float, type(None), datetime.date, bytes)
"""Leaf types YAML yields that need no copy (bool is an int; datetime a date)."""



_GO = "\x00go-template"
"""The key under which :meth:`ObjectFactory.template` keeps a :class:`_GoSource` (a template
rendered whole per object); the rest of that dict is the first object, for its kind."""


def _is_go_template(text: str) -> bool:
    """Whether the text has an action beyond the placeholders :func:`_render_text` renders."""
    return "{{" in _PLACEHOLDER.sub("", text)


class _GoSource:
    """A Go-templated file with the op's env: renders the object of one index."""

    __slots__ = ("count", "params", "path", "tmpl")

    def __init__(self, path: Path, tmpl: GoTemplate, params: Mapping[str, Any], count: int) -> None:
        self.path, self.tmpl, self.params, self.count = path, tmpl, params, count

    def render(self, index: int) -> dict[str, Any]:
        """The object of ``index``: upstream's env (``Index``, ``Count``, then the params)."""
        env = {"Index": index, "Count": self.count, **self.params}
        try:
            text = self.tmpl.execute(env)
        except TemplateError as exc:
            raise ConfigError(f"{self.path}: template: {exc}") from None
        try:
            doc = safe_load_yaml(text, fast=True)
        except yaml.YAMLError as exc:
            raise ConfigError(f"{self.path}: the rendered template (index {index}) is not valid "
                              f"YAML: {exc}") from None
        if not isinstance(doc, dict) or "kind" not in doc:
            raise ConfigError(f"{self.path}: a template is one object with a kind")
        return doc


def _has_placeholder(value: Any) -> bool:
    if isinstance(value, _GoSource):
        return True
    if isinstance(value, str):
        return "{{" in value
    if isinstance(value, list):
        return any(_has_placeholder(v) for v in value)
    if isinstance(value, dict):
        return any(_has_placeholder(v) or (isinstance(k, str) and "{{" in k) for k, v in value.items())
    return False


class ObjectFactory:
    """Makes the objects of one workload run; ``rng`` drives LabelNodePrepareStrategy's
    random label values, as upstream's ``rand.Intn`` does, from the run's seed."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self._templates: dict[Path, dict[str, Any]] = {}
        self._go: dict[Path, GoTemplate] = {}
        self._catalogs: dict[Path, list[CatalogImage]] = {}
        self._counters: dict[str, int] = {}

    def template(self, op: Op, key: str) -> dict[str, Any]:
        """The template of ``op[key]``: its parsed tree (placeholders rendered per object by
        :meth:`instantiate`), or for a Go-templated file its first object with the source."""
        path = resolve_template(str(op.get(key)), op.base_dir)
        if path in self._go or (path not in self._templates and _is_go_template(path.read_text())):
            return self._go_template(op, path)
        doc = self._templates.get(path)
        if doc is None:
            loaded = safe_load_yaml(_quote_bare(path.read_text()))
            if not isinstance(loaded, dict) or "kind" not in loaded:
                raise ConfigError(f"{path}: a template is one object with a kind")
            self._templates[path] = doc = loaded
        return doc

    def _go_template(self, op: Op, path: Path) -> dict[str, Any]:
        tmpl = self._go.get(path)
        if tmpl is None:
            try:
                tmpl = self._go[path] = GoTemplate(path.read_text())
            except TemplateError as exc:
                raise ConfigError(f"{path}: template: {exc}") from None
        params = op.get("templateParams") or {}
        if not isinstance(params, Mapping):
            raise ConfigError(f"op {op.index} ({op.opcode}): templateParams must be a mapping")
        count = op.count if "count" in op.fields else 1
        source = _GoSource(path, tmpl, dict(params), count)
        return {**source.render(0), _GO: source}

    def _name(self, meta: Mapping[str, Any], fallback: str, index: int) -> str:
        if meta.get("name"):
            # A templated name (``scheduler-perf-dra-{{ .Index }}``) is the object's own.
            return _render_text(str(meta["name"]), "", index)
        prefix = str(meta.get("generateName") or fallback)
        n = self._counters.get(prefix, 0)
        self._counters[prefix] = n + 1
        return f"{prefix}{n}"

    def _metadata(self, tmpl: Mapping[str, Any], index: int, namespace: str | None,
                  fallback: str) -> dict[str, Any]:
        """The instance's metadata: a name (generated when the template has ``generateName``),
        ``{{.Name}}``/``{{.Index}}`` rendered and, for namespaced kinds, the namespace set."""
        meta = dict(tmpl.get("metadata") or {})
        name = self._name(meta, fallback, index)
        meta = _render(meta, name, index)
        meta.pop("generateName", None)
        meta["name"] = name
        if namespace is not None:
            meta["namespace"] = namespace
        return meta

    def instantiate(self, tmpl: Mapping[str, Any], index: int, namespace: str | None = None,
                    fallback: str = "obj-") -> dict[str, Any]:
        """A copy of ``tmpl`` with its metadata made by :meth:`_metadata` and the rest of
        ``{{.Name}}``/``{{.Index}}`` rendered."""
        source = tmpl.get(_GO)
        if isinstance(source, _GoSource):
            doc = source.render(index)
            doc["metadata"] = self._metadata(doc, index, namespace, fallback)
            return doc
        meta = self._metadata(tmpl, index, namespace, fallback)
        doc = {k: meta if k == "metadata" else _render(v, meta["name"], index) for k, v in tmpl.items()}
        doc["metadata"] = meta
        return doc

    # -- createNodes ----------------------------------------------------------------------
    def nodes(self, op: Op) -> list[Node | CSINode]:
        """``count`` nodes from ``nodeTemplatePath`` (the bundled node-default otherwise), with
        ``labelNodePrepareStrategy`` (one random value of ``labelValues`` per node),
        ``nodeAllocatableStrategy`` (extra allocatable and a CSINode with driver limits) and
        ``nodeImageStrategy`` (``status.images`` drawn from a catalog, see ``_images.py``)."""
        tmpl = self.template(op, "nodeTemplatePath") if op.get("nodeTemplatePath") else \
            yaml.safe_load((_TEMPLATES / "node-default.yaml").read_text())
        label = op.get("labelNodePrepareStrategy") or {}
        alloc = op.get("nodeAllocatableStrategy") or {}
        images = self._image_strategy(op)
        out: list[Node | CSINode] = []
        for i in range(op.count):
            doc = self.instantiate(tmpl, i, fallback="scheduler-perf-")
            if images is not None:
                doc.setdefault("status", {})["images"] = images.draw(self.rng)
            if label:
                values = list(label.get("labelValues") or [""])
                value = values[self.rng.randrange(len(values))] if len(values) > 1 else values[0]
                doc["metadata"].setdefault("labels", {})[str(label["labelKey"])] = str(value)
            if alloc:
                status = doc.setdefault("status", {})
                for field in ("capacity", "allocatable"):
                    res = dict(status.get(field) or {})
                    res.update({str(k): str(v) for k, v in (alloc.get("nodeAllocatable") or {}).items()})
                    status[field] = res
            node = parse_object(doc)
            out.append(node)  # type: ignore[arg-type]
            drivers = alloc.get("csiNodeAllocatable") or {}
            if drivers:
                name = doc["metadata"]["name"]
                out.append(CSINode.from_dict({
                    "apiVersion": "storage.k8s.io/v1", "kind": "CSINode", "metadata": {"name": name},
                    "spec": {"drivers": [
                        {"name": d, "nodeID": name, "allocatable": {"count": int(v.get("count", 0))}}
                        for d, v in drivers.items()]},
                }))
        return out

    def _image_strategy(self, op: Op) -> NodeImageStrategy | None:
        """The op's ``nodeImageStrategy``, its catalog loaded once per file."""
        raw = op.get("nodeImageStrategy")
        if raw is None:
            return None
        where = f"op {op.index} (createNodes)"
        path_value = raw.get("catalogPath") if isinstance(raw, Mapping) else None
        if not isinstance(path_value, str) or not path_value:
            raise ConfigError(f"{where}: nodeImageStrategy.catalogPath is required")
        path = resolve_template(path_value, op.base_dir)
        catalog = self._catalogs.get(path)
        if catalog is None:
            catalog = self._catalogs[path] = load_catalog(path)
        return NodeImageStrategy.parse(raw, catalog, where)

    # -- createNamespaces -----------------------------------------------------------------
    def namespaces(self, op: Op) -> list[Namespace]:
        prefix = str(op.get("prefix") or "namespace")
        tmpl: dict[str, Any] = self.template(op, "namespaceTemplatePath") \
            if op.get("namespaceTemplatePath") else {"apiVersion": "v1", "kind": "Namespace"}
        out = []
        for i in range(op.count):
            doc = copy.deepcopy(tmpl)
            doc["metadata"] = {**dict(doc.get("metadata") or {}), "name": f"{prefix}-{i}"}
            out.append(Namespace.from_dict(doc))
        return out

    # -- createPods -------------------------------------------------------------------------
    def pods(self, op: Op, namespace: str, count: int | None = None, template_key: str = "podTemplatePath",
             ) -> Iterator[Pod | PersistentVolume | PersistentVolumeClaim]:
        """``count`` pods (the op's by default); with ``persistentVolumeTemplatePath`` and
        ``persistentVolumeClaimTemplatePath`` each pod gets its own PV and a PVC bound to it,
        as upstream's createPods with volumes does (PV first, then PVC, then the pod).

        Made one at a time, as upstream's client creates them: a caller that creates each in
        the store as it comes never holds the op's manifests beside the store's (450,000 pods
        at 50,000 nodes), and the seeded draws come in the same order either way."""
        tmpl = self.template(op, template_key)
        pv_tmpl = self.template(op, "persistentVolumeTemplatePath") \
            if op.get("persistentVolumeTemplatePath") else None
        pvc_tmpl = self.template(op, "persistentVolumeClaimTemplatePath") \
            if op.get("persistentVolumeClaimTemplatePath") else None
        # Pods of one template differ only in metadata unless something else is templated or
        # gets a volume: parse the first, derive the others with their own metadata (their
        # manifests share the unchanged parts, which nothing mutates).
        shared = pv_tmpl is None and not _has_placeholder([v for k, v in tmpl.items() if k != "metadata"])
        first: Pod | None = None
        for i in range(op.count if count is None else count):
            if shared and first is not None:
                meta = self._metadata(tmpl, i, namespace, "pod-")
                yield first.with_changes({("metadata",): meta})
                continue
            doc = self.instantiate(tmpl, i, namespace, fallback="pod-")
            if pv_tmpl is not None and pvc_tmpl is not None:
                pv_doc = self.instantiate(pv_tmpl, i, fallback="pv-")
                pvc_doc = self.instantiate(pvc_tmpl, i, namespace, fallback="pvc-")
                pv_name, pvc_name = pv_doc["metadata"]["name"], pvc_doc["metadata"]["name"]
                pv_doc["spec"]["claimRef"] = {"namespace": namespace, "name": pvc_name}
                pv_doc["status"] = {"phase": "Bound"}
                pvc_doc["spec"]["volumeName"] = pv_name
                pvc_doc["status"] = {"phase": "Bound"}
                spec = doc.setdefault("spec", {})
                spec["volumes"] = [*list(spec.get("volumes") or []),
                                   {"name": "vol", "persistentVolumeClaim": {"claimName": pvc_name}}]
                yield PersistentVolume.from_dict(pv_doc)
                yield PersistentVolumeClaim.from_dict(pvc_doc)
            first = Pod.from_dict(doc)
            yield first

    def any(self, tmpl: Mapping[str, Any], index: int, namespace: str) -> Any:
        """One object of any kind (churn, createAny); namespaced kinds go to ``namespace``."""
        kind = tmpl.get("kind")
        info = KINDS.get(str(kind))
        ns = namespace if info is not None and info.namespaced else None
        return parse_object(self.instantiate(tmpl, index, ns, fallback=f"{str(kind).lower()}-"))
