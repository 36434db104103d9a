"""The configuration editor: a ``KubeSchedulerConfiguration`` typed in the page, read as
``--config`` reads a file (:func:`kubesched.framework.config.loads_config`: same decoding,
defaults and validation, same messages), each error placed on the line of the field it names;
and the score weights as a form.

The form edits the YAML, never a second model of the configuration: a weight set in it becomes
``profiles[i].plugins.score.enabled: [{name, weight}]``, which upstream's configuration gives
precedence over the weight multiPoint carries (getScoreWeights, pkg/scheduler/framework/runtime/
framework.go: the Score set is read before multiPoint; expandMultiPointPlugins skips a plugin the
Score set enables). The effective weights shown are the built framework's
(:func:`kubesched.framework.new_profile_map`), so multiPoint's expansion is the runtime's own.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final

import yaml

from ..api import ExcessiveAliasing, KubeVersion, safe_load_yaml
from ..framework import new_profile_map
from ..framework.config import (
    API_VERSION,
    DEFAULT_SCHEDULER_NAME,
    KIND,
    ConfigError,
    SchedulerConfig,
    default_config,
    loads_config,
)
from ..simulator import dump_yaml
from ._locate import Problem, field_line, yaml_error_line
from ._problems import InputProblems

__all__ = ["CONFIG_SOURCE", "DEFAULT_CONFIG_TEXT", "ProfileWeights", "import_paths", "parse_config",
           "score_weights", "set_score_weights"]

CONFIG_SOURCE: Final = "config.yaml"
"""The name the editor's configuration goes by in messages, as ``--config``'s file's would."""

_TOO_DEEP: Final = Problem(f"{CONFIG_SOURCE}: invalid YAML: nested too deeply")
"""A text nested past the parser's recursion (the loader says the same of manifests)."""

DEFAULT_CONFIG_TEXT: Final = f"apiVersion: {API_VERSION}\nkind: {KIND}\n"
"""The editor's text when ``kubesched ui`` was given no ``--config``: kube-scheduler's defaults."""


def _refused(exc: ExcessiveAliasing) -> ValueError:
    """An alias bomb is no mistake to mark on a line: the whole text is refused, a 400 with the
    one-line message (as a file is, exit 2), before it expands."""
    return ValueError(f"{CONFIG_SOURCE}: {exc}")


def parse_config(text: str, *, features: Mapping[str, bool] | None = None,
                 kube_version: KubeVersion | None = None,
                 allowed_imports: frozenset[str] = frozenset()) -> SchedulerConfig:
    """The editor's text as a configuration; InputProblems, one per invalid field with its
    line, when ``--config`` would refuse it.

    A plugin named by import path (``package.module:Class``) is imported by the decoder, so the
    page accepts only those of ``allowed_imports`` (the ones the ``--config`` file ``kubesched
    ui`` was started with names: see :func:`import_paths`): a request never makes the server
    import a module the user did not name on its command line. Entry-point plugins (installed
    in the ``kubesched.plugins`` group) and in-tree ones are accepted as ``--config`` accepts them."""
    try:
        named = _plugin_names(text)
    except RecursionError:
        raise InputProblems("configuration", [_TOO_DEEP]) from None
    refused = [(path, name) for path, name in named
               if ":" in name and name not in allowed_imports]
    if refused:
        raise InputProblems("configuration", [Problem(
            f"{CONFIG_SOURCE}: {path}: Forbidden: {name!r}: a plugin named by import path is accepted only "
            "from the --config file kubesched ui was started with", field_line(text, path))
            for path, name in refused])
    try:
        return loads_config(text, CONFIG_SOURCE, features=features, kube_version=kube_version)
    except ConfigError as exc:
        yaml_line = yaml_error_line(exc.__cause__)
        problems = [Problem(f"{CONFIG_SOURCE}: {e}",
                            yaml_line if e.path == "<file>" else field_line(text, e.path))
                    for e in exc.errors]
        raise InputProblems("configuration", problems) from exc
    except ValueError as exc:  # a feature gate the release lacks
        raise InputProblems("configuration", [Problem(f"{CONFIG_SOURCE}: {exc}")]) from exc


def import_paths(text: str) -> frozenset[str]:
    """The plugins a configuration's text names by import path (``package.module:Class``)."""
    return frozenset(name for _, name in _plugin_names(text) if ":" in name)


