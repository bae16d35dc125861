"""The app's one door into the engine.

Every engine call the window makes goes through this module, so the views never reach into engine internals and
the app keeps working (with less to show) while parts of the engine are missing: without a segmenter the window
still shows the corpus, the reference ticks and the paper's baselines (Section 7, Tables 5-6).  Nothing here
recomputes what the engine owns -- decoding, metrics, baselines, relevance and peers are imported from their
modules; this file only adapts shapes (boundary positions <-> masses) and reports what is available.
"""
from __future__ import annotations

import importlib
import os
from collections.abc import Generator, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from ..errors import SegvizError
from ..events import Progress


def _optional(module: str):
    """Import an engine module that may not exist yet (the engine grows in parallel with the app)."""
    try:
        return importlib.import_module(module)
    except ImportError:
        return None


# -- corpus ---------------------------------------------------------------------------------------------------

def read_corpus(paths: str | Path | Sequence[str | Path]):
    """Read a corpus, turning every failure (missing, unreadable, binary, empty, wrong format) into SegvizError."""
    from ..corpus import read_corpus as _read

    try:
        corpus = _read(paths)
    except SegvizError:
        raise
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        raise SegvizError(f"{paths}: cannot read corpus ({exc})") from None
    if len(corpus) == 0 or corpus.n_sentences < 2:
        raise SegvizError(f"{paths}: no sentences found (empty or not a corpus file)")
    return corpus


def boundaries_to_masses(boundaries, n: int) -> tuple[int, ...]:
    from ..segmentation import boundaries_to_masses as _b2m

    return tuple(int(m) for m in _b2m(np.asarray(boundaries, dtype=np.int64), n))


def masses_to_boundaries(masses) -> np.ndarray:
    from ..segmentation import masses_to_boundaries as _m2b

    return np.asarray(_m2b(tuple(masses)), dtype=np.int64)


# -- decoding and scoring (Section 7: threshold alpha, minimum separation epsilon) ----------------------------

def decode_boundaries(probs: np.ndarray, alpha: float, epsilon: int) -> np.ndarray:
    """Boundary positions b (a boundary lies before sentence b) chosen by the engine's decoder."""
    decode = _optional("segviz.decode")
    if decode is not None:
        return np.asarray(decode.decode(probs, alpha, epsilon), dtype=np.int64)
    # The segmenter issue owns decoding; until segviz.decode lands the app shows the plain threshold rule of
    # Section 7 (greedy left to right, at least epsilon sentences apart) so the window stays usable.
    positions = np.flatnonzero(np.asarray(probs) > alpha) + 1
    kept: list[int] = []
    for b in positions:
        if not kept or b - kept[-1] >= max(int(epsilon), 1):
            kept.append(int(b))
    return np.asarray(kept, dtype=np.int64)


def has_decoder() -> bool:
    return _optional("segviz.decode") is not None


def tune(probs: np.ndarray, ref_masses: Sequence[int]) -> tuple[float, int, float]:
    """(alpha, epsilon, p_mu) maximising P_mu on the given reference (the paper tunes on held-out data)."""
    decode = _optional("segviz.decode")
    if decode is None or not hasattr(decode, "tune"):
        raise SegvizError("tuning needs segviz.decode.tune, which this build does not have yet")
    alpha, epsilon, pmu = decode.tune(np.asarray(probs), tuple(ref_masses))[:3]
    return float(alpha), int(epsilon), float(pmu)


def score(ref_masses: Sequence[int], hyp_masses: Sequence[int], mu: float | None = None) -> dict[str, float]:
    """One metrics row (P_mu, P_k, WindowDiff, precision, recall, F, segment count) from segviz.metrics."""
    from ..metrics import score_row

    return dict(score_row(tuple(ref_masses), tuple(hyp_masses), mu=mu))


def baselines(ref_masses: Sequence[int], *, mu: float | None = None, seed: int = 0) -> dict[str, tuple[int, ...]]:
    """The paper's four default segmenters (random, all, none, even) as masses."""
    from ..baselines import BASELINES, baseline_masses

    return {name: tuple(baseline_masses(name, tuple(ref_masses), mu=mu, seed=seed)) for name in BASELINES}


# -- peers (issue 6) ------------------------------------------------------------------------------------------

