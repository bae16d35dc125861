"""``segment --scheduler`` and ``lm train --scheduler`` on a real Dask cluster give the one-machine results.

A LocalCluster of two worker processes (one thread each) is started once for the module; every run is compared
byte for byte (or array for array) with the same command without ``--scheduler``.  Inputs are small and cut into
small partitions, so that every run has many tasks on both workers.  Nothing here measures time.
"""
from __future__ import annotations

import json
import os
import signal
import socket
import sys
from pathlib import Path

import numpy as np
import pytest

distributed = pytest.importorskip("distributed", reason="dask and distributed are not installed "
                                                        "(pip install 'segviz[distributed]')")

from segviz import read_corpus  # noqa: E402
from segviz.cli import main  # noqa: E402
from segviz.distributed import plan_partitions, plan_pieces, segment_collection_iter  # noqa: E402
from segviz.events import Progress  # noqa: E402
from segviz.lm import LanguageModels  # noqa: E402
from segviz.models import load_model  # noqa: E402
from segviz.paths import default_model  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
CHOI = sorted((ROOT / "sample_corpora" / "choi").glob("*.ref"))
REUTERS = ROOT / "sample_corpora" / "reuters_sample.sgm"
#: small partitions: a few documents each
PARTITION = ["--partition-kib", "4"]


@pytest.fixture(scope="module")
def cluster():
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0",
                                  silence_logs=40) as local:
        yield local


@pytest.fixture(scope="module")
def segments():
    """The reference segments of the bundled samples, as lists of sentence texts."""
    out = []
    for corpus in (read_corpus(REUTERS), read_corpus(CHOI)):
        texts, start = corpus.sentence_texts(), 0
        for mass in corpus.masses():
            out.append(texts[start:start + mass])
            start += mass
    return out


def _jsonl(path: Path, segments, n: int, *, ids=True, bad_line: int | None = None, dup_line: int | None = None):
    lines = []
    for i in range(n):
        sentences = [t for k in range(3) for t in segments[(7 * i + 5 * k) % len(segments)]]
        obj = {"id": f"doc{i}", "sentences": sentences} if ids else {"sentences": sentences}
        if dup_line is not None and i + 1 == dup_line:
            obj["id"] = "doc0"
        lines.append(json.dumps(obj) if bad_line != i + 1 else '{"id": "broken", "sentences": [')
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def _prose(directory: Path, segments, n_files: int) -> list[Path]:
    out = []
    for f in range(n_files):
        paragraphs = [" ".join(segments[(11 * f + k) % len(segments)]) for k in range(6)]
        path = directory / f"story{f}.txt"
        path.write_text("\n\n".join(paragraphs) + "\n", encoding="utf-8")
        out.append(path)
    return out


def _run(argv, capsys) -> tuple[int, str, str]:
    status = main([str(a) for a in argv])
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def _same_output(inputs, out_name: str, tmp_path: Path, capsys, scheduler: str, *extra) -> bytes:
    one, many = tmp_path / f"one-{out_name}", tmp_path / f"many-{out_name}"
    status, _, err = _run(["segment", *inputs, "-o", one, "--quiet", *extra], capsys)
    assert status == 0, err
    status, _, err = _run(["segment", *inputs, "-o", many, "--quiet", "--scheduler", scheduler, *PARTITION,
                           *extra], capsys)
    assert status == 0, err
    assert many.read_bytes() == one.read_bytes()
    assert "partitions on" in err
    return one.read_bytes()


@pytest.mark.slow
def test_jsonl_collection_is_the_one_machine_output_in_every_format(cluster, segments, tmp_path, capsys):
    source = _jsonl(tmp_path / "collection.jsonl", segments, 60)
    assert len(plan_partitions(plan_pieces([source], target_bytes=4096), target_bytes=4096)) > 10
    for name in ("out.jsonl", "out.csv", "out.txt", "out.ref"):
        assert _same_output([source], name, tmp_path, capsys, cluster.scheduler_address)
    # unnamed documents (named by their line), and a rule given on the command line
    plain = _jsonl(tmp_path / "plain.jsonl", segments, 40, ids=False)
    _same_output([plain], "plain.jsonl", tmp_path, capsys, cluster.scheduler_address, "--segments", "2")


