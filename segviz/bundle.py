"""One file per saved model: a validated zip archive of JSON documents and numpy arrays, written atomically.

A trained segmenter and the language models behind its relevance questions are one unit: saving writes both into
a single archive beside the target and moves it into place with one rename (:func:`segviz.persist.atomic_write`),
so a reader sees the old model or the new one, never a new segmenter paired with old language models.

Layout (a plain zip; ``unzip -l`` shows it)::

    bundle.json          {"format": "segviz-bundle", "version": 1, "kind": ..., "members": {name: sha256}}
    NAME.json            JSON documents (e.g. ``segmenter.json``, ``lm/models.json``)
    NAME.npy             arrays in numpy's ``.npy`` format (never object arrays, never pickle)

Reading validates before use: the archive's size, each member's declared size (before anything is unpacked: the
total may not exceed :data:`MAX_UNPACK_RATIO` times the file, a JSON member :data:`~segviz.persist.MAX_JSON_BYTES`,
a ``.npy`` member exactly its header plus the array its header declares), zip's CRC-32 (a flipped bit is caught),
the SHA-256 of every member against ``bundle.json``, each ``.npy`` header's dtype (:data:`LOADED_DTYPES`), number of
dimensions and shape before the array is allocated, and an upper bound on the total it will allocate, counted as
*loaded* (a ``uint8`` member loads as ``int64``, eight times its stored size) and no larger than the unpacked sizes
the file may declare.  A member using a zip feature segviz never writes (encryption, a method other than stored or
deflated, a "version needed to extract" above 6.3) and any other :mod:`zipfile` error is "not a segviz model
archive".  Members are unpacked as streams, never beyond their declared size.  Arrays are returned as ``int64``, ``float64`` or
``bool`` in the machine's byte order, whatever narrower type or byte order the file used.
"""
from __future__ import annotations

import hashlib
import io
import json
import math
import os
import struct
import zipfile
import zlib
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from .errors import SegvizError
from .persist import MAX_JSON_BYTES, atomic_write, parse_json_object, read_bytes_limited

FORMAT = "segviz-bundle"
VERSION = 1
INDEX = "bundle.json"

#: the largest bundle file segviz opens, and the most its arrays may take once loaded
MAX_BUNDLE_BYTES = 2 * 1024 ** 3
MAX_ARRAY_BYTES = 4 * 1024 ** 3
#: the most a bundle's members may declare once unpacked, as a multiple of the file's size (with a floor of
#: :data:`UNPACK_FLOOR_BYTES`): segviz's own bundles unpack to about 3 times their size, a "zip bomb" of zeros to
#: 1,000 times; checked on the declared sizes before anything is unpacked
MAX_UNPACK_RATIO = 100
UNPACK_FLOOR_BYTES = 64 * 1024 ** 2
#: arrays are vectors or matrices (every array segviz stores is one of them)
MAX_ARRAY_DIMS = 2
#: the dtypes a bundle may hold, as ``(kind, itemsize)`` -> the dtype the array is loaded as.  Numbers and
#: booleans only, never objects or pickles; no float16 or long double (no computation of segviz takes them, and
#: a half-precision array passed every check only to break the first kernel that met it)
LOADED_DTYPES = {
    ("b", 1): np.dtype(bool),
    **{("i", size): np.dtype(np.int64) for size in (1, 2, 4, 8)},
    **{("u", size): np.dtype(np.int64) for size in (1, 2, 4)},
    **{("f", size): np.dtype(np.float64) for size in (4, 8)},
}
#: the most of a ``.npy`` member read before its header is parsed (numpy's headers are at most 64 kB)
_NPY_HEADER_BYTES = 65536 + 16
_CHUNK = 1 << 20


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
    if _loaded_dtype(a.dtype) is None:
        raise SegvizError(f"cannot store an array of dtype {a.dtype} (numbers only; segviz never pickles)")
    if a.ndim > MAX_ARRAY_DIMS:
        raise SegvizError(f"cannot store an array of {a.ndim} dimensions (at most {MAX_ARRAY_DIMS})")
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


