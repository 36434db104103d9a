"""No optional capability is looked up by a string in the framework, the plugins or the scheduler.

Optional capabilities are ``typing.Protocol`` contracts beside the interfaces they extend (the
plugin ones in ``framework/_interface.py``, the store's beside ``cluster.Store``); what remains of
``getattr`` / ``hasattr`` is reflection over objects unknown by construction, each listed with
its reason in docs/architecture.md. A new lookup fails here: declare a protocol instead, or, if
it is reflection of that kind, add it to the list and to the docs."""

from __future__ import annotations

import ast
from collections import Counter
from pathlib import Path

SRC = Path(__file__).resolve().parent.parent / "src" / "kubesched"

ALLOWED = Counter({
    # loading plugins by module:attribute path or entry point, reading their NAME
    "framework/_registry.py": 6,
    "plugins/registry.py": 3,
    # which extension points a plugin class implements, by upstream's method names
    "framework/_extension_points.py": 2,
    # configuration dataclasses encoded and merged field by field
    "framework/_plugin_base.py": 1,
    "framework/config/_types.py": 1,
    "framework/config/_defaults.py": 2,
    # list_plugins: each extension point's own plugin list
    "framework/_runtime.py": 1,
    # StateData.Clone on values of the plugins' own types
    "framework/_cycle_state.py": 1,
    # objects the API types do not model, kept as raw manifests
    "plugins/volumebinding/volume_binding.py": 1,
    # the Prometheus method of the metric's kind
    "scheduler/_metrics.py": 1,
    # a threading.local flag threads that never ran a binding task have not set
    "scheduler/_binding.py": 1,
})


def _lookups() -> Counter[str]:
    found: Counter[str] = Counter()
    for package in ("framework", "plugins", "scheduler"):
        for path in sorted((SRC / package).rglob("*.py")):
            tree = ast.parse(path.read_text(), filename=str(path))
            for node in ast.walk(tree):
                if (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
                        and node.func.id in ("getattr", "hasattr")):
                    found[path.relative_to(SRC).as_posix()] += 1
    return found


def test_only_the_listed_reflection_remains() -> None:
    assert _lookups() == ALLOWED
