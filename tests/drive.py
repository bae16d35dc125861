"""Driving an engine generator in a test: its events and its value (``segviz.events.run_to_end`` drops the events)."""
from __future__ import annotations


def events_and_value(work):
    """Run the generator ``work`` to its end; returns ``(list of its events, its value)``."""
    events = []
    while True:
        try:
            events.append(next(work))
        except StopIteration as done:
            return events, done.value
