"""``pip install kubesched`` without the ``live`` extra must run the offline commands: loading
the command line, or running ``simulate``, never imports the live client stack."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).parent.parent.parent

LIVE_MODULES = ("urllib3", "kubernetes", "orjson", "cryptography", "kubesched.cluster.live",
                "kubesched.app.server")


def test_the_offline_command_line_does_not_import_the_live_stack() -> None:
    code = (
        "import sys\n"
        "from typer.testing import CliRunner\n"
        "from kubesched.cli import app\n"
        f"r = CliRunner().invoke(app, ['simulate', {str(ROOT / 'examples' / 'quickstart')!r}])\n"
        "assert r.exit_code == 0, r.output\n"
        f"print(sorted(m for m in {LIVE_MODULES!r} if m in sys.modules))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip().splitlines()[-1] == "[]", out.stdout + out.stderr
