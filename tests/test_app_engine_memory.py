"""The engine returns freed memory while it trains, and only then."""
from __future__ import annotations

import pytest

from segviz.service import engine_memory


class FakeLibc:
    def __init__(self):
        self.calls = []

    def malloc_trim(self, pad):
        self.calls.append(("trim", pad))

    def mallopt(self, param, value):
        self.calls.append(("mallopt", param, value))
        return 1


def test_the_threshold_is_low_inside_and_restored_after_even_on_error(monkeypatch):
    libc = FakeLibc()
    monkeypatch.setattr(engine_memory, "_glibc", lambda: libc)
    with engine_memory.returning_freed_memory():
        assert libc.calls == [("trim", 0), ("mallopt", engine_memory.M_MMAP_THRESHOLD, 1 << 20)]
    assert libc.calls[2:] == [("mallopt", engine_memory.M_MMAP_THRESHOLD, 32 << 20), ("trim", 0)]
    libc.calls.clear()
    with pytest.raises(RuntimeError), engine_memory.returning_freed_memory():
        raise RuntimeError("the training failed")
    assert libc.calls[-2:] == [("mallopt", engine_memory.M_MMAP_THRESHOLD, 32 << 20), ("trim", 0)]


def test_without_glibc_it_does_nothing(monkeypatch):
    monkeypatch.setattr(engine_memory, "_glibc", lambda: None)
    with engine_memory.returning_freed_memory():
        pass


def test_it_runs_on_this_machine():
    # on glibc the real calls; elsewhere nothing
    with engine_memory.returning_freed_memory():
        block = bytearray(4 << 20)
        del block
