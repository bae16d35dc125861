"""Malformed input the window reads from a place it does not control: the engine process's pipe.

An engine that sends deep nesting, another JSON value, wrong types, missing keys, huge or non-finite numbers, bad
UTF-8, an endless line or an outline of a corpus that does not add up ends its job with one line (a SegvizError;
in the window one dialog, the shown state kept), never a traceback or a hang.  Every crafted message is made here;
a fake engine replaces the engine's command line.
"""
from __future__ import annotations

import json
import sys

import numpy as np
import pytest

from segviz import read_corpus
from segviz.errors import SegvizError
from segviz.service import child_process
from segviz.service.apply_job import ApplyJob
from segviz.service.child_process import encode_array
from segviz.service.corpus_outline import outline_messages, outline_of
from segviz.service.peers_job import PeersJob
from segviz.service.read_job import ReadJob
from segviz.service.training_job import TrainingJob
from tests.conftest import ROOT
from tests.drive import events_and_value

CHOI = ROOT / "sample_corpora" / "choi" / "3-11_0.ref"
MODEL = ROOT / "resources" / "sample_model.segviz"
N = read_corpus(CHOI).n_sentences


def on_the_first_channel(data: bytes) -> bytes:
    """A reply line as the engine sends it for its first job: the channel's id first (a line that is not a JSON
    object cannot carry one and is sent as it is)."""
    if not data.startswith(b"{"):
        return data
    return b'{"id":1}\n' if data.strip() == b"{}" else b'{"id":1,' + data[1:]


def fake_child(monkeypatch, tmp_path, lines: list[bytes]):
    """The engine process replaced by one that reads its first job, sends ``lines`` on that job's channel, then
    waits for its input to end (as a real engine idles)."""
    crafted = tmp_path / "crafted.bin"
    crafted.write_bytes(b"".join(on_the_first_channel(x) for x in lines))
    script = ("import sys\n"
              "sys.stdin.buffer.readline()\n"
              f"sys.stdout.buffer.write(open({str(crafted)!r}, 'rb').read())\n"
              "sys.stdout.buffer.flush()\n"
              "sys.stdin.buffer.read()\n")
    monkeypatch.setattr(child_process, "child_command", lambda: [sys.executable, "-I", "-c", script])


def line(obj) -> bytes:
    return (obj if isinstance(obj, str) else json.dumps(obj)).encode("utf-8") + b"\n"


def good_result() -> dict:
    """The model's curve as the apply job sends it first (its ``result``, :func:`end_of_apply`, follows)."""
    return {"type": "curve", "sentences": N, "probabilities": encode_array(np.full(N - 1, 0.5)),
            "relevance": None, "profile": None,
            "columns": {"shape": [N - 1, 0], "indptr": encode_array(np.zeros(N, dtype=np.int32), "<i4"),
                        "parts": 0, "data": None},
            "coverage": None, "units": [[0, N, "model", None]], "shown": "model",
            "sentence_sizes": encode_array(np.full(N, 7.0))}


def end_of_apply(**changes) -> dict:
    """What the apply job sends after the curve: the relevance of the model's own language models (none here)."""
    return {"type": "result", "sentences": N, "relevance": None, "profile": None, **changes}


def with_(**changes) -> dict:
    result = good_result()
    result.update(changes)
    return result


#: every message the window must survive, whatever job it ends
MALFORMED_MESSAGES = {
    "deep nesting": "[" * 200_000 + "]" * 200_000,
    "deep object": '{"type": "result", "x": ' + '{"a": ' * 100_000 + "1" + "}" * 100_000 + "}",
    "a list": [1, 2, 3],
    "a string": '"result"',
    "a number type": {"type": 5},
    "no type": {"stage": "x"},
    "bad utf-8": b"\xff\xfe{}".decode("latin-1"),
    "not json": "{not json",
    "progress without keys": {"type": "progress"},
    "progress of wrong types": {"type": "progress", "stage": [1], "done": "x", "total": {}},
    "progress beyond a progress bar": {"type": "progress", "stage": "s", "done": 0, "total": 2 ** 40},
    "progress of floats": {"type": "progress", "stage": "s", "done": 1.5, "total": float("inf")},
    "a huge integer": '{"type": "progress", "stage": "s", "done": ' + "9" * 5000 + ', "total": 1}',
    "an error of wrong type": {"type": "error", "message": {"a": [1]}},
    "unknown kind": {"type": "x" * 100_000},
}

