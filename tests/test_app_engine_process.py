"""The window's one engine process: every job on a channel of the same process, cancel stops one job and not the
engine, the corpus and the model are read once per session (segviz.service.engine_process, engine_child,
engine_cache)."""
from __future__ import annotations

import time
from pathlib import Path

import pytest

from segviz import read_corpus
from segviz.errors import SegvizError
from segviz.service.apply_job import ApplyJob
from segviz.service.engine_child import Inbox
from segviz.service.engine_process import EngineProcess
from segviz.service.peers_job import PeersJob
from segviz.service.training_job import TrainingFinished, TrainingJob
from tests.drive import events_and_value

ROOT = Path(__file__).resolve().parents[1]
CHOI = ROOT / "sample_corpora" / "choi" / "3-11_0.ref"
MODEL = ROOT / "resources" / "sample_model.segviz"


@pytest.fixture
def engine():
    engine = EngineProcess("a test engine")
    yield engine
    engine.close()


def test_jobs_share_one_engine_process_and_its_reading(engine):
    _, first = events_and_value(ApplyJob(MODEL, [CHOI], engine=engine).events())
    pid = engine.pid
    assert engine.running and pid is not None
    stages, second = events_and_value(ApplyJob(MODEL, [CHOI], engine=engine).events())
    assert engine.pid == pid and engine.running        # the same process served both
    # the second apply took the corpus the first one read: no reading stage reached the window
    stages = [e.stage for e in stages if hasattr(e, "stage")]   # the curve is an event of its own
    assert not [s for s in stages if s.startswith("reading")], stages
    assert first[0] == second[0] == read_corpus(CHOI).n_sentences
    assert (first[1].probabilities == second[1].probabilities).all()


def test_the_engine_outlives_the_thread_of_the_job_that_started_it(engine):
    # Linux ends a child whose parent *thread* exits (PR_SET_PDEATHSIG): the window runs each job on a worker
    # thread of its own, so the engine started by the first job must not end with that job's thread
    import threading

    results = []
    job = ApplyJob(MODEL, [CHOI], engine=engine)
    first = threading.Thread(target=lambda: results.append(events_and_value(job.events())))
    first.start()
    first.join()
    pid = engine.pid
    corpus = read_corpus(ROOT / "sample_corpora" / "choi")
    _, masses = events_and_value(PeersJob(["texttiling"], [ROOT / "sample_corpora" / "choi"],
                                          engine=engine).events())
    assert sum(masses["texttiling"]) == corpus.n_sentences
    assert engine.pid == pid and engine.running and results[0][1] is not None


@pytest.mark.slow
def test_the_peers_and_a_training_run_on_the_same_engine(engine):
    corpus = read_corpus(ROOT / "sample_corpora" / "choi")
    _, masses = events_and_value(PeersJob(["texttiling"], [ROOT / "sample_corpora" / "choi"],
                                          engine=engine).events())
    assert sum(masses["texttiling"]) == corpus.n_sentences
    pid = engine.pid
    job = TrainingJob(corpus, [ROOT / "sample_corpora" / "choi"], n_features=2, engine=engine)
    events = list(job.events())
    assert isinstance(events[-1], TrainingFinished) and len(job.model.features_) >= 1
    assert engine.pid == pid and engine.running


def test_a_cancelled_job_leaves_the_engine_to_the_next(engine):
    corpus = read_corpus(ROOT / "sample_corpora" / "choi")
    job = TrainingJob(corpus, [ROOT / "sample_corpora" / "choi"], n_features=5, engine=engine)
    events = job.events()
    next(events)                 # the training runs on the engine
    pid = engine.pid
    job.close()
    assert list(events) == []    # the job's events end at once
    assert engine.running and engine.pid == pid
    _, result = events_and_value(ApplyJob(MODEL, [CHOI], engine=engine).events())
    assert result[0] == read_corpus(CHOI).n_sentences


