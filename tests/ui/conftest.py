"""The web app served in-process on a free port, spoken to with urllib, as a browser would."""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from kubesched.api.loader import load_paths
from kubesched.serving import HTTPServer
from kubesched.ui import UIApp, Workspace

REPO = Path(__file__).resolve().parents[2]
QUICKSTART = REPO / "examples" / "quickstart"


@dataclass
class Answer:
    status: int
    headers: dict[str, str]
    body: bytes

    def json(self) -> Any:
        return json.loads(self.body)


@dataclass
class Served:
    url: str
    workspace: Workspace

    def request(self, path: str, method: str = "GET", headers: dict[str, str] | None = None,
                body: bytes | None = None) -> Answer:
        req = urllib.request.Request(self.url + path, method=method, headers=headers or {}, data=body)
        try:
            with urllib.request.urlopen(req, timeout=30) as resp:
                return Answer(resp.status, {k.lower(): v for k, v in resp.headers.items()}, resp.read())
        except urllib.error.HTTPError as err:
            return Answer(err.code, {k.lower(): v for k, v in err.headers.items()}, err.read())

    def get(self, path: str, **headers: str) -> Answer:
        return self.request(path, headers=headers)

    def post(self, path: str, origin: str | None = "same", **headers: str) -> Answer:
        if origin is not None:
            headers["Origin"] = self.url if origin == "same" else origin
        return self.request(path, "POST", headers=headers, body=b"{}")


@contextmanager
def served(*paths: Path, config: Any = None, seed: int = 0, features: dict[str, bool] | None = None,
           allow_remote: bool = False) -> Iterator[Served]:
    """``kubesched ui PATHS`` as the command builds it: the inputs loaded, the workspace, the
    routes on the serving stack, on 127.0.0.1 and a free port."""
    def load() -> Any:
        return load_paths(list(paths))

    workspace = Workspace(load(), config, seed=seed, features=features, reload=load, describe="test")
    server = HTTPServer(UIApp(workspace, allow_remote=allow_remote), "127.0.0.1", 0).start()
    try:
        yield Served(server.url, workspace)
    finally:
        workspace.close()
        server.close()
