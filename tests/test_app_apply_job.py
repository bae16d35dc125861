"""Applying a model in the engine child: the same arrays as in a thread, every array checked when it comes back,
a cancel ends the child, and the window applies a model opened with its corpus side by side with the reading."""
from __future__ import annotations

import json
import os
import signal
import threading
from pathlib import Path

import numpy as np
import pytest

from segviz import Segmenter, read_corpus
from segviz.errors import SegvizError
from segviz.events import Progress
from segviz.models import load_model
from segviz.service.apply_job import (
    ApplyJob,
    IndexParts,
    ModelCurve,
    applied_from_json,
    applied_to_json,
    index_part_messages,
)
from segviz.service.child_process import decode_array, encode_array
from segviz.service.tasks import apply_model_task, shown_relevance_task
from tests.drive import events_and_value

ROOT = Path(__file__).resolve().parents[1]
SAMPLE = ROOT / "sample_corpora" / "reuters_sample.sgm"
LM_MODEL = ROOT / "resources" / "sample_model.segviz"   # a model with language models: relevance and its profile
SAMPLE_MODEL = ROOT / "resources" / "default_model.segviz"   # the bundled default (no language models)




@pytest.fixture(scope="module")
def sample():
    return read_corpus(SAMPLE)


def applied_here(model, corpus):
    """What the engine's apply job computes, in this process: the curve, then the relevance of the shown segmenter's
    own language models when it has some."""
    from dataclasses import replace

    _, applied = events_and_value(apply_model_task(model, corpus))
    lms = model.language_models()[applied.shown]
    if lms is None:
        return applied
    _, (relevance, profile) = events_and_value(shown_relevance_task(lms, corpus))
    return replace(applied, relevance=relevance, profile=profile)


@pytest.mark.slow
@pytest.mark.parametrize("model", [SAMPLE_MODEL, LM_MODEL], ids=["default", "with-lms"])
def test_the_child_gives_what_a_thread_gives(sample, model):
    if not Path(model).is_file():
        pytest.skip(f"{model} is absent")
    events, (n, child) = events_and_value(ApplyJob(model, [SAMPLE]).events())
    assert n == sample.n_sentences and any("reading" in e.stage for e in events if isinstance(e, Progress))
    # the curve first, as an event of its own, before anything else the job does
    curves = [e for e in events if isinstance(e, ModelCurve)]
    assert len(curves) == 1 and curves[0].applied.relevance is None
    np.testing.assert_array_equal(curves[0].applied.probabilities, child.probabilities)
    # progress in sentences while applying
    applying = [e for e in events if isinstance(e, Progress) and e.stage == "applying the model"]
    assert applying and applying[-1].done == applying[-1].total == sample.n_sentences
    local = applied_here(load_model(model), sample)
    np.testing.assert_array_equal(child.probabilities, local.probabilities)
    assert (child.columns != local.columns).nnz == 0 and child.columns.shape == local.columns.shape
    assert child.units == local.units and child.shown == local.shown
    assert (child.relevance is None) == (local.relevance is None)
    if local.relevance is not None:
        np.testing.assert_array_equal(child.relevance, local.relevance)
        assert child.profile == json.loads(json.dumps(local.profile))
    assert child.coverage == local.coverage


def test_the_result_crosses_as_json_and_is_checked(sample):
    _, local = events_and_value(apply_model_task(Segmenter.load(LM_MODEL), sample))
    message = json.loads(json.dumps(applied_to_json(sample.n_sentences, local)))
    parts = json.loads(json.dumps(index_part_messages(local.columns)))

    def received(part_messages):
        got = IndexParts()
        assert all(got.accept(p) for p in part_messages)
        return got

    n, back = applied_from_json(message, received(parts))
    assert n == sample.n_sentences and back.coverage == local.coverage
    assert back.units == local.units and back.shown == "model"
    assert (back.columns != local.columns.tocsr()).nnz == 0

    def broken(edit, part_messages=parts):
        m = json.loads(json.dumps(message))
        edit(m)
        with pytest.raises(SegvizError, match="process"):
            applied_from_json(m, received(part_messages))

    broken(lambda m: m.update(sentences=n + 1))                                   # arrays of another length
    broken(lambda m: m["columns"].update(shape=[n - 1, 0]))                       # an index past the last column
    broken(lambda m: m["columns"].update(indptr=encode_array(np.zeros(n), "<i4")))   # rows that hold nothing
    broken(lambda m: m.update(probabilities=encode_array(np.full(n - 1, 1.5))))  # not probabilities
    broken(lambda m: m.update(units=[[0, 5, "model", None]]))                   # a plan short of the stream
    broken(lambda m: m.update(units=[[0, n, 7, None]]))                          # an expert that is no name
    broken(lambda m: None, parts[:-1])                                            # a part of the indices missing
    broken(lambda m: None, parts + parts[-1:])                                    # one too many
    broken(lambda m: m.update(shown="nobody"))                                   # a segmenter that answers nothing
    broken(lambda m: m.update(units=[[0, n, "model", {"expert": "model", "checks": [[1]]}]]))   # a broken route
    broken(lambda m: m.update(profile=[1, 2]))


