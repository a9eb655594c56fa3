"""Dask distributed for colony's independent tasks: study runs, sweep cells, notebook batches.

:func:`dask_client` opens a :class:`distributed.Client` on a ``LocalCluster`` of worker
*processes* (one thread each: the kernel and the GIL want processes) or, given an address,
on an existing scheduler. :func:`map_ordered` submits every task, reports progress as
tasks finish (``as_completed``), and returns the results **in submission order**, so what
a caller writes never depends on which worker finished first; with no client it runs the
same function serially, which is what the byte-identity tests compare against.

The LocalCluster listens on the loopback interface only and takes free ports for its
scheduler and its HTTP endpoint, so several clusters (parallel tests, several engineers on
one machine) never contend for Dask's default dashboard port.

>>> map_ordered(None, pow, [(2, 3), (3, 2)])
[8, 9]
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any, TypeVar

from colony.errors import ValidationError

__all__ = ["Done", "dask_client", "map_ordered", "submit"]

T = TypeVar("T")

LOOPBACK = "127.0.0.1"


@contextmanager
def dask_client(*, workers: int = 2, scheduler: str | None = None) -> Iterator[Any]:
    """A Dask client: on ``scheduler`` (an address such as ``tcp://host:8786``) or on a new LocalCluster.

    The LocalCluster has ``workers`` single-threaded worker processes bound to 127.0.0.1 on free
    ports (its HTTP endpoint too), and is closed on exit; a client on an external scheduler
    leaves that cluster running.
    """
    from distributed import Client, LocalCluster

    if isinstance(workers, bool) or not isinstance(workers, int) or workers < 1:
        raise ValidationError("workers", "must be a positive integer", value=workers)
    if scheduler is not None:
        if not isinstance(scheduler, str) or not scheduler.strip():
            raise ValidationError("scheduler", "must be a scheduler address such as tcp://127.0.0.1:8786", value=scheduler)
        try:
            client = Client(scheduler, timeout="10s")
        except (OSError, TimeoutError) as exc:
            raise ValidationError("scheduler", f"cannot reach the Dask scheduler: {exc}", value=scheduler) from exc
        with client:
            yield client
        return
    cluster = LocalCluster(
        n_workers=workers,
        threads_per_worker=1,
        processes=True,
        host=LOOPBACK,
        scheduler_port=0,
        # the scheduler always serves HTTP; a fixed port (Dask's 8787) would collide with any other cluster
        dashboard_address=f"{LOOPBACK}:0",
        silence_logs=logging.ERROR,
    )
    with cluster, Client(cluster) as client:
        yield client


class Done:
    """An already computed result with a future's ``result()`` (what :func:`submit` gives without a client)."""

    __slots__ = ("value",)

    def __init__(self, value: Any) -> None:
        self.value = value

    def result(self) -> Any:
        return self.value


def submit(client: Any, fn: Callable[..., Any], *args: Any) -> Any:
    """``fn(*args)`` as a Dask future on the client's workers, or computed now (:class:`Done`) without one.

    Either way the caller reads it with ``.result()``, so work can overlap on a cluster and
    still run in the same order serially.

    >>> submit(None, divmod, 7, 2).result()
    (3, 1)
    """
    if client is None:
        return Done(fn(*args))
    return client.submit(fn, *args, pure=False)


def map_ordered(
    client: Any,
    fn: Callable[..., T],
    args: Sequence[tuple[Any, ...]],
    *,
    progress: Callable[[int, int, T], None] | None = None,
) -> list[T]:
    """``[fn(*a) for a in args]``, on the client's workers when there is one; results in ``args`` order.

    ``progress(done, total, result)`` is called as each task finishes (completion order).
    A task's exception is raised here, after the other tasks are cancelled. Arguments may be
    Dask futures (their results are passed in).
    """
    total = len(args)
    if client is None:
        results = []
        for done, a in enumerate(args, start=1):
            result = fn(*a)
            results.append(result)
            if progress is not None:
                progress(done, total, result)
        return results
    from distributed import as_completed

    futures = [client.submit(fn, *a, pure=False) for a in args]
    index = {f.key: i for i, f in enumerate(futures)}
    out: list[Any] = [None] * total
    try:
        for done, future in enumerate(as_completed(futures), start=1):
            result = future.result()
            out[index[future.key]] = result
            if progress is not None:
                progress(done, total, result)
    finally:
        client.cancel([f for f in futures if not f.done()])
    return out
