"""``segviz reproduce [reuters|choi|choi-disjoint|all] [--json] [--out DIR] [--data DIR]``.

Runs the protocols of docs/protocols.md end to end (LMs, candidates, induction, held-out tuning, test) and prints
the paper's Tables 5/6 layout plus the first induced features (its Figures 5/6 as text).
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import Any, Generator

import numpy as np

from ..corpus import Corpus, read_corpus
from ..errors import SegvizError
from ..events import Progress
from ..metrics import default_mu, score_row
from ..persist import atomic_write_json, atomic_write_text
from ..evaluation import average_rows, model_rows, table_payload
from ..lm.models import LanguageModels
from .common import feature_lines, load_language_models, print_json, render_table, run_with_progress
from .train import add_training_arguments

PROJECT_ROOT = Path(__file__).resolve().parents[2]
DEFAULT_DATA = PROJECT_ROOT.parent / "shared" / "corpora"

# The Reuters protocol (docs/protocols.md): LM text, boundary-model training, held-out tuning, test.
REUTERS_LM = [f"reut2-{i:03d}.sgm" for i in range(0, 14)]
REUTERS_TRAIN = [f"reut2-{i:03d}.sgm" for i in (14, 15, 16)]
REUTERS_HELD = ["reut2-017.sgm"]
REUTERS_TEST = [f"reut2-{i:03d}.sgm" for i in (18, 19, 20, 21)]


def _need(path: Path) -> Path:
    if not path.exists():
        raise SegvizError(f"{path}: missing (pass --data DIR pointing at the shared corpora)")
    return path


def _lms_for(name: str, out: Path | None, sentences_fn, lm_params: dict, lm_dir: str | None):
    """Load LMs from --lm, from a previous run's cache in --out, or train them (and cache them in --out)."""
    if lm_dir:
        return (yield from _nothing((load_language_models(lm_dir), str(Path(lm_dir).resolve()))))
    cache = out / f"lm-{name}" if out else None
    if cache is not None and (cache / "models.json").is_file():
        return (yield from _nothing((load_language_models(cache), str(cache.resolve()))))
    lms = LanguageModels(**lm_params)
    yield from lms.fit_iter(sentences_fn())
    if cache is not None:
        lms.save(cache)
        return lms, str(cache.resolve())
    return lms, None


def _nothing(value):
    return value
    yield  # pragma: no cover - makes this a generator


def reproduce_reuters(data: Path, *, out: Path | None = None, n_features: int = 100, vocabulary=30000,
                      lm_dir: str | None = None, lm_params: dict | None = None, stopping: str = "last",
                      use_relevance: bool = True, cohesion: bool = True, min_support: int = 1,
                      templates=None, peer_evidence: bool | None = None) -> Generator[Any, None, dict]:
    """The Reuters protocol (docs/protocols.md): LMs 000-013, train 014-016, tune 017, test 018-021.

    ``peer_evidence`` (None = the protocol default, False here): see docs/reproduction.md for the measurement."""
    if peer_evidence is None:
        peer_evidence = False
    from ..segmenter import Segmenter

    root = _need(data / "reuters21578")
    t0 = time.perf_counter()
    yield Progress("reading Reuters", 0, 1)
    train = read_corpus([_need(root / f) for f in REUTERS_TRAIN], name="reut2-014..016")
    held = read_corpus([_need(root / f) for f in REUTERS_HELD], name="reut2-017")
    test = read_corpus([_need(root / f) for f in REUTERS_TEST], name="reut2-018..021")
    yield Progress("reading Reuters", 1, 1)
    lms = lm_path = None
    if use_relevance:
        lms, lm_path = yield from _lms_for("reuters", out, lambda: read_corpus([_need(root / f) for f in REUTERS_LM]).sentences(),
                                  lm_params or {}, lm_dir)
    t1 = time.perf_counter()
    seg = Segmenter(n_features=n_features, vocabulary=vocabulary, use_relevance=use_relevance, stopping=stopping,
                    cohesion=cohesion, min_support=min_support, peer_evidence=peer_evidence,
                    **({"templates": templates} if templates else {}))
    yield from seg.fit_iter(train, held, lms)
    seg.lm_dir_ = lm_path  # the model JSON refers to the cached LMs instead of saving a copy
    t2 = time.perf_counter()
    yield Progress("segmenting test", 0, 1)
    rows = model_rows(seg, test)
    stop = _heldout_stop(seg, held)
    if stop is not None:
        rows = {"model": rows.pop("model"),
                f"model@{len(stop.features_)} (held-out stop)": score_row(test.masses(), stop.predict(test),
                                                                          mu=default_mu(test.masses())),
                **rows}
    yield Progress("segmenting test", 1, 1)
    if out is not None:
        seg.save(out / "reuters-model.json")
        if stop is not None:
            stop.lm_dir_ = lm_path
            stop.save(out / "reuters-model-heldout-stop.json")
    return {
        "protocol": "reuters",
        "train": train.name, "heldout": held.name, "test": test.name,
        "train_words": train.n_tokens, "test_sentences": test.n_sentences,
        "table": table_payload(test, rows, evaluation="stream"),
        **_model_summary(seg, t0, t1, t2),
    }