def test_a_job_on_its_own_ends_its_private_engine():
    job = ApplyJob(MODEL, [CHOI])
    events_and_value(job.events())
    process = job._child.process
    assert process.poll() is not None   # ended with the job


def test_a_closed_engine_fails_no_later_job_silently(engine):
    events_and_value(ApplyJob(MODEL, [CHOI], engine=engine).events())
    engine.close()
    _, result = events_and_value(ApplyJob(MODEL, [CHOI], engine=engine).events())
    assert result is None   # refused (the window makes a new engine instead)


def test_an_engine_that_dies_mid_job_is_one_error(engine):
    corpus = read_corpus(ROOT / "sample_corpora" / "choi")
    job = TrainingJob(corpus, [ROOT / "sample_corpora" / "choi"], n_features=5, engine=engine)
    events = job.events()
    next(events)
    engine._child.process.kill()
    with pytest.raises(SegvizError, match="ended unexpectedly"):
        for _ in events:
            pass


def test_the_inbox_gives_lines_until_closed_and_nothing_after_a_cancel():
    inbox = Inbox()
    inbox.feed(b"a\nb")
    assert inbox.readline() == b"a\n"
    inbox.feed(b"c\n")
    assert inbox.readline() == b"bc\n"
    inbox.feed(b"tail")
    inbox.close()
    assert inbox.readline() == b"tail" and inbox.readline() == b""
    other = Inbox()
    other.feed(b"x\ny\n")
    other.cancel()
    assert other.cancelled and other.readline() == b""


def test_a_malformed_frame_is_refused_by_the_engine(engine):
    channel = engine.channel("a test job", lambda: False)
    assert channel.start()
    engine._write({"id": "one", "size": 1}, b"\n")
    deadline = time.monotonic() + 120   # only so that a broken engine cannot hang the suite
    with pytest.raises(SegvizError, match="refused"):
        while time.monotonic() < deadline:
            channel.receive()


def _gone(pid: int) -> bool:
    """The process ``pid`` has ended (and been reaped, or is a zombie: it runs nothing)."""
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii") as f:
            return f.read().rsplit(")", 1)[1].split()[0] in ("Z", "X")
    except OSError:
        return True


@pytest.mark.skipif(not Path("/proc/self").is_dir(), reason="needs /proc")
def test_an_engine_closed_without_waiting_ends_and_is_waited_for_elsewhere(engine, tmp_path):
    """The window's close tells the engine to end and returns (the kernel freeing a large engine held the window a
    good part of a second); wait_closed waits for the end, after which neither the process nor its directory is
    left."""
    events_and_value(PeersJob(["texttiling"], [CHOI], engine=engine).events())
    pid, workdir = engine.pid, engine.workdir
    assert pid is not None and Path(workdir).is_dir()
    engine.close(wait=False)
    assert engine.closed
    assert engine.wait_closed(30)
    assert _gone(pid) and not Path(workdir).exists()


@pytest.mark.skipif(not Path("/proc/self").is_dir(), reason="needs /proc")
def test_a_forked_worker_ends_with_the_thread_that_forked_it():
    """A forked worker of an engine job ends when the job's thread does, however that thread ends (the engine
    killed by the window's close ends every thread at once): it never outlives its engine, holding its pipes."""
    import subprocess
    import sys

    script = (
        "import threading, time\n"
        "from segviz.forking import mark_quiet\n"
        "from segviz.service.forked_worker import ForkedWorker\n"
        "mark_quiet()   # this thread only waits (as the engine's command reader does)\n"
        "pids = []\n"
        "def job():\n"
        "    worker = ForkedWorker(lambda send: time.sleep(600))\n"
        "    pids.append(worker.pid)\n"
        "thread = threading.Thread(target=job)\n"
        "thread.start(); thread.join()\n"
        "print(pids[0], flush=True)\n"
    )
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120, cwd=ROOT)
    worker = int(out.stdout.split()[0])
    deadline = time.monotonic() + 60
    while not _gone(worker) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert _gone(worker)
