"""A folder of many small files against one large file of the same text: what reading them costs, in-process
(``read_corpus``) and through the commands (``inspect``, ``segment``, ``gui --export-segments``).

    python benchmarks/bench_many_files.py [--files 200000] [--commands inspect,segment,gui] [--keep DIR]

Each small file holds one paragraph of two or three sentences; the large file holds the same paragraphs, one
after the other with a blank line between them (one document).  Reading must cost about the same per byte
either way (issue 43: within 3x); ``segment`` and the window then apply the model once per file, which one large
document does not need, so their ratio is reported beside reading's.  Not collected by pytest; the files are
generated in a temporary directory (about 4 kB of disk each: 0.8 GB for 200,000).
"""
from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

WORDS = ("river house morning letter garden window station captain doctor evening village market summer winter "
         "journey harbour mountain teacher student kitchen bridge forest engine silver yellow quiet sudden "
         "ancient narrow distant gentle walked carried opened watched remembered followed returned answered "
         "finished painted gathered wondered").split()


def paragraph(rng: random.Random) -> str:
    sentences = []
    for _ in range(rng.choice((2, 3))):
        words = [rng.choice(WORDS) for _ in range(rng.randint(8, 16))]
        sentences.append(" ".join(words).capitalize() + ".")
    return " ".join(sentences)


def build(directory: Path, n: int) -> tuple[Path, Path]:
    folder, large = directory / "files", directory / "large.txt"
    folder.mkdir()
    rng = random.Random(0)
    with open(large, "w", encoding="utf-8") as out:
        for i in range(n):
            text = paragraph(rng)
            (folder / f"{i:06d}.txt").write_text(text + "\n", encoding="utf-8")
            out.write(text + "\n\n")
    return folder, large


def read_seconds(path: Path) -> tuple[float, int]:
    """Seconds of ``read_corpus(path)`` in a fresh interpreter (imports and the splitter's warm-up excluded)."""
    script = ("import sys, time\n"
              "from segviz.corpus import read_corpus\n"
              "from segviz.readers.sentences import split_sentences\n"
              "split_sentences('Warm up here. Then go.')\n"
              "t = time.perf_counter(); c = read_corpus(sys.argv[1]); t = time.perf_counter() - t\n"
              "print(t, c.n_sentences)\n")
    out = subprocess.run([sys.executable, "-c", script, str(path)], capture_output=True, text=True, check=True,
                         env={**os.environ, "PYTHONPATH": str(ROOT)}).stdout.split()
    return float(out[0]), int(out[1])


def command_seconds(args: list[str], cwd: Path) -> tuple[float, int]:
    t0 = time.perf_counter()
    proc = subprocess.run([sys.executable, "-m", "segviz", *args], cwd=cwd, capture_output=True, text=True,
                          env={**os.environ, "PYTHONPATH": str(ROOT), "QT_QPA_PLATFORM": "offscreen"})
    return time.perf_counter() - t0, proc.returncode


COMMANDS = {
    "inspect": lambda corpus, out: ["inspect", str(corpus)],
    "segment": lambda corpus, out: ["segment", str(corpus), "-o", str(out / "segments.jsonl"), "--quiet"],
    "gui": lambda corpus, out: ["gui", str(corpus), "--export-segments", str(out / "window.jsonl")],
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, default=200_000)
    parser.add_argument("--commands", default="inspect,segment,gui")
    parser.add_argument("--keep", type=Path, default=None, help="build the files here and keep them")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        directory = args.keep or Path(tmp)
        directory.mkdir(parents=True, exist_ok=True)
        folder, large = build(directory, args.files)
        report = {"files": args.files, "bytes": large.stat().st_size}
        folder_s, folder_n = read_seconds(folder)
        large_s, large_n = read_seconds(large)
        report["read_corpus"] = {"folder_s": round(folder_s, 1), "large_file_s": round(large_s, 1),
                                 "ratio": round(folder_s / large_s, 2), "sentences": [folder_n, large_n]}
        print(json.dumps(report), flush=True)
        for name in [c for c in args.commands.split(",") if c]:
            row = {}
            for label, corpus in (("folder", folder), ("large_file", large)):
                seconds, status = command_seconds(COMMANDS[name](corpus, directory), directory)
                row[f"{label}_s"], row[f"{label}_status"] = round(seconds, 1), status
            row["ratio"] = round(row["folder_s"] / row["large_file_s"], 2)
            report[name] = row
            print(json.dumps({name: row}), flush=True)
        print(json.dumps(report, indent=1))


if __name__ == "__main__":
    main()