def _loaded_dtype(dtype: np.dtype) -> np.dtype | None:
    """The dtype an array stored as ``dtype`` is loaded as, or None when a bundle may not hold it."""
    if dtype.hasobject or dtype.fields is not None or dtype.subdtype is not None:
        return None
    return LOADED_DTYPES.get((dtype.kind, dtype.itemsize))


#: what :mod:`zipfile` raises on an archive it cannot read: damage, encryption ("password required" is a
#: RuntimeError), an unknown method or "version needed to extract" (NotImplementedError), a bad header field
_ZIP_ERRORS = (zipfile.BadZipFile, zipfile.LargeZipFile, zlib.error, EOFError, OSError, ValueError,
               NotImplementedError, RuntimeError, struct.error, OverflowError, KeyError, IndexError, TypeError,
               UnicodeDecodeError)
#: the zip features a bundle uses: no encryption, stored or deflated members, "version needed" at most 6.3
_ENCRYPTED_FLAG = 0x1
_METHODS = (zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED)
_MAX_EXTRACT_VERSION = 63


def _one_line(exc: BaseException) -> str:
    return " ".join(str(exc).split())[:200] or type(exc).__name__


def _check_member_header(info: zipfile.ZipInfo, source: str, what: str = "segviz model archive") -> None:
    """Refuse, before anything is unpacked, a member using a zip feature segviz never writes."""
    if info.flag_bits & _ENCRYPTED_FLAG:
        why = "it is encrypted"
    elif info.compress_type not in _METHODS:
        why = f"it is compressed with method {info.compress_type}"
    elif info.extract_version > _MAX_EXTRACT_VERSION:
        why = f"it needs zip version {info.extract_version // 10}.{info.extract_version % 10} to extract"
    else:
        return
    raise SegvizError(f"{source}: not a {what} (member {_show_name(info.filename)}: {why})")


def _show_name(name: str) -> str:
    # a member name is the file's own data: shown escaped, never as terminal control characters
    return ascii(name)[1:-1][:100]


def _unpack(archive: zipfile.ZipFile, info: zipfile.ZipInfo, source: str, digest,
            what: str = "segviz model archive") -> _MemberStream:
    try:
        return _MemberStream(archive.open(info), info, source, digest)
    except _ZIP_ERRORS as exc:
        raise SegvizError(f"{source}: not a {what} (member {_show_name(info.filename)}: "
                          f"{_one_line(exc)})") from None


class DataArchive:
    """A zip archive of input data (NLTK's ``brown.zip``), read with the checks of any input.

    The file is read whole by :func:`~segviz.persist.read_bytes_limited` (a regular file of at most ``max_bytes``:
    a FIFO, a device such as ``/dev/zero`` through a link, or a directory is refused at once); every member's
    zip features are checked before anything is unpacked (no encryption, stored or deflated, a known "version
    needed"), each declares at most ``max_member_bytes`` and all together at most :data:`MAX_UNPACK_RATIO` times
    the file (64 MiB floor), and a member is unpacked as a stream never beyond its declared size, its CRC-32
    checked.  Every fault is one :class:`SegvizError` naming the file: ``not a WHAT (...)``."""

    def __init__(self, path: str | os.PathLike, *, what: str, max_bytes: int, max_member_bytes: int):
        self.source, self.what, self.max_member_bytes = str(path), what, max_member_bytes
        raw = read_bytes_limited(path, max_bytes, what=what)
        try:
            self._archive = zipfile.ZipFile(io.BytesIO(raw))
            infos = self._archive.infolist()
        except _ZIP_ERRORS as exc:
            raise SegvizError(f"{self.source}: not a {what} ({_one_line(exc)})") from None
        self._infos = {info.filename: info for info in infos}
        for info in infos:
            _check_member_header(info, self.source, what)
            if info.file_size > max_member_bytes:
                raise SegvizError(f"{self.source}: not a {what} (member {_show_name(info.filename)} would take "
                                  f"{info.file_size:,} bytes once unpacked, more than {max_member_bytes:,})")
        declared = sum(info.file_size for info in infos)
        if declared > max(UNPACK_FLOOR_BYTES, MAX_UNPACK_RATIO * len(raw)):
            raise SegvizError(f"{self.source}: not a {what} (its members would take {declared:,} bytes once "
                              f"unpacked, more than {MAX_UNPACK_RATIO} times the file)")

    def __contains__(self, name: str) -> bool:
        return name in self._infos

    def read(self, name: str) -> bytes:
        """The bytes of member ``name`` (one line when it is missing or damaged)."""
        info = self._infos.get(name)
        if info is None:
            raise SegvizError(f"{self.source}: no {_show_name(name)} inside (expected a {self.what})")
        stream = _unpack(self._archive, info, self.source, hashlib.sha256(), self.what)
        data = stream.read(info.file_size)
        stream.finish()
        return data

    def close(self) -> None:
        self._archive.close()

    def __enter__(self) -> DataArchive:
        return self

    def __exit__(self, *exc) -> None:
        self.close()


