"""The app's one training path, without Qt: the event generator, and the job that runs it in a child process.

End to end through the child: start, events, pause at a round boundary (the child idles), cancel keeps the model
of the last finished round and ends the child, close ends it mid-round; the models that cross the pipe as JSON
give the same curve as the child's; the child cannot be shadowed from the current directory.
"""
from __future__ import annotations

import json
import os
import platform
import select
import signal
import subprocess
import threading
import time
from pathlib import Path

import numpy as np
import pytest

from segviz import read_corpus
from segviz.errors import SegvizError
from segviz.events import Progress
from segviz.service.child_process import child_command, decode_array, encode_array
from segviz.service.training_job import (
    CurveUpdate,
    LanguageModelsReady,
    RelevanceReady,
    TrainingFinished,
    TrainingJob,
    split_for_training,
    training_events,
)

ROOT = Path(__file__).resolve().parents[1]
CHOI = ROOT / "sample_corpora" / "choi"
SMALL_LM = dict(vocab_size=2000, n_triggers=500, trigger_vocab=500, max_iter=2)


@pytest.fixture(scope="module")
def corpus():
    return read_corpus(CHOI)


#: the number of the read(2) system call, as /proc/PID/syscall shows it, by machine
READ_SYSCALL = {"x86_64": "0", "aarch64": "63", "riscv64": "63", "ppc64le": "3", "s390x": "3"}


def blocked_reading_commands(pid: int) -> bool | None:
    """True while the process is blocked in a read of its standard input (fd 0, the child's command pipe);
    None when this machine cannot tell (no /proc/PID/syscall, or an unknown read(2) number)."""
    number = READ_SYSCALL.get(platform.machine())
    try:
        fields = Path(f"/proc/{pid}/syscall").read_text().split()
    except OSError:
        return None
    if number is None or not fields:
        return None
    return fields[:2] == [number, "0x0"]   # "running" while it computes; else the call and its first argument


def wait_for(condition, what: str, timeout: float = 120.0) -> None:
    """Poll ``condition`` until true; the timeout only keeps a broken run from hanging the suite."""
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, f"gave up waiting for {what}"
        time.sleep(0.01)


def next_round(events):
    for event in events:
        if isinstance(event, (CurveUpdate, TrainingFinished)):
            return event
    return None


def test_the_generator_yields_the_rounds_the_app_shows(corpus):
    events = list(training_events(corpus, n_features=3, lm_params=SMALL_LM))
    kinds = [type(e) for e in events]
    assert kinds.index(LanguageModelsReady) < kinds.index(RelevanceReady) < kinds.index(CurveUpdate)
    assert kinds[-1] is TrainingFinished and kinds.count(RelevanceReady) == 1
    assert all(k in (Progress, LanguageModelsReady, RelevanceReady, CurveUpdate, TrainingFinished) for k in kinds)
    relevance = next(e for e in events if isinstance(e, RelevanceReady)).relevance
    assert relevance.shape == (corpus.n_sentences,)
    rounds = [e for e in events if isinstance(e, CurveUpdate)]
    assert [e.added.round for e in rounds] == list(range(1, len(rounds) + 1)) and 1 <= len(rounds) <= 3
    final = events[-1].model
    # the last round's curve is the trained model's (the stopping rule keeps every round by default)
    np.testing.assert_allclose(rounds[-1].probabilities, final.boundary_probabilities(corpus), atol=1e-12)
    assert final.info_["tuned_on"] == "heldout"


def test_the_relevance_is_computed_once_for_training_and_every_curve(corpus, monkeypatch):
    """The shown corpus's relevance serves induction and each round's curve: the language models score the
    corpus once (the second time took seconds before the first feature on 70k sentences)."""
    from segviz import Segmenter
    from segviz import relevance as relevance_module

    lms = Segmenter.load(ROOT / "resources" / "sample_model.segviz").lms_
    calls = []
    real = relevance_module.word_relevance

    def counted(*args, **kwargs):
        calls.append(len(args[1]))
        return real(*args, **kwargs)

    monkeypatch.setattr(relevance_module, "word_relevance", counted)
    events = list(training_events(corpus, n_features=3, lms=lms,
                                  segmenter_params={"families": ("relevance",)}))
    assert calls == [corpus.n_sentences]
    final = events[-1].model
    assert any(f.kind == "relevance" for f in final.features_)   # the relevance family did answer
    monkeypatch.setattr(relevance_module, "word_relevance", real)
    # the curve on the given relevance equals the model's own on the shown corpus
    np.testing.assert_allclose(events[-1].probabilities, final.boundary_probabilities(corpus), atol=1e-12)