def _model_summary(seg, t0: float, t1: float, t2: float) -> dict:
    """The part of a protocol's result that describes the trained model and the time it took (both protocols)."""
    return {
        "alpha": seg.alpha_, "epsilon": seg.epsilon_, "mu_train": seg.mu_,
        "features": [{"feature": f.description, "short": f.short, "weight": float(w)}
                     for f, w in zip(seg.features_, seg.weights_)],
        "heldout_p_mu_by_round": [h.get("heldout_p_mu") for h in seg.history_],
        "info": seg.info_,
        "seconds": {"language_models": round(t1 - t0, 1), "segmenter": round(t2 - t1, 1),
                    "total": round(time.perf_counter() - t0, 1)},
        "_segmenter": seg,
    }


def _heldout_stop(seg, held):
    """The model truncated at its best held-out round (the protocol's stopping rule), or None if that is the last."""
    scores = [h.get("heldout_p_mu") for h in seg.history_]
    if not scores or any(x is None for x in scores):
        return None
    best = int(np.argmax(scores)) + 1
    if best == len(seg.features_):
        return None
    return seg.truncated(best, heldout_corpus=held)


CHOI_TEST_SETS = ("3-11", "3-5", "6-8", "9-11")


def _choi_lm_sentences(root: Path, exclude: list[Corpus]) -> list:
    """LM text for Choi: sets 3 and 4, minus every sentence that also occurs in the tuning or test sets.

    Choi documents are excerpts of the same Brown texts, so an excerpt in set 3 or 4 can repeat sentences of a
    test document; dropping every sentence seen in sets 1 and 2 guarantees the LMs never saw test text.
    """
    banned = {s for c in exclude for s in c.sentences()}
    lm_corpus = read_corpus([str(root / "3" / "*" / "*.ref"), str(root / "4" / "*" / "*.ref")], kind="choi")
    return [s for s in lm_corpus.sentences() if s not in banned]


def _choi_disjoint_training(root: Path, exclude: list[Corpus]) -> Corpus:
    """Set 4 with every segment that shares a sentence with sets 1 or 2 removed (source-disjoint training).

    Sets 1-3 are all cut from the same Brown sections: every test segment's first sentence is also a segment
    start in set 3, so a model trained there can memorise the openings.  Set 4 also draws on other sections;
    what survives the filter shares no sentence with tuning or test data.
    """

    banned = {s for c in exclude for s in c.sentences()}
    src = read_corpus(str(root / "4" / "*" / "*.ref"), kind="choi")
    docs, files = [], []
    for d, f in zip(src.documents, src.files):
        if not any(s in banned for s in d.sentences):
            docs.append(d)
            files.append(f)
    return Corpus(docs, name="choi 4/* (source-disjoint segments)", files=files)


