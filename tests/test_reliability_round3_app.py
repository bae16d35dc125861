"""The fault matrix, round three (issue 43): the window and its engine process.

* results the engine sends are refused by range as well as by type (a coverage of 10^9 of 5 words, an infinite
  relevance, a P_mu of 5, a negative weight): one line, the shown state kept;
* a job the window cancels while it reports its error (the apply job of a corpus the reading refused) ends
  quietly: no ``Exception in thread job-N: ... JobCancelled`` around the one error line;
* Ctrl-C to the whole process group of ``gui --train N --screenshot``: the engine process ignores it (the window
  ends it on its close path), so no KeyboardInterrupt traceback, and the window exits 130;
* the window's engine reads and applies a folder of many small files with work proportional to the files (it
  summed every document's sentences once per document: quadratic).
"""
from __future__ import annotations

import math
import os
import signal
import subprocess
import sys
import threading

import numpy as np
import pytest

from segviz import load_model, read_corpus
from segviz.errors import SegvizError
from segviz.service import child_process, engine_child
from segviz.service.apply_job import ApplyJob
from segviz.service.child_process import JobCancelled, encode_array, serve_guarded
from segviz.service.general_relevance import GeneralRelevanceJob
from segviz.service.training_job import TrainingJob, added_to_json
from tests.app_fixtures import app_settings, no_leaked_workers, window  # noqa: F401
from tests.conftest import ROOT
from tests.test_faults_app_messages import CHOI, MODEL, N, end_of_apply, fake_child, line, run_job, with_
from tests.test_faults_app_signals import wait_for

CHOI_DIR = ROOT / "sample_corpora" / "choi"

# -- a name in the window: shown as written -------------------------------------------------------------------

def test_a_name_that_looks_like_markup_is_shown_literally(window):  # noqa: F811 - the fixture
    from PySide6.QtCore import Qt

    message = "<b>bold</b>\x1b[31m.txt: no such corpus file or folder"
    window.interactive = True
    window.show_error("Cannot open", message)
    title, shown = window.dialogs[-1]
    assert shown == "<p>&lt;b&gt;bold&lt;/b&gt;\x1b[31m.txt: no such corpus file or folder</p>"   # escaped
    assert window.info_label.textFormat() == Qt.PlainText and window.info_label.text().endswith(message)
    window.show_error("Cannot open", "plain.txt: no such corpus file or folder")
    assert window.dialogs[-1][1] == "plain.txt: no such corpus file or folder"   # plain text stays as it is


# -- ranges of the apply job's result -------------------------------------------------------------------------

APPLY_RANGES = {
    "coverage of 10^9 of 5 words": with_(coverage={"covered": 10 ** 9, "words": 5, "vocabulary": 100}),
    "more words than the corpus has tokens": with_(coverage={"covered": 1, "words": 10 ** 9, "vocabulary": 100}),
    "a negative vocabulary": with_(coverage={"covered": 1, "words": 5, "vocabulary": -1}),
    "coverage of floats": with_(coverage={"covered": 1.5, "words": 5, "vocabulary": 10}),
    "coverage of bools": with_(coverage={"covered": True, "words": 5, "vocabulary": 10}),
    "an infinite relevance": with_(relevance=encode_array(np.full(N, np.inf))),
    "a relevance of 1e300": with_(relevance=encode_array(np.full(N, 1e300))),
    "a NaN relevance": with_(relevance=encode_array(np.full(N, np.nan))),
    "a profile mean of 1e300": with_(profile={"offsets": [0], "mean": [1e300], "count": [1]}),
    "a negative profile count": with_(profile={"offsets": [0], "mean": [0.5], "count": [-4]}),
    "fractional sentence sizes": with_(sentence_sizes=encode_array(np.full(N, 7.5))),
    "a route of negative length": with_(units=[[0, N, "model", {"expert": "model",
                                                               "checks": [["model", "model", -5.0, 10.0]]}]]),
}


@pytest.mark.parametrize("name", list(APPLY_RANGES))
def test_the_model_job_refuses_results_out_of_range(monkeypatch, tmp_path, name):
    fake_child(monkeypatch, tmp_path, [line(APPLY_RANGES[name])])
    run_job(ApplyJob(MODEL, [CHOI]).events())


@pytest.mark.parametrize("relevance", [np.inf, 1e300, np.nan])
def test_the_model_job_refuses_relevance_out_of_range_after_its_curve(monkeypatch, tmp_path, relevance):
    """The relevance of a model's own language models follows its curve, checked as the curve is."""
    fake_child(monkeypatch, tmp_path, [line(with_()),
                                       line(end_of_apply(relevance=encode_array(np.full(N, relevance))))])
    run_job(ApplyJob(MODEL, [CHOI]).events())


