"""Names and hashes: rand's alphabet and String draw, SafeEncodeString, fnv, ComputeHash's
collisionCount, SimpleNameGenerator's cut."""

from __future__ import annotations

import random
import re

import pytest

from kubesched.controllers import (
    ALPHANUMS,
    compute_hash,
    generate_name,
    hash_controller_revision,
    random_string,
    safe_encode_string,
)
from kubesched.controllers._names import fnv32, fnv32a


@pytest.mark.parametrize(
    ("data", "a", "plain"),
    [
        pytest.param(b"", 0x811C9DC5, 0x811C9DC5, id="empty"),
        pytest.param(b"a", 0xE40C292C, 0x050C5D7E, id="a"),
        pytest.param(b"foobar", 0xBF9CF968, 0x31F0B262, id="foobar"),
    ],
)
def test_fnv_matches_the_reference_vectors(data: bytes, a: int, plain: int) -> None:
    assert fnv32a(data) == a
    assert fnv32(data) == plain


def test_safe_encode_string_maps_each_digit_into_the_alphabet() -> None:
    # '0' is 48: 48 % 27 = 21 -> '4'; '9' is 57: 57 % 27 = 3 -> 'f'
    assert safe_encode_string("0123456789") == "456789bcdf"
    assert safe_encode_string("0") == "4" and safe_encode_string("9") == "f"


def test_compute_hash_depends_on_the_collision_count() -> None:
    t = {"metadata": {"labels": {"app": "web"}}, "spec": {"containers": [{"name": "c", "image": "i"}]}}
    plain, zero, one = compute_hash(t, None), compute_hash(t, 0), compute_hash(t, 1)
    assert len({plain, zero, one}) == 3
    assert compute_hash(dict(reversed(list(t.items()))), None) == plain  # key order does not matter
    for h in (plain, zero, one):
        assert set(h) <= set(ALPHANUMS) and 1 <= len(h) <= 10


def test_hash_controller_revision_uses_fnv32_and_the_probe() -> None:
    patch = {"spec": {"template": {"$patch": "replace"}}}
    raw = b'{"spec":{"template":{"$patch":"replace"}}}'
    assert hash_controller_revision(patch, None) == safe_encode_string(str(fnv32(raw)))
    assert hash_controller_revision(patch, 0) == safe_encode_string(str(fnv32(b"0", fnv32(raw))))


def test_random_names_come_from_the_seeded_generator() -> None:
    a = [random_string(random.Random(7), 5) for _ in range(2)]
    assert a[0] == a[1] and re.fullmatch(f"[{ALPHANUMS}]{{5}}", a[0])
    assert random_string(random.Random(8), 5) != a[0]


def test_generated_names_cut_the_base_to_58_characters() -> None:
    name = generate_name(random.Random(0), "x" * 70)
    assert len(name) == 63 and name.startswith("x" * 58)