class _MemberStream:
    """A member unpacked as a stream: never more than its declared size, every byte fed to ``digest``, damage
    (a bad CRC, a short stream) one :class:`SegvizError`."""

    def __init__(self, handle, info: zipfile.ZipInfo, source: str, digest):
        self.handle, self.info, self.source, self.digest = handle, info, source, digest
        self.left = info.file_size

    def _fail(self, exc) -> SegvizError:
        return SegvizError(f"{self.source}: member {_show_name(self.info.filename)} is damaged ({exc})")

    def read(self, n: int) -> bytes:
        n = min(n, self.left)
        try:
            data = self.handle.read(n)
        except _ZIP_ERRORS as exc:
            raise self._fail(_one_line(exc)) from None
        if len(data) != n:
            raise self._fail(f"{self.info.file_size - self.left + len(data)} of {self.info.file_size} bytes")
        self.left -= n
        self.digest.update(data)
        return data

    def read_into(self, buffer: memoryview) -> None:
        done = 0
        while done < len(buffer):
            chunk = self.read(min(_CHUNK, len(buffer) - done))
            buffer[done:done + len(chunk)] = chunk
            done += len(chunk)

    def finish(self) -> None:
        """Read to the end, so that zip's CRC-32 is checked."""
        while self.left:
            self.read(min(_CHUNK, self.left))
        try:
            self.handle.read(1)   # at the end: the CRC check happens here at the latest
        except _ZIP_ERRORS as exc:
            raise self._fail(_one_line(exc)) from None
        finally:
            self.handle.close()


def _read_npy(stream: _MemberStream, name: str, source: str, budget: list[int]) -> np.ndarray:
    """An array from a ``.npy`` member, its header checked before the data is unpacked or allocated."""
    head = stream.read(_NPY_HEADER_BYTES)
    header = io.BytesIO(head)
    try:
        version = np.lib.format.read_magic(header)
        if version == (1, 0):
            shape, fortran, dtype = np.lib.format.read_array_header_1_0(header)
        elif version == (2, 0):
            shape, fortran, dtype = np.lib.format.read_array_header_2_0(header)
        else:
            raise ValueError(f"unsupported .npy version {version}")
    except (ValueError, TypeError, SyntaxError, OverflowError, MemoryError) as exc:
        raise SegvizError(f"{source}: array {name!r} has a corrupt header ({exc})") from None
    loaded = _loaded_dtype(dtype)
    if loaded is None:
        raise SegvizError(f"{source}: array {name!r} has dtype {dtype}, not one a segviz model holds "
                          "(integers, float32/float64, booleans)")
    if not isinstance(shape, tuple) or len(shape) > MAX_ARRAY_DIMS:
        raise SegvizError(f"{source}: array {name!r} has {len(shape) if isinstance(shape, tuple) else '?'} "
                          f"dimensions; a segviz model holds vectors and matrices only")
    if any(isinstance(d, bool) or not isinstance(d, int) or d < 0 for d in shape):
        raise SegvizError(f"{source}: array {name!r} has a negative or non-integer dimension in {shape}")
    # Python integers: numpy's int64 product of (2^32, 2^32) wraps to 0; every dimension is bounded too, so an
    # empty (0, 2^62) array is refused as well
    count = math.prod(shape)
    nbytes = count * dtype.itemsize
    # the budget counts what is LOADED: a uint8 member becomes int64, eight times its stored bytes, and while it
    # is converted the stored bytes are held too (a 512 MiB uint8 member would have taken 4.5 GiB)
    loaded_bytes = count * loaded.itemsize
    peak = loaded_bytes + (nbytes if loaded != dtype else 0)
    if peak > budget[0] or any(d * max(dtype.itemsize, loaded.itemsize) > MAX_ARRAY_BYTES for d in shape):
        raise SegvizError(f"{source}: array {name!r} of shape {shape} would take {loaded_bytes:,} bytes once "
                          f"loaded as {loaded}, beyond the limit ({budget[0]:,} bytes left for the model's arrays)")
    offset = header.tell()
    if stream.info.file_size != offset + nbytes:
        raise SegvizError(f"{source}: array {name!r} is truncated or padded ({stream.info.file_size - offset:,} "
                          f"bytes of data for {nbytes:,})")
    budget[0] -= loaded_bytes
    raw = np.empty(nbytes, dtype=np.uint8)
    start = head[offset:offset + nbytes]
    raw[:len(start)] = np.frombuffer(start, dtype=np.uint8)
    stream.read_into(memoryview(raw)[len(start):])
    stream.finish()
    array = raw.view(dtype).reshape(shape, order="F" if fortran else "C")
    if loaded.kind == "b":
        return np.ascontiguousarray(array.view(np.uint8) != 0)   # any non-zero byte is True, stored as 1
    return np.ascontiguousarray(array.astype(loaded))


