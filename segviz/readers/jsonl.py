"""``jsonl``: one JSON object per line.

Document objects (one per document)::

    {"id": "ch1", "sentences": ["First sentence.", "Second one.", ...], "segments": [3, 5, 2]}

``sentences`` (strings, required); then at most one way of giving the reference, or none:

* ``segments``: segment lengths in sentences (positive integers summing to the number of sentences);
* ``boundaries``: sentence indices (0-based) where a new segment starts, strictly increasing, each in
  ``1 .. n-1`` -- a boundary lies *before* that sentence (segviz's convention everywhere).

Either every document gives a reference or none does (then the corpus is unlabelled).  Optional: ``id`` (or
``name``) naming the document (default: its line number), ``paragraph_starts`` (booleans, one per sentence).

Segment objects, as ``segviz segment -o OUT.jsonl`` writes them (one per segment, with ``document``, ``segment``
and ``sentences``), are read back too: consecutive objects of one ``document`` form one labelled document.

Each JSONL document is a source unit of its own (``FILE#ID``): it is segmented and evaluated on its own.
Sentences without a word or punctuation token are dropped, shrinking their segment (the reader notes how many).
"""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from ..errors import SegvizError
from .sentences import DocumentBuilder, ParsedFile


def _fail(source: str, lineno: int, message: str) -> SegvizError:
    return SegvizError(f"{source}: line {lineno}: {message}")


def _sentences(obj: dict, source: str, lineno: int) -> list[str]:
    sentences = obj.get("sentences")
    if not isinstance(sentences, list) or not all(isinstance(s, str) for s in sentences):
        raise _fail(source, lineno, "'sentences' must be a list of strings")
    return sentences


def _int_list(value: Any, key: str, source: str, lineno: int) -> list[int]:
    if not isinstance(value, list) or not all(isinstance(v, int) and not isinstance(v, bool) for v in value):
        raise _fail(source, lineno, f"'{key}' must be a list of integers")
    return value


def _masses(obj: dict, n: int, source: str, lineno: int) -> list[int] | None:
    masses = None
    if "segments" in obj:
        masses = _int_list(obj["segments"], "segments", source, lineno)
        if any(m < 1 for m in masses) or sum(masses) != n:
            raise _fail(source, lineno, f"'segments' must be positive and sum to the {n} sentences, "
                                        f"got {masses[:10]}{'...' if len(masses) > 10 else ''}")
    if "boundaries" in obj:
        bounds = _int_list(obj["boundaries"], "boundaries", source, lineno)
        if any(b < 1 or b > n - 1 for b in bounds) or any(a >= b for a, b in zip(bounds, bounds[1:])):
            raise _fail(source, lineno, f"'boundaries' must increase strictly within 1..{n - 1} (a boundary "
                                        "lies before that sentence)")
        edges = [0, *bounds, n]
        from_bounds = [b - a for a, b in zip(edges, edges[1:])]
        if masses is not None and masses != from_bounds:
            raise _fail(source, lineno, "'segments' and 'boundaries' disagree")
        masses = from_bounds
    return masses


def _parse(text: str, source: str, first_line: int = 1, part: bool = False) -> list[tuple[int, dict]]:
    objects = []
    for lineno, line in enumerate(text.split("\n"), start=first_line):
        if not line.strip():
            continue
        try:
            obj = json.loads(line)
        except json.JSONDecodeError as exc:
            if not objects and not part:
                _refuse_single_json(text, source)
            raise _fail(source, lineno, f"not valid JSON ({exc.msg})") from None
        except RecursionError:
            raise _fail(source, lineno, "JSON nested too deeply") from None
        except ValueError:
            # Python refuses to convert integers of more than 4,300 digits (a guard against slow conversions)
            raise _fail(source, lineno, "a number with too many digits (more than Python's 4,300)") from None
        if not isinstance(obj, dict):
            raise _fail(source, lineno, f"expected a JSON object, found {type(obj).__name__}")
        objects.append((lineno, obj))
    if not objects and not part:
        raise SegvizError(f"{source}: no JSON objects")
    return objects


