"""How well the ``text`` reader recovers the sentences of real prose, how fast it reads, and how much of
different texts the bundled demo model's vocabulary covers (the out-of-domain threshold).

Prose is rebuilt from the shared corpora: every Brown fiction text (126: general fiction, mystery, science
fiction, adventure, romance, humour; tags stripped, detokenised) joined into its paragraphs and hard-wrapped at
72 columns, once with blank lines between paragraphs (a Gutenberg-style .txt) and once with indented first lines
and no blank lines; and the 300 wiki300 articles (sentences with final punctuation) hard-wrapped, one paragraph
per section.  For each: sentences read against the source's sentence count, the share ending in terminal
punctuation (or a closing quote after it), source sentences found whole inside one sentence read back (no
fragments), paragraphs recovered, and reading speed.

    python benchmarks/bench_readers.py [--out /tmp/bench_readers.json]

Not collected by pytest.  Needs ../shared/corpora (Brown, wiki300, Reuters, Choi).
"""
from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from segviz.corpus import read_corpus  # noqa: E402
from segviz.domain import OUT_OF_DOMAIN_COVERAGE, model_coverage  # noqa: E402
from segviz.paths import bundled  # noqa: E402
from segviz.readers.prose import TERMINAL_RE  # noqa: E402
from segviz.segmenter import Segmenter  # noqa: E402
from tests.realtext import brown_paragraphs, choi_segments, hard_wrapped  # noqa: E402

SHARED = ROOT.parent / "shared" / "corpora"
FICTION = ("fiction", "romance", "mystery", "adventure", "science_fiction", "humor")


def brown_fiction() -> list[list[list[str]]]:
    brown = SHARED / "brown_nltk" / "brown.zip"
    cats = zipfile.ZipFile(brown).read("brown/cats.txt").decode().split("\n")
    ids = [line.split()[0] for line in cats if line.strip() and line.split()[1] in FICTION]
    return [brown_paragraphs(brown, i) for i in ids]


def wiki_articles() -> list[list[list[str]]]:
    out = []
    for i in range(1, 301):
        segments = choi_segments(SHARED / "wiki300_badjatiya" / f"wiki_test_{i}.ref")
        segments[0] = segments[0][1:]  # the article title
        kept = [[s for s in seg if TERMINAL_RE.search(s)] for seg in segments]
        out.append([s for s in kept if s])
    return out


def measure(name: str, texts: list[list[list[str]]], style: str, tmp: Path) -> dict:
    sentences = read = terminal = whole = paragraphs = found_paragraphs = chars = 0
    seconds = 0.0
    for k, paras in enumerate(texts):
        source = [s for p in paras for s in p]
        path = tmp / f"{name}_{style}_{k}.txt"
        body = hard_wrapped(paras, width=72, style=style)
        path.write_text(body)
        t0 = time.perf_counter()
        corpus = read_corpus(path)
        seconds += time.perf_counter() - t0
        assert corpus.formats == ("text",), (path, corpus.formats)
        out = corpus.sentence_texts()
        joined = "\n".join(out)
        sentences += len(source)
        read += len(out)
        terminal += sum(bool(TERMINAL_RE.search(t)) for t in out)
        whole += sum(s in joined for s in source)
        paragraphs += len(paras)
        found_paragraphs += sum(corpus.paragraph_starts())
        chars += len(body)
    return {"texts": len(texts), "style": style, "source_sentences": sentences, "sentences_read": read,
            "ratio": read / sentences, "terminal_share": terminal / read, "source_sentences_whole": whole / sentences,
            "paragraphs": paragraphs, "paragraphs_found": found_paragraphs,
            "megabytes_per_second": chars / 1e6 / seconds}


def coverage_table() -> list[dict]:
    model = Segmenter.load(bundled("resources", "sample_model.segviz"))
    reuters = SHARED / "reuters21578"
    cases = [("Reuters reut2-000 (bundled sample)", ROOT / "sample_corpora" / "reuters_sample.sgm", "in"),
             ("Reuters reut2-002", reuters / "reut2-002.sgm", "in"),
             ("Reuters reut2-010", reuters / "reut2-010.sgm", "in"),
             ("Reuters reut2-021", reuters / "reut2-021.sgm", "in"),
             ("Choi 1/3-11 (Brown)", SHARED / "choi2000" / "1" / "3-11", "out"),
             ("Choi 2/6-8 (Brown)", SHARED / "choi2000" / "2" / "6-8", "out"),
             ("wiki300 1-50", [SHARED / "wiki300_badjatiya" / f"wiki_test_{i}.ref" for i in range(1, 51)], "out")]
    rows = []
    for name, path, domain in cases:
        cov = model_coverage(model, read_corpus(path))
        rows.append({"text": name, "domain": domain, "words": cov.words, "coverage": cov.fraction})
    with tempfile.TemporaryDirectory() as tmp:
        book = Path(tmp) / "fiction.txt"
        book.write_text(hard_wrapped([p for text in brown_fiction()[:20] for p in text]))
        cov = model_coverage(model, read_corpus(book))
        rows.append({"text": "Brown fiction (20 texts, as prose)", "domain": "out", "words": cov.words,
                     "coverage": cov.fraction})
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", help="also write the results as JSON here")
    args = parser.parse_args()
    results = {"reader": [], "coverage": coverage_table(), "threshold": OUT_OF_DOMAIN_COVERAGE}
    with tempfile.TemporaryDirectory() as tmp:
        fiction, wiki = brown_fiction(), wiki_articles()
        for name, texts, style in (("brown", fiction, "blank"), ("brown", fiction, "indent"), ("wiki", wiki, "blank")):
            row = measure(name, texts, style, Path(tmp))
            row["corpus"] = name
            results["reader"].append(row)
    print(f"{'corpus':8} {'style':7} {'texts':>5} {'source':>7} {'read':>7} {'ratio':>6} {'terminal':>8} "
          f"{'whole':>6} {'paragraphs':>13} {'MB/s':>5}")
    for r in results["reader"]:
        print(f"{r['corpus']:8} {r['style']:7} {r['texts']:5d} {r['source_sentences']:7,d} {r['sentences_read']:7,d} "
              f"{r['ratio']:6.3f} {r['terminal_share']:8.3f} {r['source_sentences_whole']:6.3f} "
              f"{r['paragraphs_found']:6,d}/{r['paragraphs']:6,d} {r['megabytes_per_second']:5.2f}")
    print(f"\nvocabulary coverage of the bundled demo model (threshold {OUT_OF_DOMAIN_COVERAGE:.0%}):")
    for r in results["coverage"]:
        print(f"  {r['text']:38} {r['domain']:>3}  {r['words']:8,d} words  {r['coverage']:6.1%}")
    if args.out:
        Path(args.out).write_text(json.dumps(results, indent=1) + "\n")


if __name__ == "__main__":
    main()
