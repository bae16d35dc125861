"""What the window's apply costs on a corpus of several files: ``segviz.service.tasks.apply_model_task`` (each file
segmented on its own by the expert the bundled default model chooses, then the shown expert's feature columns),
one thread, seconds.  Reuters-21578 is licensed for research purposes only.

    python benchmarks/bench_apply_documents.py
"""
import glob
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from segviz import load_model, read_corpus  # noqa: E402
from segviz.events import run_to_end  # noqa: E402
from segviz.service.tasks import apply_model_task  # noqa: E402

files = sorted(glob.glob(str(ROOT.parent / "shared" / "corpora" / "reuters21578" / "reut2-00[0-3].sgm")))
if not files:
    sys.exit("needs ../shared/corpora/reuters21578")
corpus = read_corpus(files)
model = load_model(ROOT / "resources" / "default_model.segviz")
start = time.perf_counter()
run_to_end(apply_model_task(model, corpus))
print(f"{len(files)} files, {corpus.n_sentences:,} sentences: {time.perf_counter() - start:.2f} s")