def reproduce_choi(data: Path, *, out: Path | None = None, n_features: int = 100, vocabulary=30000,
                   lm_dir: str | None = None, lm_params: dict | None = None, stopping: str = "last",
                   use_relevance: bool = True, cohesion: bool = True, train_on: str = "3-11",
                   min_support: int = 1, templates=None, peer_evidence: bool | None = None
                   ) -> Generator[Any, None, dict]:
    """The Choi protocol: train on 3/3-11 (or, with ``train_on="disjoint"``, on the source-disjoint part of
    set 4), tune on 1/3-11, test on 2/{3-11,3-5,6-8,9-11} file by file.

    ``peer_evidence`` (None = the protocol default: on for ``train_on="disjoint"``, off for 3/3-11): the
    C99/TextTiling evidence questions, run per Choi file.  On the source-disjoint protocol they take the
    held-out-stop P_k on 2/3-11 from 16.3% to 12.7%; on 3/3-11, where the model memorises segment openings,
    they change nothing that matters (docs/reproduction.md)."""
    if peer_evidence is None:
        peer_evidence = train_on == "disjoint"
    from ..segmenter import Segmenter

    root = _need(data / "choi2000")
    t0 = time.perf_counter()
    yield Progress("reading Choi", 0, 1)
    held = read_corpus(_need(root / "1" / "3-11"), kind="choi", name="choi 1/3-11")
    tests = {s: read_corpus(_need(root / "2" / s), kind="choi", name=f"choi 2/{s}") for s in CHOI_TEST_SETS}
    excl = [read_corpus(str(root / "1" / "*" / "*.ref"), kind="choi"),
            read_corpus(str(root / "2" / "*" / "*.ref"), kind="choi")]
    if train_on == "disjoint":
        train = _choi_disjoint_training(root, excl)
    else:
        train = read_corpus(_need(root / "3" / "3-11"), kind="choi", name="choi 3/3-11")
    yield Progress("reading Choi", 1, 1)
    lms = lm_path = None
    if use_relevance:
        lms, lm_path = yield from _lms_for("choi", out, lambda: _choi_lm_sentences(root, excl), lm_params or {}, lm_dir)
    t1 = time.perf_counter()
    seg = Segmenter(n_features=n_features, vocabulary=vocabulary, use_relevance=use_relevance, stopping=stopping,
                    cohesion=cohesion, min_support=min_support, peer_evidence=peer_evidence,
                    **({"templates": templates} if templates else {}))
    yield from seg.fit_iter(train, held, lms)
    seg.lm_dir_ = lm_path  # the model JSON refers to the cached LMs instead of saving a copy
    t2 = time.perf_counter()
    tables = {}
    stop = _heldout_stop(seg, held)
    for i, (name, test) in enumerate(tests.items()):
        yield Progress("segmenting Choi test sets", i, len(tests))
        files = [c for c in test.by_file() if c.n_sentences > 2]
        per_file = [model_rows(seg, c) for c in files]
        if stop is not None:
            for c, r in zip(files, per_file):
                r[f"model@{len(stop.features_)} (held-out stop)"] = score_row(c.masses(), stop.predict(c),
                                                                              mu=default_mu(c.masses()))
        rows = average_rows(per_file)
        if stop is not None:  # table order: the model rows first
            key = f"model@{len(stop.features_)} (held-out stop)"
            rows = {"model": rows.pop("model"), key: rows.pop(key), **rows}
        tables[name] = table_payload(test, rows, evaluation=f"mean over {len(files)} files")
    yield Progress("segmenting Choi test sets", len(tests), len(tests))
    if out is not None:
        name = "choi-model" if train_on != "disjoint" else "choi-disjoint-model"
        seg.save(out / f"{name}.json")
        if stop is not None:   # the protocol's reported row, ready for `segviz segment` / the app
            stop.lm_dir_ = lm_path
            stop.save(out / f"{name}-heldout-stop.json")
    return {
        "protocol": "choi" if train_on != "disjoint" else "choi-disjoint",
        "train": train.name, "heldout": held.name,
        "tables": tables,
        **_model_summary(seg, t0, t1, t2),
    }


