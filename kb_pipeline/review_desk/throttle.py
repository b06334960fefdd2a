"""Failed sign-ins, counted per account name and per client address: after `limit` failures in
`window` seconds either key is refused until its oldest failure ages out. In memory: a restart
forgets, which costs an attacker a restart they cannot cause."""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Callable, Iterable

# Keys forgotten once this many are held (a spray of names): the oldest failures go first anyway.
_MAX_KEYS = 10_000


class SignInThrottle:
    def __init__(self, limit: int = 5, window: float = 60.0, clock: Callable[[], float] = time.monotonic) -> None:
        self.limit = limit
        self.window = window
        self.clock = clock
        self._failures: dict[str, deque[float]] = {}

    def _recent(self, key: str, now: float) -> deque[float]:
        failures = self._failures.get(key, deque())
        while failures and failures[0] <= now - self.window:
            failures.popleft()
        return failures

    def wait(self, keys: Iterable[str]) -> float:
        """Seconds until a sign-in under these keys is taken again; 0 when it is now."""
        now = self.clock()
        waits = [
            failures[-self.limit] + self.window - now
            for failures in (self._recent(key, now) for key in keys)
            if len(failures) >= self.limit
        ]
        return max(waits, default=0.0)

    def failed(self, keys: Iterable[str]) -> None:
        now = self.clock()
        if len(self._failures) > _MAX_KEYS:
            self._failures = {k: f for k, f in self._failures.items() if self._recent(k, now)}
        for key in keys:
            failures = self._recent(key, now)
            failures.append(now)
            self._failures[key] = failures
