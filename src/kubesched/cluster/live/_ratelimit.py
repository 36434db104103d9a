"""A token bucket for client-side rate limiting: client-go's
``flowcontrol.NewTokenBucketRateLimiter(qps, burst)`` (util/flowcontrol/throttle.go).

The bucket holds up to ``burst`` tokens and refills at ``qps`` per second; every request takes
one, waiting for it when the bucket is empty. ``qps <= 0`` disables limiting (client-go treats a
negative QPS so; a zero QPS means its default there, which ``client_settings`` already applied).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

__all__ = ["TokenBucket"]


class TokenBucket:
    """Thread-safe; ``clock`` and ``sleep`` are injectable for tests."""

    def __init__(self, qps: float, burst: int, clock: Callable[[], float] = time.monotonic,
                 sleep: Callable[[float], None] = time.sleep) -> None:
        self.qps = float(qps)
        self.burst = max(1, int(burst))
        self._clock = clock
        self._sleep = sleep
        self._tokens = float(self.burst)
        self._last = clock()
        self._lock = threading.Lock()

    def reserve(self) -> float:
        """Take a token; the seconds to wait before using it (0 when one was available)."""
        if self.qps <= 0:
            return 0.0
        with self._lock:
            now = self._clock()
            self._tokens = min(float(self.burst), self._tokens + (now - self._last) * self.qps)
            self._last = now
            self._tokens -= 1.0
            return 0.0 if self._tokens >= 0 else -self._tokens / self.qps

    def accept(self) -> None:
        """Accept: block until a token is ours."""
        wait = self.reserve()
        if wait > 0:
            self._sleep(wait)
