"""Per-client rate limits for what anonymous visitors can create (issue #28.11), bounded in memory.

One :class:`RateLimiter` per kind of action and server process (``st.cache_resource``): a sliding window of
event times per client address plus one for all clients together. Memory is bounded: at most ``max_clients``
addresses are tracked, each with at most ``per_client`` times; when the table is full of addresses that are
all still inside the window, a new address is refused (fails closed) rather than the table growing. Behind a
reverse proxy every visitor shares the proxy's address, so the per-client limit then acts as a global one.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field


@dataclass
class RateLimiter:
    per_client: int  # events per client address in the window
    total: int  # events from all clients together in the window
    window_s: float
    max_clients: int = 10_000
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)
    _by_client: dict[str, list[float]] = field(default_factory=dict, repr=False)
    _all: list[float] = field(default_factory=list, repr=False)

    def _recent(self, times: list[float], now: float) -> list[float]:
        times[:] = [t for t in times if now - t < self.window_s]
        return times

    def allow(self, client: str | None, now: float | None = None) -> bool:
        """Count one event for ``client`` and say whether it is within the limits (a refused event is not counted)."""
        now = time.monotonic() if now is None else now
        key = client or "local"
        with self._lock:
            if len(self._recent(self._all, now)) >= self.total:
                return False
            if key not in self._by_client and len(self._by_client) >= self.max_clients:
                for k in [k for k, v in self._by_client.items() if not self._recent(v, now)]:
                    del self._by_client[k]
                if len(self._by_client) >= self.max_clients:
                    return False
            mine = self._recent(self._by_client.setdefault(key, []), now)
            if len(mine) >= self.per_client:
                return False
            mine.append(now)
            self._all.append(now)
            return True

    def tracked(self) -> tuple[int, int]:
        """(addresses tracked, event times held): what this limiter keeps in memory."""
        with self._lock:
            return len(self._by_client), len(self._all) + sum(len(v) for v in self._by_client.values())