def test_arrays_cross_in_their_own_type():
    for dtype, values in (("<f8", np.linspace(0, 1, 7)), ("<i4", np.arange(-3, 4)), ("|u1", np.array([0, 1, 1]))):
        back = decode_array(json.loads(json.dumps(encode_array(values, dtype))), dtype=dtype)
        np.testing.assert_array_equal(back, values)
    with pytest.raises(ValueError):
        encode_array(np.array([2 ** 40]), "<i4")
    with pytest.raises(SegvizError):
        decode_array(encode_array(np.arange(3), "<i4"))          # not a float64 array


@pytest.mark.slow
def test_a_missing_model_or_corpus_is_one_message(tmp_path):
    with pytest.raises(SegvizError):
        events_and_value(ApplyJob(tmp_path / "none.segviz", [SAMPLE]).events())
    with pytest.raises(SegvizError):
        events_and_value(ApplyJob(LM_MODEL, [tmp_path / "none.sgm"]).events())


def held_engine(tmp_path):
    """An engine whose reading of the sample is held: a training job on it has reported its first step of reading
    (inside the engine's one reading of those files, which every other job on them waits for) and gets no next
    step, so every job on the sample waits -- provably, without a clock -- until the engine is closed."""
    from segviz.service.engine_process import EngineProcess

    engine = EngineProcess("a test engine")
    holder = engine.channel("the holding job", lambda: False)
    assert holder.start()
    assert holder.send({"job": "train", "paths": [str(SAMPLE)], "read_options": {}, "lms_in": None,
                        "sentences": 0, "n_features": 1, "heldout_fraction": 0.2, "lm_params": {},
                        "segmenter_params": {}, "lm_path": str(tmp_path / "lm.segviz")})
    assert holder.write("next\n")
    message = holder.receive()
    assert message is not None and message["type"] == "progress" and message["stage"] == "reading", message
    return engine, holder


def test_close_returns_at_once_and_closing_the_engine_ends_it(tmp_path):
    """Close from another thread while the worker waits for a job the engine cannot finish (its corpus is held):
    the job returns None at once, the engine goes on for the other jobs, and closing the engine ends its process
    by a signal rather than waiting for the work."""
    engine, holder = held_engine(tmp_path)
    # only so that a close that fails to end the job cannot hang the suite
    hang_guard = threading.Timer(120, engine.close)
    hang_guard.start()
    try:
        job = ApplyJob(LM_MODEL, [SAMPLE], engine=engine)
        gen = job.events()
        first = next(gen)               # the job is on its way (the engine has it or is being sent it)
        closer = threading.Thread(target=job.close)
        closer.start()
        rest, result = events_and_value(gen)
        closer.join()
        assert result is None and not engine.closed
        assert not any(e.stage.startswith("read ") for e in [first, *rest])   # it never got past the held file
        assert engine.running
        process = engine._child.process
    finally:
        hang_guard.cancel()
        holder.end()
        engine.close()
    assert process.wait(120) in (-signal.SIGTERM, -signal.SIGKILL)


# -- the window ------------------------------------------------------------------------------------------------

pytest.importorskip("pytestqt")

from tests.app_fixtures import app_settings, no_leaked_workers, window  # noqa: E402,F401


@pytest.mark.slow
def test_a_model_opened_with_its_corpus_is_applied_while_the_corpus_is_read(window, qtbot, monkeypatch, sample):
    from segviz.app import model_control

    started = []
    real_start = window.background.start

    def spy(name, factory, **kwargs):
        started.append(name)
        return real_start(name, factory, **kwargs)

    monkeypatch.setattr(window.background, "start", spy)
    with qtbot.waitSignal(window.modelApplied, timeout=300000, check_params_cb=lambda *a: True):
        assert window.open_corpus(str(SAMPLE))
        assert window.open_model(str(LM_MODEL))
    qtbot.waitUntil(lambda: window.state.probabilities is not None and window.state.relevance is not None,
                    timeout=300000)
    qtbot.waitUntil(lambda: not window.busy, timeout=300000)
    assert model_control.EARLY_APPLY in started and "apply" not in started
    local = applied_here(Segmenter.load(LM_MODEL), sample)
    np.testing.assert_array_equal(window.state.probabilities, local.probabilities)
    np.testing.assert_array_equal(window.state.relevance, local.relevance)
    # the context panel's feature columns came with it: no second evaluation
    assert window.model_control.columns is not None and "columns" not in started