def peer_names() -> tuple[str, ...]:
    peers = _optional("segviz.peers")
    if peers is None or not hasattr(peers, "PEERS"):
        return ()
    return tuple(peers.PEERS)


def peer_masses(name: str, sentences: Sequence[Sequence[str]], *, chunk: int = 1500,
                groups: Sequence[int] | None = None) -> tuple[int, ...]:
    """Masses of peer segmenter ``name`` over the whole stream.

    ``groups`` (sentence counts of the source files, e.g. one per Choi file) makes each file its own input, as
    the literature evaluates peers; otherwise, and for any group longer than ``chunk``, the stream is cut into
    pieces of at most ``chunk`` sentences (C99 builds an n x n similarity matrix) whose edges act as boundaries.
    """
    from ..peers import segment_with

    n = len(sentences)
    pieces: list[tuple[int, int]] = []
    start = 0
    for size in (groups if groups is not None else [n]):
        for lo in range(start, start + int(size), chunk):
            pieces.append((lo, min(lo + chunk, start + int(size))))
        start += int(size)
    if start != n:
        raise SegvizError(f"file groups cover {start} sentences, the stream has {n}")
    masses: list[int] = []
    for lo, hi in pieces:
        part = sentences[lo:hi]
        if len(part) < 3:
            masses.append(len(part))   # too short for either peer to say anything: one segment
            continue
        masses.extend(int(m) for m in segment_with(name, part))
    if sum(masses) != n:
        raise SegvizError(f"peer {name} returned masses summing to {sum(masses)}, not {n}")
    return tuple(masses)


# -- language models, relevance -------------------------------------------------------------------------------

def sentence_relevance(lms, sentences) -> np.ndarray | None:
    rel = _optional("segviz.relevance")
    if rel is None or lms is None:
        return None
    return np.asarray(rel.sentence_relevance(lms, sentences), dtype=np.float64)


def relevance_profile(lms, corpus, *, before: int = 10, after: int = 30) -> dict[str, np.ndarray] | None:
    rel = _optional("segviz.relevance")
    if rel is None or lms is None:
        return None
    return rel.relevance_profile(lms, corpus, before=before, after=after)


# -- segmenter ------------------------------------------------------------------------------------------------

def has_segmenter() -> bool:
    return _optional("segviz.segmenter") is not None and _optional("segviz.lm.models") is not None


def load_model(path: str | Path):
    """Load a saved segmenter; corrupt files, foreign files and missing language models raise SegvizError."""
    seg = _optional("segviz.segmenter")
    if seg is None:
        raise SegvizError("this build has no segmenter yet (segviz.segmenter is missing)")
    try:
        return seg.Segmenter.load(path)
    except SegvizError:
        raise
    except FileNotFoundError as exc:
        raise SegvizError(f"{path}: missing file {exc.filename or ''}".rstrip()) from None
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise SegvizError(f"{path}: not a usable segviz model ({exc.__class__.__name__}: {exc})") from None


def segmenter_lms(segmenter) -> Any:
    """The language models a segmenter was built with (for the relevance trace), if it exposes them."""
    for name in ("lms_", "language_models_", "lms"):
        lms = getattr(segmenter, name, None)
        if lms is not None:
            return lms
    return None


def training_pipeline(train_corpus, heldout_corpus, *, lms=None, n_features: int = 30, vocab_size: int = 20000,
                      **params) -> Generator[Any, None, Any]:
    """LM training (unless ``lms`` is given) followed by feature induction, as one generator of engine events.

    Returns the trained Segmenter.  Each yield is a point where the app's worker can pause or cancel.
    """
    from ..lm.models import LanguageModels
    from ..segmenter import Segmenter

    if lms is None:
        lms = LanguageModels(vocab_size=vocab_size)
        yield from lms.fit_iter(train_corpus.sentences())
    segmenter = Segmenter(n_features=n_features, **params)
    yield from segmenter.fit_iter(train_corpus, heldout_corpus, lms)
    return segmenter


# -- the app's training session -------------------------------------------------------------------------------

from dataclasses import dataclass  # noqa: E402 - grouped with the code that uses it


@dataclass(frozen=True)
class RelevanceReady:
    """The language models are trained: per-sentence relevance and its profile for the shown corpus."""

    relevance: np.ndarray | None
    profile: dict | None


