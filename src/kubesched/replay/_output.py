"""What a run writes: the time series as CSV, the summary as JSON.

CSV, not Parquet: a row is written as soon as it is sampled (flat memory on a trace of any
length, and a run cut short still leaves its rows), every tool reads it (pandas, polars, a
spreadsheet, ``sort``/``awk``), and it needs no dependency; Parquet would need pyarrow (about
100 MB installed) to save disk space on series that are small anyway. ``pandas.read_csv``
(or ``polars.read_csv(...).write_parquet``) converts in one line when wanted.
"""

from __future__ import annotations

import csv
import json
import math
from collections.abc import Sequence
from pathlib import Path
from types import TracebackType
from typing import Any, Final, TextIO

import numpy as np

__all__ = ["METRICS_CSV", "SUMMARY_JSON", "CsvSink", "read_series", "write_summary"]

METRICS_CSV: Final = "metrics.csv"
SUMMARY_JSON: Final = "summary.json"


def _cell(v: float) -> str:
    if isinstance(v, int):
        return str(v)
    if math.isnan(v):
        return ""
    return format(v, ".10g")


class CsvSink:
    """Rows to ``path`` as they come (a header of ``columns`` first)."""

    def __init__(self, path: Path, columns: Sequence[str]) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self.path = path
        self._f: TextIO = path.open("w", newline="")
        self._w = csv.writer(self._f)
        self._w.writerow(columns)

    def __call__(self, row: Sequence[float]) -> None:
        self._w.writerow([_cell(v) for v in row])

    def close(self) -> None:
        self._f.close()

    def __enter__(self) -> CsvSink:
        return self

    def __exit__(self, t: type[BaseException] | None, e: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.close()


def write_summary(path: Path, summary: dict[str, Any]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(summary, indent=2, sort_keys=False) + "\n")


def read_series(path: Path, max_points: int = 20_000) -> tuple[list[str], np.ndarray]:
    """The columns and rows of a metrics CSV, every k-th row kept (and the last) so that at
    most about ``max_points`` remain: plotting a million-row series stays flat in memory."""
    with path.open(newline="") as f:
        total = sum(1 for _ in f) - 1
    step = max(1, math.ceil(total / max_points)) if total > 0 else 1
    rows: list[list[float]] = []
    with path.open(newline="") as f:
        r = csv.reader(f)
        columns = next(r, [])
        last: list[str] | None = None
        for i, row in enumerate(r):
            last = row
            if i % step == 0:
                rows.append([float(x) if x else math.nan for x in row])
        if last is not None and (total - 1) % step != 0:
            rows.append([float(x) if x else math.nan for x in last])
    return columns, np.asarray(rows, dtype=np.float64).reshape(len(rows), len(columns))