@pytest.mark.slow
def test_a_model_applied_to_a_shown_corpus_runs_in_the_child(window, qtbot, monkeypatch):
    with qtbot.waitSignal(window.corpusLoaded, timeout=300000):
        window.open_corpus(str(SAMPLE))
    qtbot.waitUntil(lambda: not window.busy, timeout=300000)
    jobs = []
    real_events = ApplyJob.events

    def spy(self):
        jobs.append(self)
        return real_events(self)

    monkeypatch.setattr(ApplyJob, "events", spy)
    window.open_model(str(LM_MODEL))
    qtbot.waitUntil(lambda: window.state.probabilities is not None, timeout=300000)
    qtbot.waitUntil(lambda: not window.busy, timeout=300000)
    assert len(jobs) == 1 and jobs[0].paths == [os.path.abspath(SAMPLE)]


@pytest.mark.slow
def test_a_corpus_changed_on_disk_is_refused_and_the_view_stays(window, qtbot, tmp_path):
    path = tmp_path / "c.sgm"
    path.write_bytes(SAMPLE.read_bytes())
    with qtbot.waitSignal(window.corpusLoaded, timeout=300000):
        window.open_corpus(str(path))
    qtbot.waitUntil(lambda: not window.busy, timeout=300000)
    shown = window.state.probabilities   # the bundled model's, applied on open
    assert shown is not None
    text = SAMPLE.read_text(encoding="latin-1")
    path.write_text(text[: len(text) // 2].rsplit("</REUTERS>", 1)[0] + "</REUTERS>\n", encoding="latin-1")
    window.open_model(str(LM_MODEL))
    qtbot.waitUntil(lambda: bool(window.dialogs), timeout=300000)
    qtbot.waitUntil(lambda: not window.busy, timeout=300000)
    assert "changed since they were opened" in window.dialogs[-1][1]
    assert window.state.probabilities is shown and window.state.model_path != str(LM_MODEL)


def test_the_child_lowers_its_priority_before_importing_the_engine(tmp_path):
    """Its imports are a second of CPU: at the window's priority they competed with the window's first paint."""
    from segviz.service.child_process import CHILD_NICENESS, child_command

    def niceness(pid):
        return int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[16])

    bootstrap = child_command()[-1]
    assert bootstrap.index("os.nice") < bootstrap.index("import importlib")
    # a job whose first message proves the bootstrap has run (the niceness is set before any import); the engine
    # stays up after it, until closed
    engine, holder = held_engine(tmp_path)
    try:
        if not Path(f"/proc/{holder.pid}/stat").exists():
            pytest.skip("no /proc")
        assert engine.running
        assert niceness(holder.pid) == min(os.nice(0) + CHILD_NICENESS, 19)
    finally:
        holder.end()
        engine.close()


def test_a_corpus_that_fails_to_read_stops_the_model_started_beside_it(window, qtbot, tmp_path):
    from segviz.app.model_control import EARLY_APPLY

    bad = tmp_path / "bad.sgm"
    bad.write_bytes(b"\x00\x01binary\x00" * 1000)
    assert window.open_corpus(str(bad))
    assert window.open_model(str(LM_MODEL))
    qtbot.waitUntil(lambda: bool(window.dialogs), timeout=300000)
    qtbot.waitUntil(lambda: not window.busy, timeout=300000)
    assert not window.background.is_running(EARLY_APPLY)
    assert window.state.corpus is None and window.state.probabilities is None
    assert window.state.segmenter is not None          # the model itself is open, waiting for a corpus


@pytest.mark.slow
def test_the_engine_is_the_only_reader_and_its_directory_ends_with_the_window(window, qtbot, monkeypatch):
    """The window never parses a corpus: it holds the engine's outline (no tokens), and the engine's working
    directory, private to the user, goes with the window."""
    from segviz.service import tasks
    from segviz.service.corpus_outline import CorpusOutline

    def refuse(*args, **kwargs):
        raise AssertionError("the window parsed a corpus")

    monkeypatch.setattr(tasks, "_read_one", refuse)
    with qtbot.waitSignal(window.modelApplied, timeout=300000, check_params_cb=lambda *a: True):
        assert window.open_corpus(str(SAMPLE))
        assert window.open_model(str(LM_MODEL))
    qtbot.waitUntil(lambda: not window.busy, timeout=300000)
    assert isinstance(window.state.corpus, CorpusOutline) and not window.dialogs
    assert list(window.state.texts) == read_corpus(SAMPLE).sentence_texts()
    workdir = Path(window.engine.workdir)
    assert os.stat(workdir).st_mode & 0o077 == 0   # private to the user
    with qtbot.waitSignal(window.closed, timeout=300000):
        window.close()
    # the engine ends off the GUI thread after the window has closed, and removes its directory as it goes
    qtbot.waitUntil(lambda: not workdir.exists(), timeout=60000)


@pytest.mark.slow
def test_a_router_is_applied_as_the_expert_it_chooses_and_chooses_again_for_a_new_corpus(window, qtbot, tmp_path):
    """The window shows the expert a router picks for the shown text, says why, and routes the next text anew."""
    from segviz import ThresholdRule
    from segviz.routing import ExpertRouter

    short = Segmenter.from_weights([], [], prior=0.3, mu=0.1, rule=ThresholdRule(alpha=0.2, epsilon=2))
    long = Segmenter.from_weights([], [], prior=0.01, mu=0.1, rule=ThresholdRule(alpha=0.5, epsilon=4))
    router = ExpertRouter(experts=[("short", short), ("long", long)], gauges=["short"])
    router.thresholds_, router.tuning_, router.info_ = [8.0], {}, {}
    path = router.save(tmp_path / "router.segviz")
    with qtbot.waitSignal(window.corpusLoaded, timeout=300000):
        window.open_corpus(str(SAMPLE))
    qtbot.waitUntil(lambda: not window.busy, timeout=300000)
    assert window.open_model(str(path))
    qtbot.waitUntil(lambda: window.state.route is not None and not window.busy, timeout=300000)
    state = window.state
    assert state.opened_model.segmenters().keys() == {"short", "long"} and state.route.expert == "short"
    assert state.segmenter is state.opened_model.experts_["short"] and state.epsilon == 2
    np.testing.assert_allclose(state.probabilities, 0.3)
    assert "model: the short expert (expected segment lengths: short " in window.decision.reference_label.text()
    assert window.decision.reference_label.toolTip().startswith("the short expert: the short expert expects")
    # a text of 2 sentences: the short expert expects segments of 2 / 1.3 = 1.5 sentences -- still short; a
    # router whose threshold is below that sends it to the long expert
    text = tmp_path / "two.txt"
    text.write_text("One sentence here.\n\nAnother one there.\n")
    router.thresholds_ = [1.0]
    router.save(path)
    window.state.opened_model.thresholds_ = [1.0]
    with qtbot.waitSignal(window.corpusLoaded, timeout=300000):
        window.open_corpus(str(text))
    qtbot.waitUntil(lambda: state.route is not None and state.route.expert == "long" and not window.busy,
                    timeout=300000)
    assert state.segmenter is state.opened_model.experts_["long"] and state.epsilon == 4


# -- a model with no file of its own (trained in the window) is applied in the engine too ------------------------

@pytest.mark.slow
def test_a_model_without_a_file_crosses_as_json_with_its_language_models_file(sample, tmp_path):
    from segviz.service.engine_models import LanguageModelFiles
    from segviz.service.engine_process import EngineProcess

    trained = Segmenter.load(LM_MODEL)   # as a window holds a model it trained: in memory, with its LMs
    files = LanguageModelFiles()
    engine = EngineProcess("a test engine")
    try:
        _, (n, got) = events_and_value(ApplyJob(None, [SAMPLE], model=trained, lm_files=files,
                                                engine=engine).events())
        lm_file = files.path_for(trained.lms_, None)   # saved once in the engine's directory, and known
        assert Path(lm_file).parent == Path(engine.workdir)
        _, (_, again) = events_and_value(ApplyJob(None, [SAMPLE], model=trained, lm_files=files,
                                                  engine=engine).events())
        assert files.path_for(trained.lms_, None) == lm_file   # not saved again
        _, (_, columns) = events_and_value(ApplyJob(None, [SAMPLE], model=trained, lm_files=files,
                                                    columns_of="model", engine=engine).events())
    finally:
        engine.close()
    local = applied_here(Segmenter.load(LM_MODEL), sample)
    assert n == sample.n_sentences
    np.testing.assert_array_equal(got.probabilities, local.probabilities)
    np.testing.assert_array_equal(again.probabilities, local.probabilities)
    np.testing.assert_array_equal(got.relevance, local.relevance)
    want = trained.feature_matrix(sample)
    assert columns.shape == want.shape and (columns != want).nnz == 0


def test_columns_of_a_segmenter_the_model_lacks_is_one_error():
    with pytest.raises(SegvizError, match="no segmenter called"):
        events_and_value(ApplyJob(LM_MODEL, [SAMPLE], columns_of="wiki").events())


def test_a_router_whose_file_is_gone_is_refused_by_name(tmp_path):
    from segviz.service.engine_models import LanguageModelFiles, model_source

    router = load_model(SAMPLE_MODEL)
    with pytest.raises(SegvizError, match="file is gone"):
        model_source(router, str(tmp_path / "gone.segviz"), LanguageModelFiles(), str(tmp_path))
    assert model_source(router, str(SAMPLE_MODEL), LanguageModelFiles(), None) == {"model": str(SAMPLE_MODEL)}


@pytest.mark.parametrize("columns", [
    {"shape": [3, 2], "indptr": None, "parts": 0, "data": None},
    {"shape": [10**6, 2], "indptr": {"shape": [1], "i4": "AAAAAA=="}, "parts": 0, "data": None},
    {"shape": [9, 2], "indptr": encode_array(np.zeros(10, dtype=np.int32), "<i4"), "parts": "0", "data": None},
    {"shape": [9, 2], "indptr": encode_array(np.zeros(10, dtype=np.int32), "<i4"), "parts": 1, "data": None},
])
def test_a_malformed_columns_result_is_one_error(columns):
    from segviz.service.apply_job import IndexParts, columns_from_json

    with pytest.raises(SegvizError, match="malformed"):
        columns_from_json({"type": "result", "sentences": 10, "columns": columns}, IndexParts())


# -- curve first: what another segmenter answered comes later -------------------------------------------------------

MIXED = [ROOT / "sample_corpora" / "choi" / "3-11_0.ref", SAMPLE]   # the excerpts expert, then the mixed expert


@pytest.mark.slow
def test_the_columns_of_documents_another_segmenter_answered_come_from_a_later_job():
    """The apply sends the curve without answering the shown segmenter's questions where another segmenter
    answered (that was a stage of its own before the curve, 20-60 s at 10^6 sentences); a columns job for those
    documents gives their rows, and the two together are the shown segmenter's columns, document by document."""
    from segviz.events import run_to_end
    from segviz.service.tasks import shown_columns_task

    if not SAMPLE_MODEL.is_file():
        pytest.skip("the default model is absent")
    corpus = read_corpus([str(p) for p in MIXED])
    model = load_model(SAMPLE_MODEL)
    events, (n, applied) = events_and_value(ApplyJob(SAMPLE_MODEL, MIXED).events())
    assert [u.expert for u in applied.units] == ["excerpts", "mixed"] and applied.shown == "mixed"
    assert applied.missing_columns == (0,)
    assert not any(isinstance(e, Progress) and "features" in e.stage for e in events)
    first = applied.units[0].end - 1
    assert applied.columns[:first].nnz == 0          # empty until the later job
    _, (_, filled) = events_and_value(ApplyJob(SAMPLE_MODEL, MIXED, columns_of="mixed", documents=[0]).events())
    assert filled.shape == applied.columns.shape and filled[first:].nnz == 0
    whole = (applied.columns + filled).tocsr()
    segmenter = model.segmenters()["mixed"]
    for (start, end), document in zip([(u.start, u.end) for u in applied.units], corpus.by_file()):
        want = segmenter.feature_matrix(document).tocsr()
        assert (whole[start:end - 1] != want).nnz == 0
    assert (run_to_end(shown_columns_task(model, "mixed", corpus, [0])) != filled).nnz == 0
    with pytest.raises(SegvizError, match="document"):
        run_to_end(shown_columns_task(model, "mixed", corpus, [2]))


@pytest.mark.slow
def test_the_window_shows_the_curve_then_fills_the_columns_in_the_background(window, qtbot):
    if not SAMPLE_MODEL.is_file():
        pytest.skip("the default model is absent")
    control = window.model_control
    with qtbot.waitSignal(window.curveShown, timeout=300000):
        assert window.open_corpus([str(p) for p in MIXED])
    assert window.state.probabilities is not None and control._missing == (0,)
    qtbot.waitUntil(lambda: not window.busy, timeout=300000)
    assert control._missing == () and control.columns[:59].nnz > 0
    corpus = read_corpus([str(p) for p in MIXED])
    want = load_model(SAMPLE_MODEL).segmenters()["mixed"].feature_matrix(corpus.by_file()[0]).tocsr()
    assert (control.feature_columns()[:59] != want).nnz == 0