APPLY_RESULTS = {
    "result without keys": {"type": "result"},
    "sentences infinite": "{\"type\": \"result\", \"sentences\": Infinity}",
    "sentences 1e999": "{\"type\": \"result\", \"sentences\": 1e999}",
    "sentences as a string": with_(sentences="many"),
    "probabilities of another shape": with_(probabilities=encode_array(np.full(3, 0.5))),
    "an overflowing shape": with_(probabilities={"shape": [2 ** 32, 2 ** 32], "f8": ""}),
    "a negative shape": with_(probabilities={"shape": [-1], "f8": ""}),
    "seventy dimensions": with_(probabilities={"shape": [1] * 70, "f8": ""}),
    "NaN probabilities": with_(probabilities=encode_array(np.full(N - 1, np.nan))),
    "a profile of strings": with_(profile={"offsets": ["a"], "mean": [1], "count": [1]}),
    "a profile of another length": with_(profile={"offsets": [1, 2], "mean": [1], "count": [1]}),
    "a profile that is a list": with_(profile=[1]),
    "units of wrong types": with_(units=[["a", "b", 3, None]]),
    "units as an object": with_(units={"a": 1}),
    "a unit of two fields": with_(units=[[0, N]]),
    "a route of wrong types": with_(units=[[0, N, "model", {"expert": 5}]]),
    "columns inconsistent": with_(columns={"shape": [N - 1, 1], "indptr": encode_array(np.zeros(3), "<i4"),
                                           "parts": 0, "data": None}),
    "an index part announced and not sent": with_(columns={"shape": [N - 1, 0],
                                                           "indptr": encode_array(np.zeros(N, dtype=np.int32), "<i4"),
                                                           "parts": 1, "data": None}),
    "coverage of strings": with_(coverage={"covered": "a", "words": 1, "vocabulary": 1}),
    "coverage missing": with_(coverage={}),
    "sentence sizes missing": with_(sentence_sizes=None),
    "sentence sizes of another shape": with_(sentence_sizes=encode_array(np.full(N - 1, 7.0))),
    "negative sentence sizes": with_(sentence_sizes=encode_array(np.full(N, -1.0))),
}


def run_job(events) -> SegvizError:
    with pytest.raises(SegvizError) as info:
        for _ in events:
            pass
    text = str(info.value)
    assert "\n" not in text and len(text) < 3000 and "Traceback" not in text
    return info.value


@pytest.mark.parametrize("name", list(MALFORMED_MESSAGES) + list(APPLY_RESULTS))
def test_the_model_job_refuses_a_malformed_message_with_one_line(monkeypatch, tmp_path, name):
    fake_child(monkeypatch, tmp_path, [line({**MALFORMED_MESSAGES, **APPLY_RESULTS}[name])])
    run_job(ApplyJob(MODEL, [CHOI]).events())


def test_the_fake_child_serves_a_well_formed_result(monkeypatch, tmp_path):
    """The harness itself: the same fake child with a good result gives the model's arrays."""
    fake_child(monkeypatch, tmp_path, [line({"type": "progress", "stage": "s", "done": 1, "total": 2}),
                                       line(good_result()), line(end_of_apply())])
    events = ApplyJob(MODEL, [CHOI]).events()
    while True:
        try:
            next(events)
        except StopIteration as stop:
            n, applied = stop.value
            break
    assert n == N and applied.probabilities.shape == (N - 1,)


TRAINING_MESSAGES = {
    "lms at another path": {"type": "lms", "path": "/dev/zero"},
    "lms of wrong type": {"type": "lms", "path": [1]},
    "relevance without a profile": {"type": "relevance", "relevance": encode_array(np.zeros(3))},
    "a round of nothing": {"type": "round"},
    "a round of wrong types": {"type": "round", "added": 5, "probabilities": "x", "model": []},
    "finished without a model": {"type": "finished", "reason": "n_features"},
    "finished of wrong types": {"type": "finished", "model": {"features": 5, "lambdas": "x"}},
}