def test_results_within_range_are_taken(monkeypatch, tmp_path):
    fake_child(monkeypatch, tmp_path, [line(with_(coverage={"covered": 3, "words": 5, "vocabulary": 100})),
                                       line(end_of_apply(relevance=encode_array(np.linspace(-20, 20, N))))])
    events = ApplyJob(MODEL, [CHOI]).events()
    with pytest.raises(StopIteration) as stop:
        while True:
            next(events)
    _, applied = stop.value.value
    assert applied.coverage.covered == 3 and np.isfinite(applied.relevance).all()


@pytest.mark.parametrize("relevance", [np.inf, 1e300])
def test_the_relevance_job_refuses_relevance_out_of_range(monkeypatch, tmp_path, relevance):
    fake_child(monkeypatch, tmp_path, [line({"type": "result", "sentences": N, "source": "general",
                                             "relevance": encode_array(np.full(N, relevance)), "profile": None})])
    run_job(GeneralRelevanceJob([CHOI]).events())


# -- ranges of the training job's messages --------------------------------------------------------------------

def _round(model_changes=None, added_changes=None, n=None) -> dict:
    from segviz.induction import FeatureAdded

    model = load_model(MODEL)
    document = model.to_dict()
    document.update(model_changes or {})
    added = added_to_json(FeatureAdded(round=1, feature=model.features_[0], gain=0.5,
                                       weights=(float(math.exp(model.lambdas_[0])),), train_loglik=-10.0,
                                       heldout_p_mu=0.8, heldout_rule=None, column=0, iis_iterations=3,
                                       seconds=0.1))
    added.update(added_changes or {})
    return {"type": "round", "model": document, "added": added,
            "probabilities": encode_array(np.full(n - 1, 0.5))}


TRAINING_RANGES = {
    "an infinite relevance": lambda n: {"type": "relevance", "relevance": encode_array(np.full(n, np.inf)),
                                        "profile": {"offsets": [0], "mean": [0.1], "count": [1]}},
    "a held-out P_mu of 5": lambda n: _round(added_changes={"heldout_p_mu": 5.0}, n=n),
    "a negative weight": lambda n: _round(added_changes={"weights": [-1.0]}, n=n),
    "an infinite gain": lambda n: _round(added_changes={"gain": float("inf")}, n=n),
    "a round of 0": lambda n: _round(added_changes={"round": 0}, n=n),
    "a round as a string": lambda n: _round(added_changes={"round": "3"}, n=n),
    "negative seconds": lambda n: _round(added_changes={"seconds": -1.0}, n=n),
    "a model prior of 5": lambda n: _round(model_changes={"prior": 5.0}, n=n),
    "a model lambda of 10^9": lambda n: _round(model_changes={"lambdas": [1e9] * 40}, n=n),
}


@pytest.mark.parametrize("name", list(TRAINING_RANGES))
def test_the_training_job_refuses_messages_out_of_range(monkeypatch, tmp_path, name):
    corpus = read_corpus(CHOI_DIR)
    fake_child(monkeypatch, tmp_path, [line(TRAINING_RANGES[name](corpus.n_sentences))])
    error = run_job(TrainingJob(corpus, [CHOI_DIR], n_features=3).events())
    assert "training process" in str(error)


def test_a_round_within_range_is_taken(monkeypatch, tmp_path):
    corpus = read_corpus(CHOI_DIR)
    fake_child(monkeypatch, tmp_path, [line(_round(n=corpus.n_sentences))])
    events = TrainingJob(corpus, [CHOI_DIR], n_features=3).events()
    with pytest.raises(SegvizError, match="ended"):   # the fake engine sends one round, then nothing
        for event in events:
            if type(event).__name__ == "CurveUpdate":
                assert event.added.heldout_p_mu == 0.8
                raise SegvizError("ended as expected")


# -- a cancelled job that reports its error -------------------------------------------------------------------

def test_a_job_cancelled_while_it_reports_its_error_ends_quietly():
    cancelled = threading.Event()
    said = []

    def send(message):
        if cancelled.is_set():
            raise JobCancelled()
        said.append(message)

    def job():
        cancelled.set()   # the window cancels the job while it fails
        raise SegvizError("the corpus is refused")

    assert serve_guarded(send, job) == 0 and said == []

    def buggy():
        cancelled.set()
        raise RuntimeError("a bug")

    assert serve_guarded(send, buggy) == 1 and said == []


def test_no_job_thread_ends_in_a_traceback_when_cancelled(monkeypatch):
    """The engine's job thread itself: a job whose send raises JobCancelled (cancelled mid-way) ends quietly."""
    failures = []
    monkeypatch.setattr(threading, "excepthook", lambda args: failures.append(args.exc_type))

    def serve(config, inbox, send):
        inbox.cancel()
        send({"type": "progress", "stage": "x", "done": 0, "total": 1})

    monkeypatch.setattr(engine_child, "_serve_function", lambda job: serve)
    inbox = engine_child.Inbox()
    inbox.feed(b'{"job": "apply"}\n')
    written = []
    thread = threading.Thread(target=engine_child._run_job, args=(2, inbox, written.append, {}), name="job-2")
    thread.start()
    thread.join()
    assert failures == [] and written == [{"id": 2, "type": "ended"}]