def _refuse_single_json(text: str, source: str) -> None:
    """A pretty-printed JSON file (a segviz model, say) is not JSONL: name what it is."""
    try:
        whole = json.loads(text)
    except (ValueError, RecursionError):   # not JSON, or an integer beyond Python's digit limit
        return
    what = whole.get("format") if isinstance(whole, dict) else None
    raise SegvizError(f"{source}: one JSON document{f' (a {what} file)' if what else ''}, not JSON Lines; "
                      "a corpus in JSONL has one object per line with a 'sentences' list")


def read_jsonl(text: str, *, source: str, first_line: int = 1, part: bool = False) -> ParsedFile:
    """The documents of a JSONL file's ``text``.  ``part``: the text is a run of whole lines of the file, the
    first of them line ``first_line`` (a file read in parts, ``segviz.distributed``); the checks that need the
    whole file (a single JSON document, no object or no sentence at all, ids used twice across parts, a reference
    for some parts only) are then the caller's."""
    name = Path(source).name
    objects = _parse(text, source, first_line, part)
    builder = DocumentBuilder(name)
    units: list[str] = []
    segment_shape = ["segment" in obj and "document" in obj for _, obj in objects]
    if any(segment_shape) and not all(segment_shape):
        bad = objects[segment_shape.index(not segment_shape[0])][0]
        raise _fail(source, bad, "mixes segment objects (with 'document' and 'segment') with document objects")
    if all(segment_shape):
        n_documents = _read_segment_objects(objects, builder, units, source)
        labelled = True
    else:
        labelled, n_documents = _read_document_objects(objects, builder, units, source)
    if not builder.documents and not part:
        raise SegvizError(f"{source}: no sentences found")
    notes = builder.notes()
    if builder.dropped_sentences:
        notes.append(f"{builder.dropped_sentences} sentence(s) without a word dropped")
    return ParsedFile(builder.documents, has_reference=labelled, n_documents=n_documents, notes=notes, units=units)


def _read_document_objects(objects, builder: DocumentBuilder, units: list[str], source: str) -> tuple[bool, int]:
    labelled_lines = [lineno for lineno, obj in objects if "segments" in obj or "boundaries" in obj]
    if labelled_lines and len(labelled_lines) != len(objects):
        unlabelled = next(lineno for lineno, obj in objects if lineno not in set(labelled_lines))
        raise _fail(source, unlabelled, f"no 'segments' or 'boundaries' while line {labelled_lines[0]} has "
                                        "them: give a reference for every document or for none")
    seen: set[str] = set()
    for lineno, obj in objects:
        sentences = _sentences(obj, source, lineno)
        doc_id = document_id(obj, lineno)
        if doc_id in seen:
            raise _fail(source, lineno, f"document id {doc_id!r} is used twice")
        seen.add(doc_id)
        marks = obj.get("paragraph_starts", ())
        if marks and (not isinstance(marks, list) or len(marks) != len(sentences)
                      or not all(isinstance(m, bool) for m in marks)):
            raise _fail(source, lineno, "'paragraph_starts' must be one boolean per sentence")
        masses = _masses(obj, len(sentences), source, lineno) if labelled_lines else [len(sentences)]
        unit = f"{source}#{doc_id}"
        start = 0
        for k, size in enumerate(masses, start=1):
            part = slice(start, start + size)
            start += size
            doc = builder.add(sentences[part], name=f"{builder.source_name}#{doc_id}/{k}",
                              paragraph_starts=marks[part] if marks else ())
            if doc is not None:
                units.append(unit)
    return bool(labelled_lines), len(objects)


def document_id(obj: dict, lineno: int) -> str:
    """The id of the document object ``obj`` on line ``lineno``: its ``id``, else its ``name``, else the line."""
    return str(obj.get("id", obj.get("name", lineno)))


def _read_segment_objects(objects, builder: DocumentBuilder, units: list[str], source: str) -> int:
    documents: list[str] = []
    for lineno, obj in objects:
        sentences = _sentences(obj, source, lineno)
        doc_id = str(obj["document"])
        if not documents or documents[-1] != doc_id:
            if doc_id in documents:
                raise _fail(source, lineno, f"segments of document {doc_id!r} are not consecutive")
            documents.append(doc_id)
        doc = builder.add(sentences, name=f"{doc_id}#seg{obj['segment']}")
        if doc is not None:
            units.append(doc_id)
    return len(documents)