def test_raw_prose_and_choi_files_are_the_one_machine_output(cluster, segments, tmp_path, capsys):
    prose = _prose(tmp_path, segments, 5)
    _same_output(prose, "prose.jsonl", tmp_path, capsys, cluster.scheduler_address)
    _same_output(CHOI, "choi.csv", tmp_path, capsys, cluster.scheduler_address)
    # standard output, Choi format, as the one-machine run streams it
    status, one, _ = _run(["segment", *CHOI, "--quiet"], capsys)
    assert status == 0
    status, many, err = _run(["segment", *CHOI, "--quiet", "--scheduler", cluster.scheduler_address, *PARTITION],
                             capsys)
    assert status == 0, err
    assert many == one


@pytest.mark.slow
def test_local_cluster_of_two_processes(segments, tmp_path, capsys):
    source = _jsonl(tmp_path / "collection.jsonl", segments, 30)
    _same_output([source], "local.jsonl", tmp_path, capsys, "local:2")


@pytest.mark.slow
def test_a_worker_killed_mid_run_costs_a_retry_not_the_run(cluster, segments, tmp_path, capsys):
    source = _jsonl(tmp_path / "collection.jsonl", segments, 80)
    one = tmp_path / "one.jsonl"
    assert main(["segment", str(source), "-o", str(one), "--quiet"]) == 0
    model_path = default_model()
    many = tmp_path / "many.jsonl"
    with distributed.Client(cluster.scheduler_address) as client:
        pids = client.run(os.getpid)
        run = segment_collection_iter(client, [source], model=load_model(model_path), model_path=model_path,
                                      output=many, out_format="jsonl", partition_bytes=4096)
        killed = False
        events = 0
        while True:
            try:
                event = next(run)
            except StopIteration as stop:
                done = stop.value
                break
            assert isinstance(event, Progress)
            events += 1
            if events == 2:   # the first partition is written; the others are in flight or waiting
                os.kill(next(iter(pids.values())), signal.SIGKILL)
                killed = True
        assert killed and done.partitions > 10
        client.wait_for_workers(2)   # the nanny restarted the killed worker
        assert set(client.run(os.getpid).values()) != set(pids.values())
    assert many.read_bytes() == one.read_bytes()


@pytest.mark.slow
def test_both_workers_take_partitions(cluster, segments, tmp_path):
    source = _jsonl(tmp_path / "collection.jsonl", segments, 60)
    model_path = default_model()
    with distributed.Client(cluster.scheduler_address) as client:
        with distributed.get_task_stream(client) as stream:
            for _ in segment_collection_iter(client, [source], model=load_model(model_path), model_path=model_path,
                                             output=tmp_path / "out.jsonl", out_format="jsonl", partition_bytes=4096):
                pass
        workers = {task["worker"] for task in stream.data if "segviz-segment" in str(task["key"])}
        assert workers == set(client.nthreads())


def test_a_bad_line_in_a_later_partition_is_reported_as_one_machine_does(cluster, segments, tmp_path, capsys):
    for name, options in (("bad.jsonl", {"bad_line": 47}), ("dup.jsonl", {"dup_line": 51})):
        source = _jsonl(tmp_path / name, segments, 60, **options)
        out = tmp_path / f"{name}.out.jsonl"
        one_status, _, one_err = _run(["segment", source, "-o", out, "--quiet"], capsys)
        status, _, err = _run(["segment", source, "-o", out, "--quiet", "--scheduler", cluster.scheduler_address,
                               *PARTITION], capsys)
        assert (status, one_status) == (2, 2)
        assert err == one_err and err.count("\n") == 1 and err.startswith("segviz: error: ")
        assert f"line {options.get('bad_line') or options.get('dup_line')}" in err
        assert not out.exists()


