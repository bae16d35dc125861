"""The corpus API in one import: the in-memory corpus, its readers and the Choi writer.

* :mod:`segviz.documents` -- :class:`Corpus`, :class:`Document`, :class:`FileReading`, :func:`tokenize` (the one
  tokeniser), :class:`NoReferenceError`;
* :mod:`segviz.readers` -- :func:`read_corpus` and one reader per format (``text``, ``lines``, ``choi``,
  ``reuters``, ``wiki``, ``jsonl``), detected from content unless named; ``docs/formats.md`` describes them;
* :mod:`segviz.writers` -- :func:`write_choi` and the other output formats of ``segviz segment``.

Segmentations are exchanged as **masses** -- tuples of segment lengths in sentences, segeval's convention;
:mod:`segviz.segmentation` converts them to boundary positions and indicators.
"""
from __future__ import annotations

from .documents import Corpus, Document, FileReading, NoReferenceError, Sentence, strip_invisible, tokenize
from .readers import FORMATS, detect_format, read_corpus, read_file
from .readers.choi import CHOI_SEPARATOR
from .writers import write_choi

__all__ = ["CHOI_SEPARATOR", "Corpus", "Document", "FORMATS", "FileReading", "NoReferenceError", "Sentence",
           "detect_format", "read_corpus", "read_file", "strip_invisible", "tokenize", "write_choi"]
