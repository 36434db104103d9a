"""Layers point down only: api -> cluster/cache -> framework -> plugins, queue -> scheduler ->
extender, simulator, replay -> cli.

Every import in src/kubesched (module level, inside functions and under TYPE_CHECKING alike) is
checked against the layer of the importing and of the imported module. Upstream's framework
never names a plugin: it asks a plugin what it can do (optional interfaces; here also
``FilterInputs``), and the scheduler hands it the in-tree registry.

One deliberate placement: decoding and defaulting the configuration (``framework/config``
outside its ``_types``/``_validation``) is upstream's ``pkg/scheduler/apis/config/v1``, which
lists the default plugins by name (``plugins/names``) and knows their args; it sits above the
plugins and may read their names and the in-tree registry, never a plugin package itself.
The framework core reads only the config's types.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parent.parent / "src" / "kubesched"

# Layer of a module, by the longest matching prefix; a module may import its own layer (within
# its own top-level package) and any lower one.
LAYERS: dict[str, float] = {
    "kubesched.clock": 0,
    "kubesched.metrics": 0,  # the Prometheus exposition every /metrics serves
    "kubesched.api": 0,
    # k8s.io/dynamic-resource-allocation: reads the api objects; the store's admission compiles
    # the CEL selectors with it, as the API server's validation does.
    "kubesched.dra": 0.5,
    "kubesched.cluster": 1,
    "kubesched.cache": 1,
    "kubesched.framework": 2,
    "kubesched.queue": 3,
    "kubesched.plugins": 3,
    "kubesched.framework.config": 4,
    "kubesched.framework.config._types": 2,
    "kubesched.framework.config._validation": 2,
    "kubesched.scheduler": 5,
    "kubesched.controllers": 5,  # beside the scheduler: acts on the store, never called by it
    "kubesched.testing": 6,
    "kubesched.perf": 6,
    "kubesched.app": 6,
    "kubesched.extender": 6,
    "kubesched.replay": 6,  # drives store, controllers and scheduler on the virtual clock from a trace
    "kubesched.simulator": 6,  # runs controllers and scheduler on the virtual clock; simulate, capacity
    "kubesched.cli": 7,
    "kubesched": 8,  # the package root re-exports the public surface
}

# What the configuration layer may read of the plugins.
CONFIG_MAY_IMPORT = {"kubesched.plugins", "kubesched.plugins.names", "kubesched.plugins.registry"}



def _layer_key(module: str) -> str:
    best = ""
    for prefix in LAYERS:
        if (module == prefix or module.startswith(prefix + ".")) and len(prefix) > len(best):
            best = prefix
    assert best, module
    return best


def _module_name(path: Path, root: Path) -> tuple[str, bool]:
    rel = path.relative_to(root.parent).with_suffix("")
    parts = list(rel.parts)
    is_pkg = parts[-1] == "__init__"
    if is_pkg:
        parts.pop()
    return ".".join(parts), is_pkg


def _imports(path: Path, root: Path) -> list[tuple[int, str]]:
    """(line, absolute module) of every kubesched import in ``path``; for ``from X import y``
    both X and X.y (y may be a submodule)."""
    module, is_pkg = _module_name(path, root)
    package = module.split(".") if is_pkg else module.split(".")[:-1]
    out: list[tuple[int, str]] = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            out += [(node.lineno, a.name) for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package[: len(package) - node.level + 1]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            out.append((node.lineno, target))
            out += [(node.lineno, f"{target}.{a.name}") for a in node.names if a.name != "*"]
    return [(line, t) for line, t in out if t == "kubesched" or t.startswith("kubesched.")]


def _existing(module: str) -> bool:
    rel = Path(*module.split("."))
    return (SRC.parent / rel).with_suffix(".py").exists() or (SRC.parent / rel / "__init__.py").exists()


def _violations(path: Path, root: Path = SRC) -> list[str]:
    """The imports of ``path`` (a module of the package at ``root``) that point up."""
    module, _ = _module_name(path, root)
    src_key = _layer_key(module)
    src_layer = LAYERS[src_key]
    src_top = module.split(".")[:2]
    bad: list[str] = []
    for line, target in _imports(path, root):
        if not _existing(target) or target == "kubesched":
            continue  # a name imported from a module, not a module
        dst_key = _layer_key(target)
        dst_layer = LAYERS[dst_key]
        same_top = target.split(".")[:2] == src_top
        if dst_layer > src_layer or (dst_layer == src_layer and not same_top and src_layer != 8):
            if src_key == "kubesched.framework.config" and target in CONFIG_MAY_IMPORT:
                continue
            bad.append(f"{path.relative_to(root.parent)}:{line}: {module} imports {target}")
        elif src_key == "kubesched.framework.config" and dst_key == "kubesched.plugins" \
                and target not in CONFIG_MAY_IMPORT:
            bad.append(f"{path.relative_to(root.parent)}:{line}: {module} imports {target}")
    return bad


def _private_crossings(path: Path, root: Path = SRC) -> list[str]:
    """The imports of ``path`` that name a private (underscored) module of another top-level
    package: what a package offers others is its ``__init__``'s ``__all__``."""
    module, _ = _module_name(path, root)
    src_top = module.split(".")[:2]
    bad: list[str] = []
    for line, target in _imports(path, root):
        parts = target.split(".")
        if parts[:2] == src_top or not _existing(target):
            continue
        if any(p.startswith("_") and not p.startswith("__") for p in parts[2:]):
            bad.append(f"{path.relative_to(root.parent)}:{line}: {module} imports {target}")
    return bad


