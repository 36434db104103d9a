"""go-yaml's alias budget (decode.go allowedAliasRatio), as every YAML input applies it: a
document whose nodes come from alias expansion beyond the budget is refused, a smaller share
is not; the loader of manifests and ``safe_load_yaml`` apply the same."""

from __future__ import annotations

import pytest

from _yaml_bomb import billion_laughs
from kubesched.api import EXCESSIVE_ALIASING, ExcessiveAliasing, LoadError, load_documents, safe_load_yaml


def _aliases_of_a_list(aliases: int, items: int = 200) -> str:
    """An anchored list of ``items`` strings, aliased ``aliases`` times."""
    return (f"anchor: &x [{', '.join(['v'] * items)}]\n"
            f"aliases: [{', '.join(['*x'] * aliases)}]\n")


@pytest.mark.parametrize(("aliases", "refused"), [
    # the mapping, 2 keys, the list (201 nodes), the sequence of aliases: 205 decodes; each
    # alias 1 more and 201 from its expansion. 100 aliases: 20,100 of 20,405, 98.5% <= 99%
    pytest.param(100, False, id="98.5-percent-from-aliases"),
    # 1000 aliases: 201,000 of 202,205, 99.4% > 99%
    pytest.param(1000, True, id="99.4-percent-from-aliases"),
])
def test_the_share_of_nodes_from_aliases_is_capped(aliases: int, refused: bool) -> None:
    text = _aliases_of_a_list(aliases)
    if refused:
        with pytest.raises(ExcessiveAliasing, match=f"^{EXCESSIVE_ALIASING}$"):
            safe_load_yaml(text)
    else:
        doc = safe_load_yaml(text)
        assert len(doc["aliases"]) == aliases and doc["aliases"][0] == ["v"] * 200


def test_below_the_floors_nothing_is_refused() -> None:
    """Under 100 nodes from aliases (or 1000 decodes in all) go-yaml never refuses."""
    assert len(safe_load_yaml(_aliases_of_a_list(9, items=10))["aliases"]) == 9


def test_the_manifest_loader_refuses_the_bomb_with_the_file_named() -> None:
    with pytest.raises(LoadError, match=f"^laughs.yaml: {EXCESSIVE_ALIASING}$"):
        load_documents("apiVersion: v1\nkind: Namespace\nmetadata: {name: x}\n" + billion_laughs(),
                       "laughs.yaml")
