"""Failed sign-ins, counted per account name and per client address (the socket's, or what a
trusted proxy says: app.py `_forwarded`), within `window` seconds:

- a name that failed `limit` times, from any addresses, is refused until its oldest failure
  ages out: many addresses guessing one password are as slow as one;
- an address from which `limit` different names failed is refused, under any name, until one
  of them ages out: one address guessing many names is slowed. It counts names, not failures:
  behind a proxy whose address the desk does not trust every user shares the proxy's address,
  and one person's wrong passwords must lock out their own name only.

In memory: a restart forgets, which costs an attacker a restart they cannot cause."""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Callable

# Names or addresses forgotten once this many are held (a spray): the oldest failures go first anyway.
_MAX_KEYS = 10_000


class SignInThrottle:
    def __init__(self, limit: int = 5, window: float = 60.0, clock: Callable[[], float] = time.monotonic) -> None:
        self.limit = limit
        self.window = window
        self.clock = clock
        self._names: dict[str, deque[float]] = {}
        # Per address, the time of each name's latest failure from it.
        self._addresses: dict[str, dict[str, float]] = {}

    def _name_failures(self, name: str, now: float) -> deque[float]:
        failures = self._names.get(name, deque())
        while failures and failures[0] <= now - self.window:
            failures.popleft()
        return failures

    def _address_names(self, address: str, now: float) -> dict[str, float]:
        return {n: t for n, t in self._addresses.get(address, {}).items() if t > now - self.window}

    def wait(self, name: str, address: str) -> float:
        """Seconds until a sign-in as `name` from `address` is taken again; 0 when it is now."""
        now = self.clock()
        waits = [0.0]
        failures = self._name_failures(name, now)
        if len(failures) >= self.limit:
            waits.append(failures[-self.limit] + self.window - now)
        latest = sorted(self._address_names(address, now).values(), reverse=True)
        if len(latest) >= self.limit:
            waits.append(latest[self.limit - 1] + self.window - now)
        return max(waits)

    def failed(self, name: str, address: str) -> None:
        now = self.clock()
        if len(self._names) > _MAX_KEYS:
            self._names = {n: f for n, f in self._names.items() if self._name_failures(n, now)}
        if len(self._addresses) > _MAX_KEYS:
            self._addresses = {a: names for a in self._addresses if (names := self._address_names(a, now))}
        failures = self._name_failures(name, now)
        failures.append(now)
        self._names[name] = failures
        self._addresses[address] = {**self._address_names(address, now), name: now}