@pytest.mark.slow
def test_an_unreachable_scheduler_is_one_line_and_status_2(segments, tmp_path, capsys):
    source = _jsonl(tmp_path / "collection.jsonl", segments, 5)
    with socket.socket() as s:   # a port nothing listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    status, out, err = _run(["segment", source, "-o", tmp_path / "out.jsonl", "--scheduler",
                             f"tcp://127.0.0.1:{port}"], capsys)
    assert status == 2 and out == ""
    assert err.count("\n") == 1 and err.startswith("segviz: error: cannot reach the Dask scheduler"), err
    assert not (tmp_path / "out.jsonl").exists()
    # lm train reaches the cluster before it reads the corpus: the one line is all it says
    status, out, err = _run(["lm", "train", REUTERS, "--out", tmp_path / "lm.segviz-lm", "--scheduler",
                             f"tcp://127.0.0.1:{port}"], capsys)
    assert status == 2 and out == "" and err.count("\n") == 1 and err.startswith("segviz: error: cannot reach"), err
    status, _, err = _run(["segment", source, "--scheduler", "nowhere"], capsys)
    assert status == 2 and err.count("\n") == 1 and err.startswith("segviz: error: ")


LM_OPTIONS = ["--vocab", "3000", "--triggers", "400", "--trigger-vocab", "600", "--window", "200", "--max-iter", "4"]


def _same_models(a: LanguageModels, b: LanguageModels, test_sentences) -> None:
    assert a.vocab_ == b.vocab_
    for name, array in a.trigram_.get_arrays().items():
        assert np.array_equal(array, b.trigram_.get_arrays()[name]), name
    assert np.array_equal(a.trigger_.sources_, b.trigger_.sources_)
    assert np.array_equal(a.trigger_.targets_, b.trigger_.targets_)
    assert np.array_equal(a.trigger_.scores_, b.trigger_.scores_)
    ea, eb = a.evaluate(test_sentences), b.evaluate(test_sentences)
    assert abs(ea["trigram_perplexity"] - eb["trigram_perplexity"]) <= 1e-9
    assert abs(ea["trigger_perplexity"] - eb["trigger_perplexity"]) <= 1e-9


@pytest.mark.slow
def test_lm_counting_on_the_cluster_trains_the_one_machine_models(cluster, tmp_path, capsys):
    from segviz.distributed import cluster_text

    sentences = read_corpus(REUTERS).sentences()
    params = dict(vocab_size=3000, n_triggers=400, trigger_vocab=600, window=200, max_iter=4)
    one = LanguageModels(**params).fit(sentences)
    with distributed.Client(cluster.scheduler_address) as client:
        text = cluster_text(client, sentences, part_sentences=150)   # a dozen parts, merged
        many = LanguageModels(**params)
        for _ in many.fit_text_iter(text):
            pass
        text.close()
    _same_models(one, many, read_corpus(CHOI).sentences())
    # the command, on a local cluster it starts itself
    status, _, err = _run(["lm", "train", REUTERS, "--out", tmp_path / "one.segviz-lm", *LM_OPTIONS], capsys)
    assert status == 0, err
    status, _, err = _run(["lm", "train", REUTERS, "--out", tmp_path / "many.segviz-lm", *LM_OPTIONS,
                           "--scheduler", "local:2"], capsys)
    assert status == 0, err
    _same_models(LanguageModels.load(tmp_path / "one.segviz-lm"), LanguageModels.load(tmp_path / "many.segviz-lm"),
                 read_corpus(CHOI).sentences())


def test_an_unreadable_file_among_the_inputs_is_the_one_machine_line(cluster, segments, tmp_path, capsys):
    good = _jsonl(tmp_path / "good.jsonl", segments, 30)
    empty = tmp_path / "empty.txt"
    empty.write_text("")
    out = tmp_path / "out.jsonl"
    one_status, _, one_err = _run(["segment", good, empty, "-o", out, "--quiet"], capsys)
    status, _, err = _run(["segment", good, empty, "-o", out, "--quiet", "--scheduler", cluster.scheduler_address,
                           *PARTITION], capsys)
    assert (status, one_status) == (2, 2) and err == one_err and err.count("\n") == 1
    assert not out.exists()


def test_without_dask_the_option_is_one_line(segments, tmp_path, capsys, monkeypatch):
    source = _jsonl(tmp_path / "collection.jsonl", segments, 5)
    monkeypatch.setitem(sys.modules, "distributed", None)   # as if it were not installed
    status, _, err = _run(["segment", source, "--scheduler", "local:2"], capsys)
    assert status == 2 and err.count("\n") == 1 and "pip install 'segviz[distributed]'" in err
