"""Beat's scheduler with Redis: celery-redbeat's, kept alive through a Redis outage.

celery-redbeat lets only the beat holding its lock in Redis schedule (docs/decisions/0250). As it
comes, a leader stops for good when Redis does not answer a tick (the lock cannot be renewed), and
after Redis restarts empty it would find neither its lock nor the schedule. This one, like Celery's
own scheduler, waits: Redis away, it tries again every second; its lock lost (Redis restarted, or
this beat stalled longer than the lock's life and another leads now), it stands by for the lock
again, and once it holds it writes the schedule back (keeping each entry's last run where Redis
still has it).
"""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import structlog
from redbeat.schedulers import RedBeatScheduler, acquire_distributed_beat_lock, get_redis
from redis.exceptions import LockError, RedisError

from service.ops.health import BEAT_LEADER_KEY, host_and_pid

log = structlog.get_logger("lupus.beat")
AGAIN = 1.0  # seconds before a tick that met no Redis is tried again


class StandbyScheduler(RedBeatScheduler):
    lock: Any = None  # redis-py's Lock while this beat leads
    _away = False

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        # Made before Celery's beat_init, and it reads Redis at once: a deployment that cannot work
        # is refused first, in one line (worker.app), not with a Redis traceback.
        from worker.app import _refuse_or_start

        _refuse_or_start("beat")
        super().__init__(*args, **kwargs)

    def tick(self, *args: Any, **kwargs: Any) -> float:
        try:
            if self.lock_key and self.lock is None:
                self._lead()
            interval: float = super().tick(*args, **kwargs)
            if self.lock is not None:  # for `lupus doctor`: which beat leads
                get_redis(self.app).set(BEAT_LEADER_KEY, host_and_pid(), ex=int(self.lock_timeout))
        except LockError as e:  # not ours any more: stand by for it again at the next tick
            log.warning("beat.lock_lost", error=repr(e))
            self.lock = None
            return 0.0
        except RedisError as e:
            if not self._away:  # once, not every second while Redis is away
                log.warning("beat.redis_away", error=repr(e))
            self._away = True
            return AGAIN
        if self._away:
            log.info("beat.redis_back")
        self._away = False
        return interval

    def _lead(self) -> None:
        """Wait for the lock (as a standby does at start), then write the schedule back: a Redis that
        restarted empty lost it with the lock."""
        acquire_distributed_beat_lock(SimpleNamespace(scheduler=self))
        self.setup_schedule()
        log.info("beat.leads")

    def close(self) -> None:
        try:
            if self.lock is not None and self.lock.owned():
                get_redis(self.app).delete(BEAT_LEADER_KEY)
            super().close()  # releases the lock, so that a standby leads at once
        except RedisError as e:  # the lock then lapses by itself
            log.warning("beat.lock_not_released", error=repr(e))
