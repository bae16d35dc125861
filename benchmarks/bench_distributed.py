"""``segviz segment --scheduler``: one machine against a Dask cluster on the same collection (docs/benchmarks.md).

Builds a collection of ``--documents`` JSONL documents (default 20,000) from the bundled samples (each document two
or three reference segments of the Reuters sample and the Choi files, chosen by a seeded generator, so the same
collection every run), then segments it three times with the bundled default model, each as a fresh
``segviz segment`` process:

1. one machine (no ``--scheduler``);
2. ``--scheduler local:2`` (the command starts and stops two worker processes itself);
3. ``--scheduler tcp://...`` of a scheduler and two workers started here as subprocesses
   (``python -m distributed.cli.dask_scheduler`` / ``dask_worker``, one thread each), already up and warm.

It prints wall times, sentences per second and the overhead ratio (cluster time / one-machine time), checks that
the three outputs are byte for byte the same and that both workers of run 3 took partitions (tasks executed per
worker).  For the scaling model it then measures, on the same two workers: the per-sentence compute of a
partition (the task stream's compute times), the scheduler's per-task cost (a burst of no-op tasks), and what the
client pays per sentence to take the results in order and write them (every partition computed first, then
fetched and written).

    python benchmarks/bench_distributed.py                       # 20,000 documents, 256 KiB partitions
    python benchmarks/bench_distributed.py --documents 2000 --partition-kib 64 --json out.json
"""
from __future__ import annotations

import argparse
import json
import random
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from segviz import read_corpus  # noqa: E402

SAMPLES = [ROOT / "sample_corpora" / "reuters_sample.sgm"] + sorted((ROOT / "sample_corpora" / "choi").glob("*.ref"))


def build_collection(path: Path, n_documents: int, seed: int = 42) -> int:
    """Write ``n_documents`` JSONL documents of two or three sample segments each; returns the sentences."""
    pool = []
    for corpus in (read_corpus(SAMPLES[0]), read_corpus(SAMPLES[1:])):
        texts, start = corpus.sentence_texts(), 0
        for mass in corpus.masses():
            pool.append(texts[start:start + mass])
            start += mass
    rng = random.Random(seed)
    sentences = 0
    with open(path, "w", encoding="utf-8") as handle:
        for i in range(n_documents):
            doc = [t for _ in range(rng.choice((2, 3))) for t in pool[rng.randrange(len(pool))]]
            sentences += len(doc)
            handle.write(json.dumps({"id": f"doc{i}", "sentences": doc}) + "\n")
    return sentences


