"""Per-thread CPU and garbage-collector time of a ``kubesched run`` started by
``live_side_by_side.py --thread-cpu FILE`` (this folder is put first on its PYTHONPATH, so
Python imports this module at start-up; nothing happens unless ``KUBESCHED_THREAD_CPU`` names
the output file).

A sampler thread reads each thread's utime + stime from ``/proc/self/task/TID/stat`` every
0.2 s and keeps the last value per thread (a thread that ended keeps its last sample), named
by ``threading`` (the binding workers summed as one). A ``gc.callbacks`` hook adds up the
collector's thread time per generation. SIGUSR1 (sent when the measured phase starts) takes
the baseline; at exit the JSON written has, per thread and for the collector, the CPU seconds
since the baseline.
"""

from __future__ import annotations

import os

_OUT = os.environ.get("KUBESCHED_THREAD_CPU")

if _OUT:
    import atexit
    import gc
    import json
    import signal
    import threading
    import time

    _TICK = os.sysconf("SC_CLK_TCK")
    _gc_seconds = [0.0, 0.0, 0.0]
    _gc_count = [0, 0, 0]
    _gc_start = [0.0]
    _threads: dict[int, tuple[str, float]] = {}
    _base: dict[str, object] = {}
    _lock = threading.Lock()

    def _on_gc(phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            _gc_start[0] = time.thread_time()
        else:
            g = info["generation"]
            _gc_seconds[g] += time.thread_time() - _gc_start[0]
            _gc_count[g] += 1

    def _group(name: str) -> str:
        return "binding workers" if name.startswith("binding") else name

    def _sample() -> None:
        names = {t.native_id: t.name for t in threading.enumerate()}
        for tid in os.listdir("/proc/self/task"):
            try:
                with open(f"/proc/self/task/{tid}/stat") as fh:
                    fields = fh.read().rsplit(")", 1)[1].split()
            except OSError:
                continue
            cpu = (int(fields[11]) + int(fields[12])) / _TICK
            with _lock:
                prev = _threads.get(int(tid))
                name = names.get(int(tid)) or (prev[0] if prev else "?")
                _threads[int(tid)] = (name, cpu)

    def _totals() -> dict[str, float]:
        out: dict[str, float] = {}
        with _lock:
            for name, cpu in _threads.values():
                out[_group(name)] = out.get(_group(name), 0.0) + cpu
        return out

    def _sampler() -> None:
        while True:
            _sample()
            time.sleep(0.2)

    def _mark(_signum: int, _frame: object) -> None:
        _sample()
        _base["threads"] = _totals()
        _base["gc"] = list(_gc_seconds)
        _base["gc_count"] = list(_gc_count)

    def _dump() -> None:
        _sample()
        now = _totals()
        base_t = _base.get("threads", {})
        assert isinstance(base_t, dict)
        threads = {k: round(v - base_t.get(k, 0.0), 2) for k, v in now.items()}
        base_gc = _base.get("gc", [0.0, 0.0, 0.0])
        base_n = _base.get("gc_count", [0, 0, 0])
        assert isinstance(base_gc, list) and isinstance(base_n, list)
        doc = {"threads": dict(sorted(((k, v) for k, v in threads.items() if v > 0),
                                      key=lambda kv: -kv[1])),
               "gc_seconds": [round(a - b, 3) for a, b in zip(_gc_seconds, base_gc, strict=True)],
               "gc_collections": [a - b for a, b in zip(_gc_count, base_n, strict=True)]}
        with open(_OUT, "w") as fh:
            json.dump(doc, fh, indent=1)

    gc.callbacks.append(_on_gc)
    signal.signal(signal.SIGUSR1, _mark)
    threading.Thread(target=_sampler, name="thread-cpu sampler", daemon=True).start()
    atexit.register(_dump)