@dataclass(frozen=True)
class CurveUpdate:
    """One induction round applied to the shown corpus: the engine's FeatureAdded and the new curve."""

    added: Any                 # segviz.induction.FeatureAdded
    probabilities: np.ndarray  # q(yes) for positions 1..n-1 of the shown corpus
    alpha: float | None        # the round's held-out best alpha/epsilon (None without held-out data)
    epsilon: int | None


def is_feature_event(event) -> bool:
    """The step unit of the feature panel: one induced feature, already applied to the curve."""
    return isinstance(event, CurveUpdate)


def split_for_training(corpus, heldout_fraction: float = 0.2):
    """First documents for training, the last ``heldout_fraction`` held out (for P_mu per round and tuning)."""
    if len(corpus) < 4:
        raise SegvizError(f"training needs at least 4 documents (3 to train on, 1 held out); "
                          f"this corpus has {len(corpus)}")
    k = max(1, int(round(heldout_fraction * len(corpus))))
    return corpus[:-k], corpus[-k:]


def training_session(corpus, *, n_features: int = 30, heldout_fraction: float = 0.2, lms=None,
                     lm_params: dict | None = None, **params):
    """A factory for the app's training generator on ``corpus`` (validated now, run later on the worker).

    The generator forwards the engine's Progress events, yields :class:`RelevanceReady` once the language models
    exist, and turns every ``FeatureAdded`` into a :class:`CurveUpdate` with the boundary probabilities of the
    whole shown corpus under the engine's model of that round (``BoundaryModel.predict_proba`` on the induced
    columns, evaluated once each and kept, so a round costs one sparse column and one mat-vec).  Returns the
    tuned Segmenter (:meth:`InductionSession.segmenter`).  The session object is published on the factory as
    ``factory.session`` so a stopped run can still hand over the model of its last round.
    """
    if not has_segmenter():
        raise SegvizError("this build has no segmenter yet (segviz.segmenter is missing)")
    train, heldout = split_for_training(corpus, heldout_fraction)

    def run():
        from ..induction import FeatureAdded
        from ..lm.models import LanguageModels
        from ..segmenter import Segmenter

        sentences = corpus.sentences()
        models = lms
        if models is None:
            yield Progress("training language models", 0, 0)
            models = LanguageModels(**(lm_params or {}))
            yield from models.fit_iter(train.sentences())
        yield Progress("relevance of the shown corpus", 0, 0)
        rel = sentence_relevance(models, sentences)
        profile = relevance_profile(models, corpus)
        yield RelevanceReady(rel, profile)
        session = Segmenter(n_features=n_features, **params)
        run.session = session
        for event in session.fit_iter(train, heldout, models):
            if isinstance(event, FeatureAdded):
                # the estimator caches its features on the shown corpus: a round costs one new column
                probs = session.boundary_probabilities(corpus)
                yield CurveUpdate(event, probs, event.heldout_alpha, event.heldout_epsilon)
            else:
                yield event
        return session

    run.session = None
    return run


# -- training in a child process ------------------------------------------------------------------------------
#
# A worker *thread* shares the GIL with the GUI: scipy.sparse products and numpy reductions that run for
# 100-500 ms without releasing it froze the window that long (benchmarks/bench_app.py).  So the app runs the
# training generator in a child interpreter and drives it in lock-step over a local socket: the parent asks for
# the next event, the child computes it and sends it back.  While the GUI shows an event (or is paused on
# Step) the child idles, so Step/Pause keep their exact meaning; Cancel terminates the child, which takes
# effect immediately, even in the middle of a round.  (Pickle is only used on this private socket between two
# segviz processes; nothing pickled is ever written to disk.)

def serve_training(conn) -> None:
    """Child side: receive (corpus, kwargs), then answer "next" / "snapshot" / "stop" until done."""
    import traceback

    try:
        corpus, kwargs = conn.recv()
        factory = training_session(corpus, **kwargs)
        gen = factory()
        while True:
            command = conn.recv()
            if command == "stop":
                return
            if command == "snapshot":
                try:
                    session = factory.session
                    model = session if session is not None and session.is_fitted else None
                except SegvizError:
                    model = None   # stopped before the first feature: nothing to keep
                conn.send(("snapshot", model))
                continue
            try:
                event = next(gen)
            except StopIteration as stop:
                conn.send(("return", stop.value))
                return
            conn.send(("event", event))
    except SegvizError as exc:
        conn.send(("error", str(exc)))
    except (EOFError, BrokenPipeError, ConnectionResetError, KeyboardInterrupt):
        return
    except Exception as exc:
        traceback.print_exc()
        conn.send(("error", f"{exc.__class__.__name__}: {exc}"))


