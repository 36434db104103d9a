"""The machine a benchmark ran on, for the ``machine`` object of ``kubesched bench -o json``."""

from __future__ import annotations

import os
import platform
from pathlib import Path
from typing import Any

import numpy as np

__all__ = ["machine_info"]


def _cpu_model(cpuinfo: Path = Path("/proc/cpuinfo")) -> str:
    try:
        for line in cpuinfo.read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def machine_info() -> dict[str, Any]:
    """CPU count (what ``nproc`` prints: the CPUs this process may run on), CPU model, OS,
    Python and numpy versions."""
    try:
        nproc = len(os.sched_getaffinity(0))
    except AttributeError:  # not Linux
        nproc = os.cpu_count() or 1
    return {
        "nproc": nproc,
        "cpuModel": _cpu_model(),
        "os": f"{platform.system()} {platform.release()}",
        "python": platform.python_version(),
        "implementation": platform.python_implementation(),
        "numpy": np.__version__,
    }