def test_given_relevance_trains_the_same_model_and_is_checked(corpus):
    from segviz import Segmenter
    from segviz.relevance import sentence_relevance

    train, heldout = split_for_training(corpus)
    lms = Segmenter.load(ROOT / "resources" / "sample_model.segviz").lms_
    params = dict(n_features=3, families=("relevance",))
    computed = Segmenter(**params).fit(train, heldout, lms)
    given = Segmenter(**params).fit(train, heldout, lms, relevance=sentence_relevance(lms, train.sentences()),
                                    heldout_relevance=sentence_relevance(lms, heldout.sentences()))
    assert [f.to_dict() for f in given.features_] == [f.to_dict() for f in computed.features_]
    np.testing.assert_allclose(given.lambdas_, computed.lambdas_, atol=1e-12)
    with pytest.raises(SegvizError, match="training corpus's relevance must be"):
        Segmenter(**params).fit(train, heldout, lms, relevance=np.zeros(3))
    with pytest.raises(SegvizError, match="held-out corpus's relevance must be"):
        Segmenter(**params).fit(train, heldout, lms, heldout_relevance=np.full(heldout.n_sentences, np.nan))


def test_split_needs_four_documents(corpus):
    train, heldout = split_for_training(corpus)
    assert len(train) + len(heldout) == len(corpus) and len(heldout) == round(0.2 * len(corpus))
    with pytest.raises(SegvizError, match="at least 4"):
        split_for_training(corpus[:3])


def test_arrays_cross_as_exact_json():
    values = np.random.default_rng(0).random(1001)
    message = json.loads(json.dumps({"a": encode_array(values)}))
    np.testing.assert_array_equal(decode_array(message["a"], shape=(1001,)), values)
    with pytest.raises(SegvizError):
        decode_array(message["a"], shape=(1000,))
    with pytest.raises(SegvizError):
        decode_array({"shape": [3], "f8": "not base64!"})


@pytest.mark.slow
def test_the_job_end_to_end_through_the_child(corpus):
    job = TrainingJob(corpus, [CHOI], n_features=3, lm_params=SMALL_LM)
    events = list(job.events())
    assert job.finished and isinstance(events[-1], TrainingFinished)
    assert job.process_id is not None
    with pytest.raises(ProcessLookupError):
        os.kill(job.process_id, 0)   # the child has exited
    rounds = [e for e in events if isinstance(e, CurveUpdate)]
    assert rounds and job.lms is not None
    for event in rounds:
        # the model rebuilt from JSON in this process gives the child's curve for its round
        np.testing.assert_allclose(event.model.boundary_probabilities(corpus), event.probabilities, atol=1e-9)
        assert len(event.model.features_) == event.added.round
    assert job.model is events[-1].model and job.model.lms_ is job.lms
    relevance = next(e for e in events if isinstance(e, RelevanceReady)).relevance
    from segviz.relevance import sentence_relevance

    np.testing.assert_allclose(relevance, sentence_relevance(job.lms, corpus.sentences()), atol=1e-9)


