"""Work that takes a while, run in the background while its progress streams to the page: a
replay (``POST /api/replay``), and a what-if or a comparison asked for with ``Prefer:
respond-async`` (RFC 7240; without it they answer when done, as before).

One mechanism for the three: the POST answers **202** with the job's progress (its ``id``
first); ``GET /api/jobs/events?id=N`` streams server-sent events, ``progress`` (``run`` of
``runs`` under way, ``done`` of ``total``: pods placed, or trace events applied, and the
virtual time a replay has reached) as it moves, then ``result`` (the body the synchronous
answer would have had) or ``failed`` (the error's JSON, with the ``status`` that answer would
have had: 422 with the problems of a text, 400 for input refused whole). The view's own
simulations (the first, a reload, a live cluster's change) tell their progress on the app's
event stream instead (:mod:`._app`): they are the page's, not a request's.
"""

from __future__ import annotations

import itertools
import json
import logging
import threading
from collections import OrderedDict
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass, field
from typing import Any, Final

from ._problems import InputProblems

__all__ = ["Job", "Jobs", "RunProgress", "prefers_async"]

log = logging.getLogger(__name__)

RunProgress = Callable[[int, int, int], None]
"""(run, done, total): run ``run`` (from 0) has placed ``done`` of ``total`` pods."""

JOBS_KEPT: Final = 8
"""Finished jobs kept for a stream that comes late; older ones are forgotten."""
PROGRESS_STEPS: Final = 200
"""A run tells the streams about this many times over its course, at most."""
KEEPALIVE_SECONDS: Final = 15.0


def prefers_async(headers: Any) -> bool:
    """Whether the request says ``Prefer: respond-async`` (RFC 7240 section 4.1)."""
    prefer = headers.get("prefer", "") or ""
    return any(p.split(";")[0].strip().lower() == "respond-async" for p in prefer.split(","))


@dataclass(slots=True)
class Job:
    """One job: ``kind`` (``replay``, ``whatif``, ``compare``), its runs (a comparison has two),
    its progress, then its result or its error; ``cond`` wakes the streams."""

    id: int
    kind: str
    runs: int = 1
    trace: str = ""
    failed_what: str = ""
    """What an error of the input is about (``trace`` for a replay), in ``failed``'s ``what``."""
    state: str = "queued"  # running, done, failed
    run: int = 0  # the run under way, from 0
    done: int = 0
    total: int = 0
    virtual: float = 0.0
    result: dict[str, Any] | None = None
    error: dict[str, Any] | None = None
    version: int = 0
    cond: threading.Condition = field(default_factory=threading.Condition)

    def tell(self, **changes: Any) -> None:
        """Change the job and wake its streams."""
        with self.cond:
            for k, v in changes.items():
                setattr(self, k, v)
            self.version += 1
            self.cond.notify_all()

    def begin(self, run: int) -> None:
        """Run ``run`` (from 0) starts."""
        self.tell(run=run, done=0, total=0, virtual=0.0)

    def step(self, done: int, total: int, virtual: float = 0.0) -> None:
        """The run under way has done ``done`` of ``total``; the streams are woken when ``done``
        moved by a step (:data:`PROGRESS_STEPS` over the run) or reached ``total``; the numbers
        are kept in any case, so the last ones are told with the result."""
        moved = done != self.done
        self.done, self.total, self.virtual = done, total, virtual
        if moved and (done % max(1, total // PROGRESS_STEPS) == 0 or done == total):
            self.tell()

    def run_progress(self, run: int, done: int, total: int) -> None:
        """A :data:`RunProgress` onto this job."""
        if run != self.run:
            self.begin(run)
        self.step(done, total)

    def progress(self) -> dict[str, Any]:
        out: dict[str, Any] = {"id": self.id, "kind": self.kind, "state": self.state, "run": self.run,
                               "runs": self.runs, "done": self.done, "total": self.total,
                               "virtualSeconds": self.virtual}
        if self.trace:
            out["trace"] = self.trace
        return out


class Jobs:
    """The jobs of one server: started, kept (the last :data:`JOBS_KEPT`), streamed."""

    def __init__(self) -> None:
        self._jobs: OrderedDict[int, Job] = OrderedDict()
        self._ids = itertools.count(1)
        self._lock = threading.Lock()
        self._closed = threading.Event()

    def start(self, kind: str, work: Callable[[Job], dict[str, Any]], *, runs: int = 1, trace: str = "",
              failed_what: str = "input", one_at_a_time: AbstractContextManager[Any] | None = None) -> Job:
        """Run ``work(job)`` in a thread (after ``one_at_a_time`` is entered, when given: replays
        wait for each other) and return the job at once. ``work`` returns the result's JSON; it
        raises as the synchronous route would (InputProblems, a ValueError)."""
        with self._lock:
            job = Job(next(self._ids), kind, runs=runs, trace=trace, failed_what=failed_what)
            self._jobs[job.id] = job
            while len(self._jobs) > JOBS_KEPT:
                self._jobs.popitem(last=False)
        threading.Thread(target=self._execute, args=(job, work, one_at_a_time or nullcontext()),
                         daemon=True, name=f"kubesched-ui-{kind}-{job.id}").start()
        return job

    @staticmethod
    def _execute(job: Job, work: Callable[[Job], dict[str, Any]], gate: AbstractContextManager[Any]) -> None:
        with gate:
            job.tell(state="running")
            try:
                result = work(job)
            except InputProblems as exc:
                job.tell(state="failed", error={**exc.to_dict(), "status": 422})
            except (ValueError, OSError) as exc:  # input refused whole: one line, as the CLI says it
                job.tell(state="failed", error={"error": str(exc), "what": job.failed_what, "problems": [],
                                                "status": 400})
            except Exception as exc:  # a bug: logged, told, the server goes on
                log.exception("%s %d", job.kind, job.id)
                job.tell(state="failed", error={"error": f"internal error: {exc}", "what": job.kind,
                                                "problems": [], "status": 500})
            else:
                job.tell(state="done", result=result)

    def get(self, job_id: str) -> Job | None:
        """The job of ``job_id`` (a number), None when there is none (or it is long gone)."""
        try:
            return self._jobs.get(int(job_id))
        except ValueError:
            return None

    def stream(self, job: Job) -> Iterator[bytes]:
        """The job's server-sent events, from where it is now to its end (or the server's)."""
        seen = -1

        def changed() -> bool:
            return job.version != seen or self._closed.is_set()

        while not self._closed.is_set():
            with job.cond:
                job.cond.wait_for(changed, KEEPALIVE_SECONDS)
                if job.version == seen:
                    if self._closed.is_set():
                        return
                    yield b": keepalive\n\n"
                    continue
                seen = job.version
                state, progress = job.state, job.progress()
            if state == "done":
                yield _event("progress", progress) + _event("result", job.result or {})
                return
            if state == "failed":
                yield _event("failed", job.error or {})
                return
            yield _event("progress", progress)

    def close(self) -> None:
        """End every stream (the server is stopping)."""
        self._closed.set()
        with self._lock:
            jobs = list(self._jobs.values())
        for job in jobs:
            job.tell()


def _event(name: str, data: Any) -> bytes:
    return f"event: {name}\ndata: {json.dumps(data, separators=(',', ':'), allow_nan=False)}\n\n".encode()