def _plugin_names(text: str) -> list[tuple[str, str]]:
    """(field path, name) of every plugin a configuration's text names: in each profile's plugin
    sets and pluginConfig. [] for a text that does not parse (the decoder reports it)."""
    try:
        doc = safe_load_yaml(text)
    except ExcessiveAliasing as exc:
        raise _refused(exc) from None
    except yaml.YAMLError:
        return []
    out: list[tuple[str, str]] = []
    profiles = doc.get("profiles") if isinstance(doc, dict) else None
    for i, prof in enumerate(profiles if isinstance(profiles, list) else []):
        if not isinstance(prof, dict):
            continue
        plugins = prof.get("plugins")
        for point, sets in (plugins.items() if isinstance(plugins, dict) else []):
            for which in ("enabled", "disabled"):
                refs = sets.get(which) if isinstance(sets, dict) else None
                for j, ref in enumerate(refs if isinstance(refs, list) else []):
                    if isinstance(ref, dict) and isinstance(ref.get("name"), str):
                        out.append((f"profiles[{i}].plugins.{point}.{which}[{j}].name", ref["name"]))
        configs = prof.get("pluginConfig")
        for j, pc in enumerate(configs if isinstance(configs, list) else []):
            if isinstance(pc, dict) and isinstance(pc.get("name"), str):
                out.append((f"profiles[{i}].pluginConfig[{j}].name", pc["name"]))
    return out


@dataclass(frozen=True, slots=True)
class ProfileWeights:
    """One profile's Score plugins in the order they run, each with its effective weight."""

    scheduler_name: str
    weights: tuple[tuple[str, int], ...]

    def to_dict(self) -> dict[str, Any]:
        return {"schedulerName": self.scheduler_name,
                "plugins": [{"name": n, "weight": w} for n, w in self.weights]}


def score_weights(config: SchedulerConfig | None) -> list[ProfileWeights]:
    """The effective score weights of every profile (None: kube-scheduler's defaults)."""
    cfg = config if config is not None else default_config()
    return [ProfileWeights(name, tuple((pl.name(), fwk.score_weights[pl.name()]) for pl in fwk.score_plugins))
            for name, fwk in new_profile_map(cfg).items()]


def set_score_weights(text: str, weights: Mapping[str, Mapping[str, int]]) -> str:
    """``text`` with ``weights`` (schedulerName -> plugin -> weight) written into each profile's
    ``plugins.score.enabled`` (an entry updated, else added; a profile the text lacks added).
    The result is YAML re-emitted from the parsed text: comments do not survive. Raises
    InputProblems when the text is not a YAML mapping (the form needs a configuration to edit)."""
    try:
        doc = safe_load_yaml(text) if text.strip() else None
    except ExcessiveAliasing as exc:
        raise _refused(exc) from None
    except yaml.YAMLError as exc:
        raise InputProblems("configuration", [Problem(f"{CONFIG_SOURCE}: invalid YAML: {exc}",
                                                      yaml_error_line(exc))]) from exc
    except RecursionError:
        raise InputProblems("configuration", [_TOO_DEEP]) from None
    if doc is None:
        doc = {"apiVersion": API_VERSION, "kind": KIND}
    if not isinstance(doc, dict) or not isinstance(doc.get("profiles", []), list):
        raise InputProblems("configuration", [Problem(
            f"{CONFIG_SOURCE}: not a KubeSchedulerConfiguration with a list of profiles: "
            "fix the YAML first")])
    profiles: list[Any] = doc.setdefault("profiles", [])
    for scheduler_name, plugins in weights.items():
        profile = next((p for p in profiles if isinstance(p, dict)
                        and p.get("schedulerName", DEFAULT_SCHEDULER_NAME) == scheduler_name), None)
        if profile is None:
            profile = {"schedulerName": scheduler_name}
            profiles.append(profile)
        enabled = _score_enabled(profile)
        for plugin, weight in plugins.items():
            entry = next((e for e in enabled if isinstance(e, dict) and e.get("name") == plugin), None)
            if entry is None:
                enabled.append({"name": plugin, "weight": int(weight)})
            else:
                entry["weight"] = int(weight)
    # the project's one YAML writer: ``yaml.safe_dump``'s text, the text's own anchors written out
    return dump_yaml([doc], explicit_start=False)


def _score_enabled(profile: dict[str, Any]) -> list[Any]:
    """``profile.plugins.score.enabled``, created where missing (InputProblems when a level is
    not a mapping/list: the form would silently drop the user's text)."""
    node: dict[str, Any] = profile
    for key in ("plugins", "score"):
        child = node.get(key)
        if child is None:
            child = node[key] = {}
        if not isinstance(child, dict):
            raise InputProblems("configuration", [Problem(f"{CONFIG_SOURCE}: {key} must be a mapping")])
        node = child
    enabled = node.get("enabled")
    if enabled is None:
        enabled = node["enabled"] = []
    if not isinstance(enabled, list):
        raise InputProblems("configuration",
                            [Problem(f"{CONFIG_SOURCE}: plugins.score.enabled must be a list")])
    return enabled