def training_process(corpus, **kwargs):
    """Like :func:`training_session`, but the work runs in a spawned child process (see above).

    The returned factory has ``should_stop`` (set by the caller to a callable polled while the child computes,
    so a cancel interrupts a round) and, after a stop between events, ``partial``: the model of the last
    finished round.
    """
    if not has_segmenter():
        raise SegvizError("this build has no segmenter yet (segviz.segmenter is missing)")
    split_for_training(corpus, kwargs.get("heldout_fraction", 0.2))   # validate now, in the GUI thread

    def run():
        import select
        import subprocess
        import sys
        from multiprocessing.connection import Client

        # A fresh interpreter (not multiprocessing's spawn, which would re-import the app's __main__): it
        # listens on a private socket, prints the address, and serves one training session.
        authkey = os.urandom(16)
        # one BLAS/numba thread: on a small machine a child using every core starves the GUI process
        env = dict(os.environ, OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1", MKL_NUM_THREADS="1",
                   NUMBA_NUM_THREADS="1")
        # the child must import this very segviz, installed or not
        package_root = str(Path(__file__).resolve().parents[2])
        env["PYTHONPATH"] = os.pathsep.join(p for p in (package_root, env.get("PYTHONPATH", "")) if p)
        proc = subprocess.Popen([sys.executable, "-m", "segviz.app.train_child", authkey.hex()],
                                stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, text=True, env=env)
        conn = None
        finished = False
        try:
            # Wait for the child's address without blocking uninterruptibly: a cancel (or a child that dies while
            # importing) must end this worker, not leave it stuck in readline().
            while not select.select([proc.stdout], [], [], 0.05)[0]:
                if run.should_stop():
                    return None
                if proc.poll() is not None:
                    break
            address = proc.stdout.readline().strip()
            if not address:
                raise SegvizError(f"the training process did not start (exit code {proc.wait()})")
            conn = Client(address, authkey=authkey)
            conn.send((corpus, kwargs))
            while True:
                conn.send("next")
                while not conn.poll(0.05):
                    if run.should_stop():
                        return None
                    if proc.poll() is not None and not conn.poll(0):
                        raise SegvizError(f"the training process ended unexpectedly (exit code {proc.returncode})")
                kind, payload = conn.recv()
                if kind == "event":
                    try:
                        yield payload
                    except GeneratorExit:
                        # stopped between events: the child is idle, so it can hand over the last round's model
                        conn.send("snapshot")
                        if conn.poll(10):
                            run.partial = conn.recv()[1]
                        raise
                elif kind == "return":
                    finished = True
                    return payload
                else:
                    raise SegvizError(payload)
        finally:
            if conn is not None:
                try:
                    if not finished:
                        conn.send("stop")
                except OSError:
                    pass
            try:
                proc.wait(0.5)
            except subprocess.TimeoutExpired:
                proc.terminate()   # a cancel in the middle of a round: nothing to save, stop at once
                proc.wait(5)
            if conn is not None:
                conn.close()
            proc.stdout.close()

    run.should_stop = lambda: False
    run.partial = None
    return run


def feature_positions(feature, corpus, relevance, groups=None) -> np.ndarray:
    """Positions b where ``feature`` fires on the stream (for highlighting a row of the feature table).

    ``corpus``: a :class:`~segviz.corpus.Corpus` (its texts, source files and paragraphs answer the questions as
    the model does), or a list of tokenised sentences with ``groups``, the source-group sizes
    (:meth:`~segviz.corpus.Corpus.source_groups`)."""
    from ..corpus import Corpus
    from ..features import FeatureContext, evaluate_features

    context = (FeatureContext.from_corpus(corpus, relevance=relevance) if isinstance(corpus, Corpus)
               else FeatureContext(corpus, relevance=relevance, groups=groups))
    column = evaluate_features([feature], context).tocsc()
    return np.asarray(column.indices, dtype=np.int64) + 1