def read_bundle(path: str | os.PathLike, *, kind: str | None = None, max_bytes: int = MAX_BUNDLE_BYTES,
                max_array_bytes: int = MAX_ARRAY_BYTES) -> Bundle:
    """Open and validate a bundle; one-line :class:`SegvizError` naming the file and the member for any fault."""
    source = str(path)
    raw = read_bytes_limited(path, max_bytes, what="segviz model file")
    try:
        archive = zipfile.ZipFile(io.BytesIO(raw))
    except _ZIP_ERRORS as exc:
        raise SegvizError(f"{source}: not a segviz model archive ({_one_line(exc)})") from None
    # what the arrays may take once loaded: the stated budget, and no more than the unpacked sizes a file of this
    # size may declare (a 7 MB file cannot hold gigabytes of a segviz model's arrays)
    budget = [int(min(max_array_bytes, max(UNPACK_FLOOR_BYTES, MAX_UNPACK_RATIO * len(raw))))]
    with archive:
        infos = {info.filename: info for info in archive.infolist()}
        if INDEX not in infos:
            raise SegvizError(f"{source}: not a segviz model archive (no {INDEX})")
        for info in infos.values():
            _check_member_header(info, source)
        # declared sizes, before anything is unpacked: a 2 MB file of zeros may declare gigabytes
        declared = sum(info.file_size for info in infos.values())
        allowed = min(max_array_bytes + max_bytes, max(UNPACK_FLOOR_BYTES, MAX_UNPACK_RATIO * len(raw)))
        if declared > allowed:
            raise SegvizError(f"{source}: its members would take {declared:,} bytes once unpacked, more than "
                              f"{MAX_UNPACK_RATIO} times the file (not an archive segviz writes)")
        for info in infos.values():
            if not info.filename.endswith(".npy") and info.file_size > MAX_JSON_BYTES:
                raise SegvizError(f"{source}: member {info.filename} would take {info.file_size:,} bytes once "
                                  f"unpacked, more than the {MAX_JSON_BYTES:,} a JSON document may have")

        def member(name: str, digest=None) -> bytes:
            stream = _unpack(archive, infos[name], source, digest or hashlib.sha256())
            data = stream.read(infos[name].file_size)
            stream.finish()
            return data

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
            stem, _, ext = name.rpartition(".")
            if ext not in ("json", "npy"):
                raise SegvizError(f"{source}: unexpected member {name}")
            digest = hashlib.sha256()
            if ext == "json":
                data = member(name, digest)
            else:
                array = _read_npy(_unpack(archive, infos[name], source, digest), stem, source, budget)
            # checked before the member is used: JSON is parsed, an array kept, only when its bytes are the saved
            if digest.hexdigest() != expected:
                raise SegvizError(f"{source}: member {name} does not match its checksum (damaged file)")
            bundle.digests[stem] = expected
            if ext == "json":
                bundle.documents[stem] = parse_json_object(data, source=f"{source}: {name}")
            else:
                bundle.arrays[stem] = array
    return bundle
