"""The binding workers (scheduler/_workers.py): jobs run concurrently on at most ``size``
threads, started as needed; a failing job is logged and its thread goes on; shutdown lets
the queued jobs finish."""

from __future__ import annotations

import logging
import threading

import pytest

from kubesched.scheduler._workers import WorkerPool


def test_jobs_run_concurrently_up_to_the_size() -> None:
    pool = WorkerPool(3, "t")
    gate, started = threading.Event(), threading.Semaphore(0)
    names: set[str] = set()

    def job() -> None:
        names.add(threading.current_thread().name)
        started.release()
        assert gate.wait(10)

    for _ in range(5):
        pool.submit(job)
    for _ in range(3):
        assert started.acquire(timeout=10)  # three at once: each waits for the gate
    assert not started.acquire(timeout=0.05)  # the fourth waits for a free thread
    gate.set()
    pool.shutdown(wait=True)
    assert names == {"t_0", "t_1", "t_2"}


def test_an_idle_worker_takes_the_next_job_instead_of_a_new_thread() -> None:
    pool = WorkerPool(8, "t")
    names: list[str] = []
    for _ in range(20):
        done = threading.Event()
        pool.submit(lambda done=done: (names.append(threading.current_thread().name), done.set()))
        assert done.wait(10)
        for _ in range(200):  # the worker counts itself idle right after the job
            if pool._idle:
                break
            threading.Event().wait(0.005)
    pool.shutdown(wait=True)
    assert set(names) == {"t_0"}


def test_a_failing_job_is_logged_and_the_worker_goes_on(caplog: pytest.LogCaptureFixture) -> None:
    pool = WorkerPool(1, "t")
    ran = threading.Event()

    def boom() -> None:
        raise RuntimeError("boom")

    with caplog.at_level(logging.ERROR):
        pool.submit(boom)
        pool.submit(ran.set)
        assert ran.wait(10)
    pool.shutdown(wait=True)
    assert "t: job failed" in caplog.text and "boom" in caplog.text


def test_shutdown_finishes_the_queued_jobs_then_refuses_more() -> None:
    pool = WorkerPool(2, "t")
    done: list[int] = []
    lock = threading.Lock()

    def job(i: int) -> None:
        threading.Event().wait(0.01)
        with lock:
            done.append(i)

    for i in range(10):
        pool.submit(lambda i=i: job(i))
    pool.shutdown(wait=True)
    assert sorted(done) == list(range(10))
    with pytest.raises(RuntimeError):
        pool.submit(lambda: None)
    pool.shutdown(wait=True)  # twice is fine
    with pytest.raises(ValueError):
        WorkerPool(0, "t")