@pytest.mark.slow
def test_a_refused_corpus_in_a_headless_window_is_one_line(tmp_path):
    """End to end: the reading and the apply job of one corpus the engine refuses, the apply job cancelled when
    the reading's error arrives.  Whichever comes first, one line and status 2, never a JobCancelled traceback."""
    (tmp_path / "bad.txt").write_bytes(b"\x00\x01binary" * 100)
    for _ in range(3):
        proc = subprocess.run([sys.executable, "-m", "segviz", "gui", str(tmp_path / "bad.txt"), "--export-segments",
                               str(tmp_path / "out.jsonl")], capture_output=True, text=True, timeout=600,
                              env={**os.environ, "QT_QPA_PLATFORM": "offscreen", "PYTHONPATH": str(ROOT)})
        assert proc.returncode == 2, proc.stderr
        assert "Traceback" not in proc.stderr and "JobCancelled" not in proc.stderr, proc.stderr
        assert [ln for ln in proc.stderr.splitlines() if ln.startswith("segviz: error:")], proc.stderr


# -- Ctrl-C to the process group --------------------------------------------------------------------------------

def test_the_engine_process_ignores_ctrl_c():
    assert "signal.signal(signal.SIGINT, signal.SIG_IGN)" in child_process.child_command()[-1]


@pytest.mark.slow
@pytest.mark.skipif(not hasattr(os, "killpg"), reason="process groups (POSIX)")
def test_ctrl_c_to_the_process_group_of_a_training_window_is_quiet_and_130(tmp_path):
    temporary = tmp_path / "tmp"
    temporary.mkdir()
    env = {**os.environ, "TMPDIR": str(temporary), "QT_QPA_PLATFORM": "offscreen", "PYTHONPATH": str(ROOT)}
    process = subprocess.Popen([sys.executable, "-m", "segviz", "gui", str(CHOI_DIR), "--train", "8",
                                "--screenshot", str(tmp_path / "shot.png")], env=env, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True, start_new_session=True)
    try:
        # as the terminal does: once the training runs in the engine, SIGINT to every process of the group
        wait_for(lambda: any(p.name.startswith("segviz-engine-") and any(p.glob("lm-train-*.segviz"))
                             for p in temporary.iterdir()), "the training to start", process)
        os.killpg(process.pid, signal.SIGINT)
        _, stderr = process.communicate(timeout=300)
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
    assert process.returncode == 130, stderr
    assert "Traceback" not in stderr and "KeyboardInterrupt" not in stderr, stderr
    assert "ended unexpectedly" not in stderr, stderr


# -- many small files: work proportional to the files ----------------------------------------------------------

def _lines_run(function, *args) -> int:
    """Lines of segviz's own code executed by ``function(*args)``: a count of work that no clock changes."""
    count = 0
    package = str(ROOT / "segviz")

    def tracer(frame, event, arg):
        nonlocal count
        if not frame.f_code.co_filename.startswith(package):
            return None
        if event == "line":
            count += 1
        return tracer

    sys.settrace(tracer)
    try:
        function(*args)
    finally:
        sys.settrace(None)
    return count


def _folder(path, n: int):
    path.mkdir()
    for i in range(n):
        (path / f"f{i}.ref").write_text(f"==========\nThe cat {i} sat here.\nIt was warm.\n==========\n"
                                        f"Dogs bark {i} loudly.\nThe moon rose.\n==========\n")
    return path


def test_the_engines_work_on_a_folder_is_linear_in_its_files(tmp_path, monkeypatch):
    """Reading a folder, cutting it into its files and the apply task's bookkeeping around the model (the model's
    own work per document left out): four times the files, four times the lines run, give or take."""
    import scipy.sparse as sp

    from segviz.service import tasks
    from tests.drive import events_and_value

    def applied_nowhere(model, documents, *, n_jobs):
        yield from ()
        return [("model", None, np.full(d.n_sentences - 1, 0.5), sp.csr_matrix((d.n_sentences - 1, 40)))
                for d in documents]

    monkeypatch.setattr(tasks, "_apply_documents", applied_nowhere)
    model = load_model(MODEL)

    def read_and_apply(folder):
        corpus = read_corpus(folder)
        events_and_value(tasks.apply_model_task(model, corpus, n_jobs=1))

    small, large = _folder(tmp_path / "small", 50), _folder(tmp_path / "large", 200)
    read_and_apply(small)   # imports and first calls out of the count
    a, b = _lines_run(read_and_apply, small), _lines_run(read_and_apply, large)
    assert b / a < 4 * 1.1, (a, b)
    corpora = read_corpus(small), read_corpus(large)
    a, b = (_lines_run(corpus.by_file) for corpus in corpora)   # each unit's readings: found once, not scanned
    assert b / a < 4 * 1.1, (a, b)
