"""Mapped filters survive fork and are read by several processes at once."""

import multiprocessing
import os

import bloomkit

KEYS = [f"url-{i}" for i in range(50000)]
ABSENT = [f"none-{i}" for i in range(50000)]


def _count(path, first, last):
    f = bloomkit.open_mapped(path)
    return (f.contains_many(KEYS[first:last]), f.contains_many(ABSENT))


def test_mapped_filter_in_forked_children(tmp_path):
    path = tmp_path / "shared.bloom"
    f = bloomkit.BlockedBloomFilter.for_capacity(len(KEYS), 0.01)
    f.add_many(KEYS)
    f.save(path)
    mapped = bloomkit.open_mapped(path)
    expected_absent = mapped.contains_many(ABSENT)

    # the parent's mapping, inherited across fork
    pid = os.fork()
    if pid == 0:
        ok = mapped.contains_many(KEYS) == len(KEYS) and all(k in mapped for k in KEYS[:100])
        os._exit(0 if ok else 1)
    _, status = os.waitpid(pid, 0)
    assert os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0

    # several processes mapping the file at once
    ctx = multiprocessing.get_context("fork")
    with ctx.Pool(4) as pool:
        parts = pool.starmap(_count, [(path, i * 12500, (i + 1) * 12500) for i in range(4)])
    assert [p[0] for p in parts] == [12500] * 4
    assert all(p[1] == expected_absent for p in parts)
    assert mapped.contains_many(KEYS) == len(KEYS)  # the parent still answers
