"""Score tables: a segmenter's row beside the paper's baselines, macro-averages over files (Section 7)."""
from __future__ import annotations

import numpy as np

from .baselines import BASELINES, baseline_masses
from .metrics import default_k, score_row
from .segmentation import default_mu


def baseline_rows(reference: tuple[int, ...], *, seed: int = 0, mu: float | None = None) -> dict[str, dict]:
    """Score every baseline of the paper against ``reference`` (one dict per row)."""
    mu = default_mu(reference) if mu is None else mu
    return {name: score_row(reference, baseline_masses(name, reference, mu=mu, seed=seed), mu=mu) for name in BASELINES}


def average_rows(per_file: list[dict[str, dict]]) -> dict[str, dict]:
    """Macro-average rows over files (counts are summed, rates averaged), as the Choi literature reports."""
    out: dict[str, dict] = {}
    for name in per_file[0]:
        rows = [f[name] for f in per_file]
        avg = {key: float(np.mean([r[key] for r in rows])) for key in rows[0] if key != "hypothesis_segments"}
        avg["hypothesis_segments"] = int(sum(r["hypothesis_segments"] for r in rows))
        out[name] = avg
    return out


def model_rows(seg, corpus, *, alpha=None, epsilon=None, seed: int = 0) -> dict[str, dict]:
    """The paper's table: the model row then the baselines, all with mu = 1/mean reference segment length."""
    ref = corpus.masses()
    mu = default_mu(ref)
    rows = {"model": score_row(ref, seg.predict(corpus, alpha=alpha, epsilon=epsilon), mu=mu)}
    rows.update(baseline_rows(ref, seed=seed, mu=mu))
    return rows


def table_payload(corpus, rows: dict[str, dict], *, evaluation: str) -> dict:
    """A table as one JSON-ready dict: the corpus description, then one entry per row."""
    reference = corpus.masses()
    payload = {
        "corpus": corpus.name,
        "evaluation": evaluation,
        "sentences": corpus.n_sentences,
        "reference_segments": len(reference),
        "mu": default_mu(reference),
        "k": default_k(reference) if corpus.n_sentences > 2 else None,
    }
    payload.update(rows)
    return payload