@pytest.mark.slow
def test_pause_at_a_round_boundary_then_continue_and_cancel(corpus):
    """Not pulling is pausing: the child idles at the boundary; cancel keeps the last round and ends the child."""
    job = TrainingJob(corpus, [CHOI], n_features=50, lm_params=SMALL_LM)
    events = job.events()
    first = next_round(events)
    assert isinstance(first, CurveUpdate) and first.added.round == 1
    pid = job.process_id
    child = job._child
    # paused at the boundary: the child computes nothing -- it sits in a read of its command pipe, waiting to be
    # asked for the next event, and has sent nothing beyond the round it was asked for
    if blocked_reading_commands(pid) is not None:
        wait_for(lambda: blocked_reading_commands(pid), "the child to wait for its next command")
        assert child._replies.empty() and not select.select([child.process.stdout], [], [], 0)[0]
    second = next_round(events)
    assert second.added.round == 2 and job.model is second.model
    # the third round has begun (the child reported it): cancel from another thread; the cancel is in place
    # before the child could be asked for a fourth round, however the two threads are scheduled
    started = next(events)
    assert isinstance(started, Progress), started
    canceller = threading.Thread(target=job.cancel)
    canceller.start()
    rest = []
    for event in events:
        rest.append(event)
        if isinstance(event, CurveUpdate):   # the third round arrived before the cancel landed
            canceller.join()
    canceller.join()
    assert not any(isinstance(e, CurveUpdate) and e.added.round > 3 for e in rest)
    assert job.model is not None and len(job.model.features_) in (2, 3)
    assert job.model.is_fitted and job.model.boundary_probabilities(corpus).shape == (corpus.n_sentences - 1,)
    with pytest.raises(ProcessLookupError):
        os.kill(pid, 0)


@pytest.mark.slow
def test_close_ends_the_child_mid_round(corpus):
    """Close while the child computes a round (it has reported that the round began): the job ends without
    finishing, and the child is gone, ended by a signal.  No clock is read: 50 features take the child minutes, so
    it is still at work when it is told to stop, however busy the machine."""
    job = TrainingJob(corpus, [CHOI], n_features=50, lm_params=SMALL_LM)
    events = job.events()
    assert next_round(events) is not None
    pid = job.process_id
    process = job._child.process
    working = threading.Event()
    done = threading.Event()
    seen = []

    def drain():
        for event in events:
            seen.append(event)
            if isinstance(event, Progress) and event.stage == "inducing features":
                working.set()   # a round has begun in the child
        done.set()

    threading.Thread(target=drain, daemon=True).start()
    assert working.wait(120)
    job.close()
    assert done.wait(120)
    assert not job.finished and not any(isinstance(e, TrainingFinished) for e in seen)
    assert process.wait(120) in (-signal.SIGTERM, -signal.SIGKILL)   # ended by the close, not by itself
    with pytest.raises(ProcessLookupError):
        os.kill(pid, 0)


def test_a_failure_in_the_child_is_one_line(corpus, tmp_path):
    job = TrainingJob(corpus, [CHOI], n_features=3, lm_params=dict(vocab_size=-5))
    with pytest.raises(SegvizError) as info:
        list(job.events())
    assert "\n" not in str(info.value) and "vocab" in str(info.value)


def test_files_changed_since_opening_are_refused(corpus, tmp_path):
    shown = read_corpus(CHOI / "3-11_0.ref")
    job = TrainingJob(corpus, [CHOI / "3-11_0.ref"], n_features=3, lm_params=SMALL_LM)
    with pytest.raises(SegvizError, match="changed since they were opened"):
        list(job.events())
    assert shown.n_sentences != corpus.n_sentences


def test_nothing_in_the_current_directory_shadows_the_child(tmp_path):
    """``python -I`` and a package loaded by location: a hostile numpy/json/segviz in the cwd is never imported."""
    for name in ("numpy.py", "json.py", "scipy.py"):
        (tmp_path / name).write_text("raise SystemExit('shadowed: imported from the current directory')\n")
    (tmp_path / "segviz").mkdir()
    (tmp_path / "segviz" / "__init__.py").write_text("raise SystemExit('shadowed segviz')\n")
    command = child_command()
    assert command[1] == "-I"
    env = dict(os.environ, PYTHONPATH=str(tmp_path))
    proc = subprocess.run(command, cwd=tmp_path, env=env, input=b"not json\n", capture_output=True, timeout=120)
    assert b"shadowed" not in proc.stdout + proc.stderr
    reply = json.loads(proc.stdout.decode().splitlines()[0])
    assert reply["type"] == "error"   # it started, read the bad job line, and said so


@pytest.mark.slow
def test_no_secret_travels_in_argv(corpus):
    """The parent and the child share only their own pipes: nothing to authenticate, nothing in argv."""
    job = TrainingJob(corpus, [CHOI], n_features=1, lm_params=SMALL_LM)
    events = job.events()
    next(events)
    argv = Path(f"/proc/{job.process_id}/cmdline").read_bytes().split(b"\0")
    job.close()
    list(events)
    # exactly the interpreter, -I, -c and the bootstrap that loads this package: no key, no token
    assert [a for a in argv if a] == [os.fsencode(a) for a in child_command()]