def children_cpu() -> float:
    """CPU seconds (user + system) of this process's finished children and everything they waited for."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def tree_cpu(pids) -> float:
    """CPU seconds so far of running processes and all their descendants."""
    import psutil

    total = 0.0
    for pid in pids:
        try:
            root = psutil.Process(pid)
            for proc in [root, *root.children(recursive=True)]:
                times = proc.cpu_times()
                total += times.user + times.system
        except psutil.NoSuchProcess:
            continue
    return total


def timed_segment(source: Path, out: Path, *extra: str, cluster_pids=()) -> tuple[float, float]:
    """Wall seconds of one ``segviz segment`` process, and the CPU seconds it and its workers (its own, or the
    running ``cluster_pids`` and their children) spent."""
    command = [sys.executable, "-m", "segviz", "segment", str(source), "-o", str(out), "--quiet", *extra]
    cpu_before = children_cpu() + tree_cpu(cluster_pids)
    started = time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True)
    seconds = time.perf_counter() - started
    cpu = children_cpu() + tree_cpu(cluster_pids) - cpu_before
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(command)} failed ({done.returncode}):\n{done.stderr}")
    print(f"    {seconds:.1f} s wall, {cpu:.1f} s CPU:", done.stderr.strip().splitlines()[-1], flush=True)
    return seconds, cpu


class ClusterProcesses:
    """A scheduler and two one-thread workers, each its own process (as `dask scheduler` / `dask worker`)."""

    def __init__(self, directory: Path, n_workers: int = 2):
        self.file = directory / "scheduler.json"
        self.logs = open(directory / "cluster.log", "w")
        self.procs = [subprocess.Popen([sys.executable, "-m", "distributed.cli.dask_scheduler", "--port", "0",
                                        "--dashboard-address", ":0", "--scheduler-file", str(self.file)],
                                       stdout=self.logs, stderr=subprocess.STDOUT)]
        deadline = time.monotonic() + 60
        while not self.file.exists():
            if time.monotonic() > deadline or self.procs[0].poll() is not None:
                raise SystemExit("the scheduler did not start (see cluster.log)")
            time.sleep(0.2)
        time.sleep(0.5)   # the file is written before the scheduler listens
        self.address = json.loads(self.file.read_text())["address"]
        for _ in range(n_workers):
            self.procs.append(subprocess.Popen(
                [sys.executable, "-m", "distributed.cli.dask_worker", self.address, "--nthreads", "1",
                 "--nworkers", "1", "--dashboard-address", ":0"], stdout=self.logs, stderr=subprocess.STDOUT))

    def close(self):
        for proc in reversed(self.procs):
            proc.terminate()
        for proc in self.procs:
            try:
                proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                proc.kill()
        self.logs.close()


def executed_per_worker(client) -> dict[str, int]:
    return client.run(lambda dask_worker: dask_worker.state.executed_count)


def scaling_measurements(client, source: Path, partition_bytes: int) -> dict:
    """Per-sentence compute, the scheduler's per-task cost and the client's per-sentence cost (module doc)."""
    import distributed

    from segviz.distributed import plan_partitions, plan_pieces
    from segviz.distributed.segment_task import segment_partition
    from segviz.distributed.worker_model import install_model, remove_model
    from segviz.models import load_model
    from segviz.paths import default_model

    model_path = default_model()
    key, plugin = install_model(client, load_model(model_path), model_path)
    partitions = plan_partitions(plan_pieces([source], target_bytes=partition_bytes), target_bytes=partition_bytes)
    with distributed.get_task_stream(client) as stream:
        started = time.perf_counter()
        futures = [client.submit(segment_partition, p, key, "jsonl", pure=False, priority=-p.index)
                   for p in partitions]
        distributed.wait(futures)
        computed = time.perf_counter() - started
    # the client's share: every result is ready on the workers; take them in order and write them
    started = time.perf_counter()
    sentences = 0
    with tempfile.TemporaryFile() as out:
        for future in futures:
            result = future.result()
            sentences += result.sentences
            out.write(result.text.encode("utf-8"))
    client_seconds = time.perf_counter() - started
    remove_model(client, plugin)
    del futures
    compute = [sum(stop - start for action, start, stop in
                   ((s["action"], s["start"], s["stop"]) for s in task["startstops"]) if action == "compute")
               for task in stream.data if "segment_partition" in str(task["key"])]
    # the scheduler's per-task cost: a burst of tasks that do nothing
    n_noop = 4000
    started = time.perf_counter()
    distributed.wait(client.map(lambda i: i, range(n_noop), pure=False))
    per_task = (time.perf_counter() - started) / n_noop
    return {"partitions": len(partitions), "sentences": sentences, "compute_seconds": sum(compute),
            "per_sentence_compute": sum(compute) / sentences, "all_partitions_wall": computed,
            "mean_partition_seconds": sum(compute) / len(compute), "sentences_per_partition": sentences / len(compute),
            "scheduler_per_task": per_task, "client_seconds": client_seconds,
            "client_per_sentence": client_seconds / sentences}


def scaling_model(m: dict, per_sentence_cpu: float, cores_per_machine: int = 2) -> dict:
    """Sentences per second on N machines of ``cores_per_machine`` cores (one one-thread worker per core).

    ``c`` is what a sentence costs a core: the CPU seconds of the two-worker run (client, scheduler and workers,
    every overhead included) per sentence.  The workers do N k / c sentences a second; the scheduler hands out
    one task at a time at ``o`` seconds each, so at most P / o sentences a second in partitions of P sentences,
    and it is busy a fraction N k o / (P c) of the run; the client takes every result in order and writes it,
    at most 1 / d sentences a second.  The rate is the least of the three; partitions of at least
    20 N k o / c sentences keep the scheduler's share under 5 %, and of at least 20 o / c keep a task's
    hand-over under 5 % of its own compute."""
    c, o, d, p = per_sentence_cpu, m["scheduler_per_task"], m["client_per_sentence"], m["sentences_per_partition"]
    rows = {}
    for n in (1, 2, 10, 100):
        cores = n * cores_per_machine
        need = max(20 * o * cores / c, 20 * o / c)
        workers, client = cores / c, 1 / d
        rows[n] = {"workers_rate": workers, "scheduler_rate": p / o, "scheduler_share": cores * o / (p * c),
                   "client_rate": client, "rate": min(workers, p / o, client), "partition_for_5pct": need,
                   "rate_at_that_partition": min(workers, max(need, p) / o, client)}
    return rows


def print_model(measured: dict, per_sentence_cpu: float) -> dict:
    print(f"per-sentence compute in a task {measured['per_sentence_compute'] * 1e3:.3f} ms wall "
          f"({measured['partitions']} partitions of {measured['sentences_per_partition']:.0f} sentences, "
          f"{measured['mean_partition_seconds']:.2f} s each); CPU per sentence of the two-worker run, everything "
          f"included, {per_sentence_cpu * 1e3:.3f} ms; scheduler {measured['scheduler_per_task'] * 1e3:.2f} ms per "
          f"task; client {measured['client_per_sentence'] * 1e6:.1f} us per sentence "
          f"({measured['client_seconds']:.2f} s for all results)")
    model = scaling_model(measured, per_sentence_cpu)
    for n, row in model.items():
        print(f"N = {n:>3} machines of 2 cores: workers {row['workers_rate']:,.0f}/s, scheduler "
              f"{row['scheduler_rate']:,.0f}/s (busy {row['scheduler_share']:.1%}), client {row['client_rate']:,.0f}/s"
              f" -> {row['rate']:,.0f} sentences/s; partitions of >= {row['partition_for_5pct']:,.0f} sentences keep"
              f" the scheduler under 5 % ({row['rate_at_that_partition']:,.0f} sentences/s)")
    return model


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--documents", type=int, default=20000)
    ap.add_argument("--partition-kib", type=int, default=256)
    ap.add_argument("--workdir", type=Path, default=None, help="keep the collection and outputs here")
    ap.add_argument("--json", type=Path, default=None, help="write the numbers here")
    ap.add_argument("--model-from", type=Path, default=None, help="print the scaling model of a run's --json "
                                                                 "file, without running anything")
    ap.add_argument("--repeat", type=int, default=1, help="rounds of the three runs, one after the other (the "
                                                          "best wall time of each counts: the machine is shared)")
    args = ap.parse_args()
    if args.model_from:
        saved = json.loads(args.model_from.read_text())
        print_model(saved["measured"], min(c for _, c in saved["runs"]["tcp2"]) / saved["sentences"])
        return 0
    import distributed

    work = args.workdir or Path(tempfile.mkdtemp(prefix="segviz-bench-distributed-"))
    work.mkdir(parents=True, exist_ok=True)
    source = work / "collection.jsonl"
    n_sentences = build_collection(source, args.documents)
    print(f"collection: {args.documents:,} JSONL documents, {n_sentences:,} sentences, "
          f"{source.stat().st_size / 2**20:.1f} MiB ({source})")
    partition = ["--partition-kib", str(args.partition_kib)]
    runs: dict[str, list[tuple[float, float]]] = {"one": [], "local2": [], "tcp2": []}
    cluster = ClusterProcesses(work)
    took: dict[str, int] = {}
    try:
        with distributed.Client(cluster.address, timeout=30) as client:
            client.wait_for_workers(2, timeout=120)
            pids = [p.pid for p in cluster.procs]
            for round_ in range(args.repeat):
                print(f"round {round_ + 1}: one machine; --scheduler local:2; --scheduler tcp:// (a scheduler and two "
                      "workers started as subprocesses)", flush=True)
                runs["one"].append(timed_segment(source, work / "one.jsonl"))
                runs["local2"].append(timed_segment(source, work / "local.jsonl", "--scheduler", "local:2",
                                                    *partition))
                before = executed_per_worker(client)
                runs["tcp2"].append(timed_segment(source, work / "tcp.jsonl", "--scheduler", cluster.address,
                                                  *partition, cluster_pids=pids))
                after = executed_per_worker(client)
                took = {w: after[w] - before.get(w, 0) for w in after}
                print("    tasks executed per worker:", ", ".join(f"{w} {n}" for w, n in sorted(took.items())))
            measured = scaling_measurements(client, source, args.partition_kib * 1024)
    finally:
        cluster.close()
    t_one, t_local, t_tcp = (min(t for t, _ in runs[k]) for k in ("one", "local2", "tcp2"))
    one = (work / "one.jsonl").read_bytes()
    identical = (work / "local.jsonl").read_bytes() == one and (work / "tcp.jsonl").read_bytes() == one
    both = len(took) == 2 and all(n > 0 for n in took.values())
    print()
    print(f"{'run (best of ' + str(args.repeat) + ')':<34} {'wall s':>8} {'sentences/s':>12} {'vs one machine':>15}"
          f" {'CPU s':>8} {'CPU vs one':>11}")
    cpu_one = min(c for _, c in runs["one"])
    for name, key in (("one machine", "one"), ("--scheduler local:2", "local2"),
                      ("--scheduler tcp:// (2 workers)", "tcp2")):
        t = min(w for w, _ in runs[key])
        cpu = min(c for _, c in runs[key])
        print(f"{name:<34} {t:8.1f} {n_sentences / t:12,.0f} {t / t_one:14.2f}x {cpu:8.1f} {cpu / cpu_one:10.2f}x")
    print(f"outputs identical: {identical}; both workers took partitions: {both}")
    print()
    model = print_model(measured, min(c for _, c in runs["tcp2"]) / n_sentences)
    if args.json:
        args.json.write_text(json.dumps({
            "documents": args.documents, "sentences": n_sentences, "partition_kib": args.partition_kib,
            "seconds": {"one": t_one, "local2": t_local, "tcp2": t_tcp}, "runs": runs, "identical": identical,
            "tasks_per_worker": took, "measured": measured, "model": model}, indent=1))
    return 0 if identical and both else 1


if __name__ == "__main__":
    sys.exit(main())