def test_no_private_module_of_another_package_is_imported() -> None:
    bad = [v for f in sorted(SRC.rglob("*.py")) for v in _private_crossings(f)]
    assert not bad, "imports of another package's private module (export it instead):\n" + "\n".join(bad)


def test_the_check_catches_a_private_import(tmp_path: Path) -> None:
    fake_root = tmp_path / "kubesched"
    fake = fake_root / "cli" / "_render.py"
    fake.parent.mkdir(parents=True)
    fake.write_text((SRC / "cli" / "_render.py").read_text()
                    + "\nfrom ..scheduler._explain import Explanation\n")
    got = _private_crossings(fake, fake_root)
    assert got and got[-1].endswith("imports kubesched.scheduler._explain"), got


def test_every_import_points_down() -> None:
    files = sorted(SRC.rglob("*.py"))
    assert len(files) > 100
    bad = [v for f in files for v in _violations(f)]
    assert not bad, "imports pointing up or sideways:\n" + "\n".join(bad)


@pytest.mark.parametrize(("importer", "source", "named"), [
    pytest.param("framework/_nominated.py", "from ..plugins.noderesources import Fit\n",
                 "kubesched.plugins.noderesources", id="framework-imports-a-plugin"),
    pytest.param("framework/preemption/_evaluator.py", "from ...scheduler import FitError\n",
                 "kubesched.scheduler", id="framework-imports-the-scheduler"),
    pytest.param("queue/_scheduling_queue.py", "from ..plugins.names import POD_TOPOLOGY_SPREAD\n",
                 "kubesched.plugins.names", id="queue-imports-plugin-names"),
    pytest.param("plugins/nodename/node_name.py", "from kubesched.scheduler import Scheduler\n",
                 "kubesched.scheduler", id="plugin-imports-the-scheduler"),
    pytest.param("plugins/nodename/node_name.py", "from kubesched.cli import app\n",
                 "kubesched.cli", id="plugin-imports-the-cli"),
    pytest.param("cache/_cache.py", "from ..framework import Status\n",
                 "kubesched.framework", id="cache-imports-the-framework"),
    pytest.param("api/_pod.py", "import kubesched.cluster\n", "kubesched.cluster", id="api-imports-cluster"),
    pytest.param("framework/config/_decode.py", "from ...plugins.noderesources import Fit\n",
                 "kubesched.plugins.noderesources", id="config-imports-a-plugin-package"),
])
def test_the_check_catches_an_upward_import(tmp_path: Path, importer: str, source: str,
                                            named: str) -> None:
    """The checker itself: one import pointing up, added to a copy of a module, is reported."""
    fake_root = tmp_path / "kubesched"
    fake = fake_root / importer
    fake.parent.mkdir(parents=True)
    fake.write_text((SRC / importer).read_text() + "\n" + source)
    got = _violations(fake, fake_root)
    assert any(v.endswith(f"imports {named}") for v in got), got
