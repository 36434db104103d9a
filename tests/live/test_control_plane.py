"""The control-plane fixture itself: a real kube-apiserver answers with our admin token."""

from __future__ import annotations

import ssl
import urllib.request

from .conftest import ControlPlane


def test_api_server_answers_version(control_plane: ControlPlane) -> None:
    ctx = ssl.create_default_context(cafile=str(control_plane.dir / "ca.crt"))
    req = urllib.request.Request(f"{control_plane.api_url}/version",
                                 headers={"Authorization": f"Bearer {control_plane.token}"})
    with urllib.request.urlopen(req, context=ctx, timeout=10) as resp:
        body = resp.read().decode()
    assert '"gitVersion"' in body