def _render_result(res: dict) -> str:
    seg = res["_segmenter"]
    lines = []
    if res["protocol"] == "reuters":
        payload = res["table"]
        rows = {k: v for k, v in payload.items() if isinstance(v, dict)}
        lines.append(f"== Reuters (the paper's Table 5 layout): train {res['train']}, tune {res['heldout']}")
        lines.append(render_table(payload, rows))
    else:
        lines.append(f"== {res['protocol']} (train {res['train']}, tune {res['heldout']}); per-file means, "
                     f"P_k as in the literature")
        for name, payload in res["tables"].items():
            rows = {k: v for k, v in payload.items() if isinstance(v, dict)}
            lines.append(render_table(payload, rows))
    lines.append(f"alpha = {res['alpha']:g}, epsilon = {res['epsilon']}, "
                 f"{res['info'].get('candidates')} candidates, {len(seg.features_)} features, "
                 f"induction {res['info'].get('induction_seconds')} s, total {res['seconds']['total']} s")
    lines.append("first features induced (the paper's Figures 5/6 as text):")
    lines.extend(feature_lines(seg, limit=20))
    return "\n".join(lines)


def _cmd_reproduce(args: argparse.Namespace) -> int:
    data = Path(args.data) if args.data else DEFAULT_DATA
    if not data.is_dir():
        raise SegvizError(f"{data}: data directory not found (pass --data DIR)")
    out = Path(args.out) if args.out else None
    if out is not None:
        out.mkdir(parents=True, exist_ok=True)
    which = {"all": ["reuters", "choi", "choi-disjoint"], "choi": ["choi", "choi-disjoint"]}.get(
        args.which, [args.which])
    if args.lm and args.which == "all":
        raise SegvizError("--lm names one set of language models; use it with `reproduce reuters` or "
                          "`reproduce choi`, not `all` (or put them in --out DIR as lm-reuters/ and lm-choi/)")
    lm_params = {"vocab_size": args.lm_vocab}
    results = {}
    for name in which:
        kw = dict(out=out, n_features=args.features, vocabulary=args.vocabulary, lm_dir=args.lm,
                  lm_params=lm_params, stopping=args.stopping, use_relevance=not args.no_relevance,
                  cohesion=args.cohesion, min_support=args.min_support, templates=args.templates,
                  peer_evidence=args.peer_evidence)
        if name == "reuters":
            gen = reproduce_reuters(data, **kw)
        else:
            gen = reproduce_choi(data, train_on="disjoint" if name == "choi-disjoint" else "3-11", **kw)
        res = run_with_progress(gen, quiet=args.json and not sys.stderr.isatty())
        results[name] = res
        if not args.json:
            print(_render_result(res))
            print()
    clean = {k: {kk: vv for kk, vv in v.items() if not kk.startswith("_")} for k, v in results.items()}
    if out is not None:
        atomic_write_json(out / "reproduce.json", clean)
        atomic_write_text(out / "reproduce.txt", "\n\n".join(_render_result(r) for r in results.values()) + "\n")
    if args.json:
        print_json(clean)
    return 0


# -------------------------------------------------------------------------------------------- register


def register(subparsers) -> None:
    r = subparsers.add_parser(
        "reproduce", help="run the documented Reuters / Choi protocols end to end (docs/protocols.md)",
        description="Train LMs and a segmenter on the documented splits and print the paper's Tables 5/6 layout "
                    "plus the first induced features (Figures 5/6 as text).")
    r.add_argument("which", nargs="?", choices=("reuters", "choi", "choi-disjoint", "all"), default="all",
                   help="choi runs both Choi variants (the literature's 3/3-11 training and source-disjoint set 4)")
    r.add_argument("--json", action="store_true", help="print one JSON object instead of tables")
    r.add_argument("--out", metavar="DIR", help="write models, cached LMs, reproduce.json and reproduce.txt here")
    r.add_argument("--data", metavar="DIR", help=f"corpora directory (default {DEFAULT_DATA})")
    r.add_argument("--lm", metavar="LM_DIR", help="use these language models instead of training them")
    add_training_arguments(r)
    r.set_defaults(func=_cmd_reproduce)
