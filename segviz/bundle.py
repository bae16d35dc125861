"""One file per saved model: a validated zip archive of JSON documents and numpy arrays, written atomically.

A trained segmenter and the language models behind its relevance questions are one unit: saving writes both into
a single archive beside the target and moves it into place with one rename (:func:`segviz.persist.atomic_write`),
so a reader sees the old model or the new one, never a new segmenter paired with old language models.

Layout (a plain zip; ``unzip -l`` shows it)::

    bundle.json          {"format": "segviz-bundle", "version": 1, "kind": ..., "members": {name: sha256}}
    NAME.json            JSON documents (e.g. ``segmenter.json``, ``lm/models.json``)
    NAME.npy             arrays in numpy's ``.npy`` format (never object arrays, never pickle)

Reading validates before use: the archive's size, each member's declared size, zip's CRC-32 (a flipped bit is
caught), the SHA-256 of every member against ``bundle.json``, each ``.npy`` header's dtype and shape before the
array is allocated, and an upper bound on the total it will allocate.
"""
from __future__ import annotations

import hashlib
import io
import json
import os
import zipfile
import zlib
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from .errors import SegvizError
from .persist import atomic_write, parse_json_object, read_bytes_limited

FORMAT = "segviz-bundle"
VERSION = 1
INDEX = "bundle.json"

#: the largest bundle file segviz opens, and the most its arrays may take once loaded
MAX_BUNDLE_BYTES = 2 * 1024 ** 3
MAX_ARRAY_BYTES = 4 * 1024 ** 3
#: dtypes a bundle may hold (numbers and booleans only)
_ALLOWED_KINDS = "biuf"


@dataclass
class Bundle:
    """A bundle's contents: ``kind``, JSON ``documents`` and ``arrays`` by member name (without extension)."""

    kind: str
    documents: dict[str, dict] = field(default_factory=dict)
    arrays: dict[str, np.ndarray] = field(default_factory=dict)
    digests: dict[str, str] = field(default_factory=dict)
    source: str = "bundle"

    def document(self, name: str) -> dict:
        try:
            return self.documents[name]
        except KeyError:
            raise SegvizError(f"{self.source}: the archive has no {name}.json (incomplete or foreign file)") from None

    def arrays_under(self, prefix: str) -> dict[str, np.ndarray]:
        """The arrays whose names start with ``prefix + "/"``, keyed by the rest of the name."""
        cut = len(prefix) + 1
        return {name[cut:]: a for name, a in self.arrays.items() if name.startswith(prefix + "/")}

    def digest_of(self, prefix: str) -> str:
        """One SHA-256 over every member under ``prefix/`` (see :func:`members_digest`)."""
        return members_digest(self.digests, prefix)


def members_digest(digests: dict[str, str], prefix: str) -> str:
    """One SHA-256 over the names and digests of every member under ``prefix/``: ties two parts of a model
    together (a segmenter records the digest of its language models)."""
    h = hashlib.sha256()
    for name in sorted(digests):
        if name.startswith(prefix + "/"):
            h.update(name.encode() + b"\0" + digests[name].encode() + b"\n")
    return h.hexdigest()


def _npy_bytes(array: np.ndarray) -> bytes:
    a = np.asarray(array)
    if a.dtype.kind not in _ALLOWED_KINDS:
        raise SegvizError(f"cannot store an array of dtype {a.dtype} (numbers only; segviz never pickles)")
    buffer = io.BytesIO()
    np.lib.format.write_array(buffer, np.ascontiguousarray(a), allow_pickle=False)
    return buffer.getvalue()


def _serialise(documents: dict[str, dict], arrays: dict[str, np.ndarray]) -> dict[str, bytes]:
    members: dict[str, bytes] = {}
    for name, doc in documents.items():
        members[f"{name}.json"] = (json.dumps(doc, ensure_ascii=False, allow_nan=False) + "\n").encode("utf-8")
    for name, array in arrays.items():
        members[f"{name}.npy"] = _npy_bytes(array)
    return members


def member_digests(documents: dict[str, dict], arrays: dict[str, np.ndarray]) -> dict[str, str]:
    """SHA-256 of each member as :func:`encode_bundle` would store it, keyed by member name without extension."""
    return {name.rsplit(".", 1)[0]: hashlib.sha256(data).hexdigest()
            for name, data in _serialise(documents, arrays).items()}


def encode_bundle(kind: str, documents: dict[str, dict], arrays: dict[str, np.ndarray]) -> tuple[bytes, dict]:
    """The archive's bytes and its member digests (serialised fully before any file is touched)."""
    members = _serialise(documents, arrays)
    digests = {name: hashlib.sha256(data).hexdigest() for name, data in members.items()}
    index = {"format": FORMAT, "version": VERSION, "kind": kind, "members": digests}
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_DEFLATED, compresslevel=6) as archive:
        archive.writestr(INDEX, json.dumps(index, indent=1) + "\n")
        for name, data in members.items():
            archive.writestr(name, data)
    return buffer.getvalue(), {name.rsplit(".", 1)[0]: d for name, d in digests.items()}