@pytest.mark.parametrize("name", list(MALFORMED_MESSAGES) + list(TRAINING_MESSAGES))
def test_the_training_job_refuses_a_malformed_message_with_one_line(monkeypatch, tmp_path, name):
    fake_child(monkeypatch, tmp_path, [line({**MALFORMED_MESSAGES, **TRAINING_MESSAGES}[name])])
    corpus = read_corpus(ROOT / "sample_corpora" / "choi")
    run_job(TrainingJob(corpus, [ROOT / "sample_corpora" / "choi"], n_features=3).events())


@pytest.mark.parametrize("name", ["deep nesting", "a list", "progress of wrong types", "an error of wrong type"])
def test_the_peers_job_refuses_a_malformed_message_with_one_line(monkeypatch, tmp_path, name):
    fake_child(monkeypatch, tmp_path, [line(MALFORMED_MESSAGES[name])])
    run_job(PeersJob(["C99"], [CHOI]).events())


@pytest.mark.parametrize("result, refused", [
    ({"type": "result", "sentences": 61, "masses": {"C99": [61]}}, "changed since they were opened"),
    ({"type": "result", "masses": {"C99": [60]}}, "no sentence count"),
    ({"type": "result", "sentences": 60, "masses": {"C99": [30, 29]}}, "do not cover 60"),
    ({"type": "result", "sentences": 60, "masses": {"TextTiling": [60]}}, "malformed result"),
])
def test_the_peers_job_refuses_a_result_that_is_not_the_shown_stream(monkeypatch, tmp_path, result, refused):
    fake_child(monkeypatch, tmp_path, [line(result)])
    error = run_job(PeersJob(["C99"], [CHOI], n=60).events())
    assert refused in str(error)


def test_a_job_that_ends_without_its_result_is_one_error_while_the_engine_goes_on(monkeypatch, tmp_path):
    """The engine says the job has returned, sends no result and stays up: one error, at once (the message used
    to wait for the exit status of an engine that goes on)."""
    import threading

    fake_child(monkeypatch, tmp_path, [line('{"type":"ended"}')])   # as the engine writes it
    errors = []
    worker = threading.Thread(target=lambda: errors.append(run_job(ApplyJob(MODEL, [CHOI]).events())), daemon=True)
    worker.start()
    worker.join(120)   # only a hang guard
    assert not worker.is_alive() and "ended unexpectedly" in str(errors[0])


def test_an_endless_line_is_refused_at_the_bound(monkeypatch, tmp_path):
    monkeypatch.setattr(child_process, "MAX_MESSAGE_BYTES", 1 << 20)
    fake_child(monkeypatch, tmp_path, [b"x" * (4 << 20)])
    error = run_job(ApplyJob(MODEL, [CHOI]).events())
    assert "longer than" in str(error)


def test_an_error_message_is_one_line(monkeypatch, tmp_path):
    fake_child(monkeypatch, tmp_path, [line({"type": "error", "message": "first\nsecond\n" + "x" * 10_000})])
    error = run_job(ApplyJob(MODEL, [CHOI]).events())
    assert str(error).startswith("first second")


# -- the window: one dialog, the shown model kept ---------------------------------------------------------------

pytest.importorskip("pytestqt")
from tests.app_fixtures import app_settings, no_leaked_workers, window  # noqa: E402,F401


@pytest.mark.parametrize("name", ["deep nesting", "progress of wrong types", "sentences 1e999",
                                  "a profile of strings"])
