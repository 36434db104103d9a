"""Plugin registries and out-of-tree plugin loading.

A :class:`Registry` maps a plugin name to its factory, like upstream's ``runtime.Registry``
(pkg/scheduler/framework/runtime/registry.go): ``register`` refuses a name twice, ``merge`` adds
another registry. A factory is called as ``factory(args, handle)`` and returns the plugin;
plugin classes deriving :class:`~kubesched.framework.PluginBase` are factories as they are.

Out-of-tree plugins are Python classes, found the way pluggy finds plugins
(pluggy ``_manager.py`` load_setuptools_entrypoints): a name that contains ``:`` is an import
path (``package.module:Class``); any other unknown name is looked up in the ``kubesched.plugins``
entry-point group. Either way the class's ``NAME`` becomes its plugin name, and the class is
checked at load for the extension points it is enabled for, naming plugin and method in errors.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from importlib import metadata
from typing import TYPE_CHECKING, Any

from ._extension_points import EXTENSION_POINT_BY_KEY, implements, signature_problem

if TYPE_CHECKING:
    from ._handle import Handle
    from ._interface import Plugin

__all__ = [
    "ENTRY_POINT_GROUP",
    "LoadedPlugin",
    "PluginFactory",
    "PluginLoadError",
    "Registry",
    "check_plugin_class",
    "entry_point_plugins",
    "load_plugin",
    "plugin_name_of",
]

ENTRY_POINT_GROUP = "kubesched.plugins"

PluginFactory = Callable[[Any, "Handle"], "Plugin"]
"""``factory(args, handle) -> plugin``; ``args`` is the decoded PluginArgs (or raw mapping:
any plugin's own type)."""


class PluginLoadError(ValueError):
    """An out-of-tree plugin could not be loaded or does not implement what it is enabled for."""


class Registry(dict[str, PluginFactory]):
    """Plugin name -> factory (runtime.Registry)."""

    def register(self, name: str, factory: PluginFactory) -> None:
        if name in self:
            raise ValueError(f"a plugin named {name} already exists")
        self[name] = factory

    def unregister(self, name: str) -> None:
        if name not in self:
            raise ValueError(f"no plugin named {name} exists")
        del self[name]

    def merge(self, other: Mapping[str, PluginFactory]) -> None:
        for name, factory in other.items():
            self.register(name, factory)


@dataclass(frozen=True, slots=True)
class LoadedPlugin:
    """An out-of-tree plugin class and where it came from (for listing and errors)."""

    name: str
    factory: PluginFactory
    source: str  # the import path or "entry point <name> (<distribution>)"


def plugin_name_of(cls: Any) -> str:
    """The plugin name a class declares: ``NAME`` (our convention), else ``name()`` if static."""
    name = getattr(cls, "NAME", None)
    if isinstance(name, str) and name:
        return name
    raise PluginLoadError(f"{_qualname(cls)} has no NAME: a plugin class must set NAME = '<PluginName>'")


def _qualname(obj: Any) -> str:
    return f"{getattr(obj, '__module__', '?')}:{getattr(obj, '__qualname__', repr(obj))}"


def _import_path(spec: str) -> Any:
    mod_name, _, attr = spec.partition(":")
    if not mod_name or not attr:
        raise PluginLoadError(f"{spec!r}: an import path must look like 'package.module:Class'")
    try:
        obj: Any = importlib.import_module(mod_name)
    except ImportError as exc:
        raise PluginLoadError(f"{spec!r}: cannot import module {mod_name!r}: {exc}") from exc
    for part in attr.split("."):
        try:
            obj = getattr(obj, part)
        except AttributeError:
            raise PluginLoadError(f"{spec!r}: module {mod_name!r} has no attribute {attr!r}") from None
    return obj


def entry_point_plugins(group: str = ENTRY_POINT_GROUP) -> dict[str, metadata.EntryPoint]:
    """The installed entry points of ``group``, by name (not loaded: loading imports code)."""
    return {ep.name: ep for ep in metadata.entry_points(group=group)}


def load_plugin(name: str, *, group: str = ENTRY_POINT_GROUP) -> LoadedPlugin | None:
    """Resolve an out-of-tree plugin name: an import path, else an entry point; None if neither.

    Raises :class:`PluginLoadError` when the name is an import path or entry point that fails to
    load or does not name a plugin class."""
    if ":" in name:
        obj, source = _import_path(name), name
    else:
        ep = entry_point_plugins(group).get(name)
        if ep is None:
            return None
        try:
            obj = ep.load()
        except Exception as exc:
            raise PluginLoadError(f"entry point {name!r} ({ep.value}): {exc}") from exc
        dist = getattr(getattr(ep, "dist", None), "name", None)
        source = f"entry point {name} ({ep.value}{', ' + dist if dist else ''})"
    if not callable(obj):
        raise PluginLoadError(f"{source}: {obj!r} is not a plugin class or factory")
    pname = plugin_name_of(obj)
    if not implements(obj):
        raise PluginLoadError(f"plugin {pname!r} ({source}) implements no extension point")
    return LoadedPlugin(pname, obj, source)


def check_plugin_class(name: str, factory: Any, points: Iterable[str], source: str = "") -> None:
    """Fail unless ``factory`` (a class) implements every extension point in ``points``.

    Factories that are plain functions are not checked here: their plugin only exists once
    built, and the runtime checks the instance (``... does not extend ...``)."""
    if not isinstance(factory, type):
        return
    where = f" ({source})" if source else ""
    for key in points:
        ep = EXTENSION_POINT_BY_KEY[key]
        for method, params in ep.methods:
            problem = signature_problem(factory, method, params)
            if problem:
                raise PluginLoadError(
                    f"plugin {name!r}{where} is enabled for {key} but {problem}")