@pytest.mark.slow
def test_training_on_given_language_models_skips_their_training(corpus):
    """"Keep the model's LMs": the child loads the parent's models and induces features on their relevance."""
    from segviz import Segmenter

    lms = Segmenter.load(ROOT / "resources" / "sample_model.segviz").lms_
    job = TrainingJob(corpus, [CHOI], n_features=2, lms=lms)
    events = list(job.events())
    stages = [e.stage for e in events if isinstance(e, Progress)]
    assert not any("trigram" in s or "triggers" in s for s in stages)   # no language-model training
    assert job.lms is lms and job.model.lms_ is lms
    relevance = next(e for e in events if isinstance(e, RelevanceReady)).relevance
    from segviz.relevance import sentence_relevance

    np.testing.assert_allclose(relevance, sentence_relevance(lms, corpus.sentences()), atol=1e-9)
    final = events[-1]
    np.testing.assert_allclose(final.probabilities, final.model.boundary_probabilities(corpus), atol=1e-9)
    # the model that crossed from the child decides as the child's: its tuned rule, checked and whole
    assert final.model.rule_.to_dict() == job.model.rule_.to_dict()
    np.testing.assert_array_equal(final.model.decide(final.probabilities), job.model.decide(final.probabilities))


@pytest.mark.slow
def test_peers_in_the_child_equal_the_engine_run(corpus):
    from segviz.service.peers_job import PeersJob
    from segviz.service.tasks import peers_task

    groups = corpus.source_groups()
    job = PeersJob(["texttiling", "c99"], [CHOI], n=corpus.n_sentences)
    events = job.events()
    seen = []
    while True:
        try:
            seen.append(next(events))
        except StopIteration as stop:
            got = stop.value
            break
    assert seen and all(isinstance(e, Progress) for e in seen)
    direct = peers_task(["texttiling", "c99"], corpus.sentences(), groups=groups)
    while True:
        try:
            next(direct)
        except StopIteration as stop:
            want = stop.value
            break
    assert got == want


@pytest.mark.slow
def test_closing_the_peers_job_ends_its_child(tmp_path):
    """Close while the child is computing (it has reported a piece of work): the job ends without a result and
    the child is gone.  No clock is read: the input is long enough (30,000 sentences, 20 pieces of C99) that the
    child is still at work when it is told to stop, however busy the machine."""
    from segviz.service.peers_job import PeersJob

    long = tmp_path / "long.ref"
    long.write_text((CHOI / "3-11_0.ref").read_text() * 500)
    job = PeersJob(["c99"], [long])
    events = job.events()
    working = threading.Event()
    done = threading.Event()
    result = {}

    def drain():
        try:
            while True:
                event = next(events)
                if "peer segmenter" in getattr(event, "stage", "") and event.done >= 1:
                    working.set()
        except StopIteration as stop:
            result["value"] = stop.value
        done.set()

    threading.Thread(target=drain, daemon=True).start()
    assert working.wait(120)
    pid = job._child.pid
    job.close()
    assert done.wait(120)
    assert result["value"] is None
    with pytest.raises(ProcessLookupError):
        os.kill(pid, 0)


def test_a_live_training_stops_the_trigger_models_iis_sooner_unless_told(tmp_path):
    """The window's training fits its language models with a looser IIS stop (LIVE_LM_PARAMS: the first feature
    comes sooner); settings given to the job win, and the job's line to the engine carries them."""
    from segviz.lm.models import LanguageModels
    from segviz.service.training_job import LIVE_LM_PARAMS

    corpus = read_corpus(CHOI)
    assert LIVE_LM_PARAMS["tol"] > LanguageModels().tol
    assert TrainingJob(corpus, [CHOI]).lm_params == LIVE_LM_PARAMS
    assert TrainingJob(corpus, [CHOI], lm_params={"tol": 1e-6, "vocab_size": 500}).lm_params == {
        "tol": 1e-6, "vocab_size": 500}