def write_bundle(path: str | os.PathLike, kind: str, documents: dict[str, dict],
                 arrays: dict[str, np.ndarray], *, parents: bool = False) -> Path:
    """Write one bundle file atomically (see the module docstring)."""
    data, _ = encode_bundle(kind, documents, arrays)
    return atomic_write(path, lambda handle: handle.write(data), parents=parents)


def is_bundle(path: str | os.PathLike) -> bool:
    """True when ``path`` is a regular file that starts like a zip archive (a bundle, or some other zip)."""
    # stat first: opening a FIFO would wait for a writer, and a device could be read forever
    if not Path(path).is_file():
        return False
    try:
        with open(path, "rb") as handle:
            return handle.read(4) == b"PK\x03\x04"
    except OSError:
        return False


def _read_npy(data: bytes, name: str, source: str, budget: list[int]) -> np.ndarray:
    stream = io.BytesIO(data)
    try:
        version = np.lib.format.read_magic(stream)
        if version == (1, 0):
            shape, fortran, dtype = np.lib.format.read_array_header_1_0(stream)
        elif version == (2, 0):
            shape, fortran, dtype = np.lib.format.read_array_header_2_0(stream)
        else:
            raise ValueError(f"unsupported .npy version {version}")
    except ValueError as exc:
        raise SegvizError(f"{source}: array {name!r} has a corrupt header ({exc})") from None
    if dtype.kind not in _ALLOWED_KINDS or dtype.hasobject:
        raise SegvizError(f"{source}: array {name!r} has dtype {dtype}, not a number type")
    count = int(np.prod(shape, dtype=np.int64)) if shape else 1
    nbytes = count * dtype.itemsize
    if count < 0 or nbytes > budget[0]:
        raise SegvizError(f"{source}: array {name!r} would take {nbytes:,} bytes, beyond the limit")
    budget[0] -= nbytes
    body = data[stream.tell():]
    if len(body) != nbytes:
        raise SegvizError(f"{source}: array {name!r} is truncated ({len(body)} of {nbytes} bytes)")
    array = np.frombuffer(body, dtype=dtype, count=count).reshape(shape, order="F" if fortran else "C")
    return array.copy()


def read_bundle(path: str | os.PathLike, *, kind: str | None = None, max_bytes: int = MAX_BUNDLE_BYTES,
                max_array_bytes: int = MAX_ARRAY_BYTES) -> Bundle:
    """Open and validate a bundle; one-line :class:`SegvizError` naming the file and the member for any fault."""
    source = str(path)
    raw = read_bytes_limited(path, max_bytes, what="segviz model file")
    try:
        archive = zipfile.ZipFile(io.BytesIO(raw))
    except (zipfile.BadZipFile, ValueError, EOFError) as exc:
        raise SegvizError(f"{source}: not a segviz model archive ({exc})") from None
    budget = [int(max_array_bytes)]
    with archive:
        infos = {info.filename: info for info in archive.infolist()}
        if INDEX not in infos:
            raise SegvizError(f"{source}: not a segviz model archive (no {INDEX})")
        declared = sum(info.file_size for info in infos.values())
        if declared > max_array_bytes + max_bytes:
            raise SegvizError(f"{source}: its members would take {declared:,} bytes once unpacked, beyond the limit")

        def member(name: str) -> bytes:
            try:
                return archive.read(name)
            except (zipfile.BadZipFile, zlib.error, EOFError, OSError, ValueError, NotImplementedError) as exc:
                raise SegvizError(f"{source}: member {name} is damaged ({exc})") from None

        index = parse_json_object(member(INDEX), source=f"{source}: {INDEX}", expected_format=FORMAT)
        if index.get("version") != VERSION:
            raise SegvizError(f"{source}: bundle version {index.get('version')!r} is not supported "
                              f"(this segviz reads version {VERSION})")
        if kind is not None and index.get("kind") != kind:
            raise SegvizError(f"{source}: holds {index.get('kind')!r}, not {kind!r}")
        listed = index.get("members")
        if not isinstance(listed, dict) or not all(isinstance(k, str) and isinstance(v, str)
                                                    for k, v in listed.items()):
            raise SegvizError(f"{source}: {INDEX} has no valid member list")
        extra = set(infos) - set(listed) - {INDEX}
        missing = set(listed) - set(infos)
        if missing or extra:
            raise SegvizError(f"{source}: archive members differ from its index "
                              f"(missing {sorted(missing)[:3]}, unlisted {sorted(extra)[:3]})")
        bundle = Bundle(kind=str(index.get("kind")), source=source)
        for name, expected in listed.items():
            data = member(name)
            if hashlib.sha256(data).hexdigest() != expected:
                raise SegvizError(f"{source}: member {name} does not match its checksum (damaged file)")
            stem, _, ext = name.rpartition(".")
            bundle.digests[stem] = expected
            if ext == "json":
                bundle.documents[stem] = parse_json_object(data, source=f"{source}: {name}")
            elif ext == "npy":
                bundle.arrays[stem] = _read_npy(data, stem, source, budget)
            else:
                raise SegvizError(f"{source}: unexpected member {name}")
    return bundle
