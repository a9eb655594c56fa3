"""colony.distributed: LocalCluster clients, ordered mapping, and clusters that coexist."""

from __future__ import annotations

import pytest

from colony.distributed import dask_client, map_ordered
from colony.errors import ValidationError

pytestmark = pytest.mark.e2e  # Dask LocalClusters of worker processes


def test_map_ordered_keeps_submission_order_and_raises_task_errors() -> None:
    seen: list[tuple[int, int]] = []
    with dask_client(workers=2) as client:
        assert len(client.scheduler_info()["workers"]) == 2
        out = map_ordered(client, divmod, [(7, 2), (9, 4), (1, 1)], progress=lambda done, n, r: seen.append((done, n)))
        assert out == [(3, 1), (2, 1), (1, 0)]
        assert sorted(seen) == [(1, 3), (2, 3), (3, 3)]
        with pytest.raises(ZeroDivisionError):
            map_ordered(client, divmod, [(1, 0)])
    assert map_ordered(None, divmod, [(7, 2), (9, 4)]) == [(3, 1), (2, 1)]


def test_bad_worker_counts_and_scheduler_addresses_are_refused() -> None:
    for bad in (0, -1, True, 1.5):
        with pytest.raises(ValidationError, match="workers"), dask_client(workers=bad):  # type: ignore[arg-type]
            pass
    with pytest.raises(ValidationError, match="scheduler"), dask_client(scheduler=" "):
        pass
    with pytest.raises(ValidationError, match="cannot reach the Dask scheduler"), dask_client(scheduler="tcp://127.0.0.1:9"):
        pass


def test_two_local_clusters_at_once_do_not_collide_on_the_dashboard_port() -> None:
    """Regression: every LocalCluster asked for Dask's fixed HTTP port 8787, so a second one (a parallel test, another
    engineer's sweep) warned "Port 8787 is already in use" (an error under the suite's warning filter) and failed."""
    with dask_client(workers=1) as first, dask_client(workers=1) as second:
        links = {first.dashboard_link, second.dashboard_link}
        assert len(links) == 2 and all(link.startswith("http://127.0.0.1:") for link in links)
        assert first.scheduler.address.startswith("tcp://127.0.0.1:")
        assert map_ordered(first, pow, [(2, 3)]) == [8] and map_ordered(second, pow, [(3, 2)]) == [9]