def test_the_window_shows_one_dialog_and_keeps_what_it_showed(window, qtbot, monkeypatch, tmp_path, name):
    window.default_model = None
    with qtbot.waitSignal(window.corpusLoaded, timeout=300000):
        assert window.open_corpus(str(CHOI))
    with qtbot.waitSignal(window.modelApplied, timeout=300000):
        assert window.open_model(str(MODEL))
    qtbot.waitUntil(lambda: not window.busy, timeout=300000)
    shown = window.state.probabilities.copy()
    fake_child(monkeypatch, tmp_path, [line({**MALFORMED_MESSAGES, **APPLY_RESULTS}[name])])
    window.engine.close()   # the next job starts the window's engine again, now the fake one
    with qtbot.waitSignal(window.errorShown, timeout=300000):
        assert window.open_model(str(MODEL))
    qtbot.waitUntil(lambda: not window.busy, timeout=300000)
    assert len(window.dialogs) == 1 and "\n" not in window.dialogs[0][1]
    np.testing.assert_array_equal(window.state.probabilities, shown)


# -- the corpus outline ---------------------------------------------------------------------------------------

def outline_lines(**changes) -> list[bytes]:
    """The engine's reply to a read job for the Choi sample, each message changed by ``changes[type]`` (a
    function of the message, returning the message to send, or None to leave it out)."""
    out = []
    for message in outline_messages(outline_of(read_corpus(CHOI))):
        change = changes.get(message["type"])
        message = message if change is None else change(dict(message))
        if message is not None:
            out.append(line(message))
    return out + [line({"type": "result"})]


def test_the_fake_engine_serves_a_well_formed_outline(monkeypatch, tmp_path):
    fake_child(monkeypatch, tmp_path, outline_lines())
    _, outline = events_and_value(ReadJob([CHOI]).events())
    corpus = read_corpus(CHOI)
    assert outline.masses == corpus.document_masses() and list(outline.texts) == corpus.sentence_texts()
    assert outline.sentence_sizes.tolist() == [len(s) for s in corpus.sentences()]


OUTLINES = {
    "a head of wrong types": {"outline": lambda m: {**m, "sentences": "many"}},
    "a book's headings that are no count": {"outline": lambda m: {**m, "book_headings": -3}},
    "a head without the book's headings": {"outline": lambda m: {k: v for k, v in m.items() if k != "book_headings"}},
    "no head": {"outline": lambda m: None},
    "two heads": {"documents": lambda m: {"type": "outline", **{k: v for k, v in m.items() if k != "type"}}},
    "a negative mass": {"documents": lambda m: {**m, "masses": [-1] + m["masses"][1:]}},
    "names and masses of different lengths": {"documents": lambda m: {**m, "names": m["names"][:-1]}},
    "documents that do not cover the text": {"documents": lambda m: {**m, "masses": [1] + m["masses"][1:]}},
    "texts missing": {"texts": lambda m: None},
    "texts that are not strings": {"texts": lambda m: {**m, "texts": [1] * len(m["texts"])}},
    "more texts than announced": {"texts": lambda m: {**m, "texts": m["texts"] * 2}},
    "sentence sizes missing": {"texts": lambda m: {k: v for k, v in m.items() if k != "sizes"}},
    "fewer sentence sizes than texts": {"texts": lambda m: {**m, "sizes": m["sizes"][:-1]}},
    "sentence sizes that are not counts": {"texts": lambda m: {**m, "sizes": [-1] * len(m["sizes"])}},
    "a unit of wrong shape": {"units": lambda m: {**m, "units": [[1, 2]]}},
    "a paragraph start beyond its unit": {"units": lambda m: {**m, "units": [[u[0], u[1], [u[1] + 5], u[3]]
                                                                          for u in m["units"]]}},
    "a title of wrong type": {"units": lambda m: {**m, "units": [[u[0], u[1], u[2], [[0, 5]]]
                                                              for u in m["units"]]}},
}


@pytest.mark.parametrize("name", list(OUTLINES))
def test_the_read_job_refuses_a_malformed_outline_with_one_line(monkeypatch, tmp_path, name):
    fake_child(monkeypatch, tmp_path, outline_lines(**OUTLINES[name]))
    run_job(ReadJob([CHOI]).events())


@pytest.mark.parametrize("name", ["deep nesting", "a list", "progress of wrong types", "an error of wrong type",
                                  "unknown kind"])
def test_the_read_job_refuses_a_malformed_message_with_one_line(monkeypatch, tmp_path, name):
    fake_child(monkeypatch, tmp_path, [line(MALFORMED_MESSAGES[name])])
    run_job(ReadJob([CHOI]).events())
