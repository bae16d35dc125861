"""The session's shared parses: what comes back from the cache is the corpus the reader makes, a file is parsed
once however many readers ask, damaged or stale entries are never used, and the readers meet in the middle."""
from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from segviz import read_corpus
from segviz.app.reading_cache import ReadingCache, decode_entry, encode_entry, read_files_shared
from segviz.app.tasks import read_corpus_task
from segviz.errors import SegvizError
from segviz.events import run_to_end

ROOT = Path(__file__).resolve().parents[1]
SAMPLE = ROOT / "sample_corpora" / "reuters_sample.sgm"
CHOI = sorted((ROOT / "sample_corpora" / "choi").rglob("*.ref"))

PROSE = ("Chapter One\n\nIt was a bright cold day in April, and the clocks were striking thirteen. Winston\n"
         "Smith slipped quickly through the glass doors.\n\n\"Hello,\" he said. The hallway smelt of boiled\n"
         "cabbage.\n\nChapter Two\n\nOutside, even through the shut window-pane, the world looked cold.\n")


def same(a, b) -> bool:
    return (a.documents == b.documents and a.files == b.files and a.readings == b.readings and a.name == b.name
            and a.has_reference == b.has_reference)


def corpora(tmp_path):
    text = tmp_path / "novel.txt"
    text.write_text(PROSE, encoding="utf-8")
    jsonl = tmp_path / "docs.jsonl"
    jsonl.write_text(json.dumps({"id": "a", "sentences": ["One sentence.", "Two sentences.", "Three."],
                                 "segments": [2, 1], "paragraph_starts": [True, False, True]}) + "\n"
                     + json.dumps({"id": "b", "sentences": ["Four.", "Five."], "segments": [2]}) + "\n",
                     encoding="utf-8")
    return [(SAMPLE, {}), (CHOI[0], {}), (text, {}), (text, {"headings": True}), (jsonl, {})]


def test_an_entry_decodes_to_the_corpus_the_reader_makes(tmp_path):
    for path, options in corpora(tmp_path):
        corpus = read_corpus(path, **options)
        assert same(decode_entry(encode_entry(corpus, str(path)), str(path)), corpus), path


def test_another_spelling_of_the_path_gets_its_own_spelling_back(tmp_path, monkeypatch):
    monkeypatch.chdir(SAMPLE.parent)
    relative = read_corpus(SAMPLE.name)
    entry = encode_entry(relative, SAMPLE.name)
    assert same(decode_entry(entry, str(SAMPLE)), read_corpus(SAMPLE))


def test_the_task_reads_through_the_cache_and_gives_the_same_corpus(tmp_path):
    paths = [str(p) for p in CHOI[:4]]
    direct = run_to_end(read_corpus_task(paths))
    first = run_to_end(read_corpus_task(paths, reading_cache=tmp_path))
    assert len(list(tmp_path.glob("*.jsonl"))) == 4 and not list(tmp_path.glob("*.claim"))
    again = run_to_end(read_corpus_task(paths, reading_cache=tmp_path, backwards=True))
    assert same(first, direct) and same(again, direct)


def test_a_file_is_parsed_once_however_many_readers_ask(tmp_path):
    files = [str(p) for p in CHOI[:5]]
    parsed = []

    def read(path, options):
        parsed.append(path)
        return read_corpus(path, **options)

    cache = ReadingCache(tmp_path)
    for backwards in (False, True, False):
        got = dict(read_files_shared(files, read, {}, cache, backwards=backwards))
        assert sorted(got) == list(range(5)) and all(c is not None for c in got.values())
    assert sorted(parsed) == sorted(files)


def test_a_file_another_reader_holds_is_taken_last_and_waited_for(tmp_path):
    files = [str(p) for p in CHOI[:3]]
    cache = ReadingCache(tmp_path)
    key = cache.key(Path(files[0]).read_bytes(), {}, files[0])
    assert cache.claim(key)   # "another reader" (this process: alive) is parsing files[0]
    reader = read_files_shared(files, lambda p, o: read_corpus(p, **o), {}, cache)
    assert [next(reader)[0], next(reader)[0]] == [1, 2]
    assert next(reader) == (0, None)   # waiting for the other reader
    cache.store(key, files[0], read_corpus(files[0]))
    cache.release(key)
    i, corpus = next(reader)
    assert i == 0 and same(corpus, read_corpus(files[0]))


def test_a_claim_whose_reader_died_is_taken_over(tmp_path):
    files = [str(CHOI[0])]
    cache = ReadingCache(tmp_path)
    key = cache.key(Path(files[0]).read_bytes(), {}, files[0])
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    (tmp_path / f"{key}.claim").write_text(dead.stdout.strip())
    got = dict(read_files_shared(files, lambda p, o: read_corpus(p, **o), {}, cache))
    assert same(got[0], read_corpus(files[0])) and not (tmp_path / f"{key}.claim").exists()


@pytest.mark.parametrize("damage", [b"", b"{not json\n", b'{"version": 999}\n',
                                    b'{"version": 1, "documents": [{"name": "x", "title": "", "sentences": 3, '
                                    b'"paragraph_starts": null}], "files": ["\\u0000"], "readings": [], '
                                    b'"name": "x", "has_reference": true, "source": "s"}\n[0, ["a"], ["a"]]\n'])
def test_a_damaged_entry_is_never_used(tmp_path, damage):
    path = str(CHOI[0])
    cache = ReadingCache(tmp_path)
    key = cache.key(Path(path).read_bytes(), {}, path)
    (tmp_path / f"{key}.jsonl").write_bytes(damage)
    assert cache.load(key, path) is None
    corpus = run_to_end(read_corpus_task([path], reading_cache=tmp_path))
    assert same(corpus, read_corpus(path))


def test_a_changed_file_or_other_options_are_another_entry(tmp_path):
    text = tmp_path / "a.txt"
    text.write_text(PROSE, encoding="utf-8")
    cache_dir = tmp_path / "cache"
    cache_dir.mkdir()
    plain = run_to_end(read_corpus_task([str(text)], reading_cache=cache_dir))
    headed = run_to_end(read_corpus_task([str(text)], reading_cache=cache_dir, headings=True))
    assert same(headed, read_corpus(text, headings=True)) and not same(headed, plain)
    text.write_text(PROSE.replace("April", "May"), encoding="utf-8")
    changed = run_to_end(read_corpus_task([str(text)], reading_cache=cache_dir))
    assert same(changed, read_corpus(text)) and "May" in " ".join(changed.sentence_texts())
    assert len(list(cache_dir.glob("*.jsonl"))) == 3


def test_a_missing_cache_directory_only_costs_the_parse(tmp_path):
    gone = tmp_path / "gone"
    corpus = run_to_end(read_corpus_task([str(SAMPLE)], reading_cache=gone))
    assert same(corpus, read_corpus(SAMPLE)) and not gone.exists()


def test_bad_input_is_still_one_error_line(tmp_path):
    empty = tmp_path / "empty.txt"
    empty.write_text("")
    with pytest.raises(SegvizError, match="empty"):
        run_to_end(read_corpus_task([str(empty)], reading_cache=tmp_path))
    assert not list(tmp_path.glob("*.claim"))


def test_two_processes_meet_in_the_middle(tmp_path):
    """A forward and a backward reader of the same files, side by side: each file parsed once in all."""
    files = [str(p) for p in CHOI[:8]]
    script = ("import json, sys\n"
              "from segviz.app.reading_cache import ReadingCache, read_files_shared\n"
              "from segviz import read_corpus\n"
              "parsed = []\n"
              "def read(p, o):\n"
              "    parsed.append(p)\n"
              "    return read_corpus(p, **o)\n"
              "files = json.loads(sys.argv[1])\n"
              "got = dict(read_files_shared(files, read, {}, ReadingCache(sys.argv[2]), backwards=sys.argv[3] == 'b'))\n"
              "assert sorted(i for i, c in got.items() if c is not None) == list(range(len(files)))\n"
              "print(json.dumps(parsed))\n")
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    procs = [subprocess.Popen([sys.executable, "-c", script, json.dumps(files), str(tmp_path), way],
                              stdout=subprocess.PIPE, text=True, env=env) for way in ("f", "b")]
    parsed = [json.loads(p.communicate(timeout=120)[0]) for p in procs]
    assert all(p.returncode == 0 for p in procs)
    assert sorted(parsed[0] + parsed[1]) == sorted(files)


def test_a_file_rewritten_while_it_is_parsed_is_not_stored(tmp_path):
    text = tmp_path / "a.txt"
    text.write_text(PROSE, encoding="utf-8")
    cache_dir = tmp_path / "cache"
    cache_dir.mkdir()

    def read_then_rewrite(path, options):
        corpus = read_corpus(path, **options)
        text.write_text(PROSE.replace("April", "May"), encoding="utf-8")
        return corpus

    got = dict(read_files_shared([str(text)], read_then_rewrite, {}, ReadingCache(cache_dir)))
    assert "April" in " ".join(got[0].sentence_texts())
    assert not list(cache_dir.glob("*.jsonl"))   # its parse is of bytes no longer there: not shared


def tampered_entries():
    good = encode_entry(read_corpus(CHOI[0]), str(CHOI[0])).decode("utf-8").split("\n")
    header = json.loads(good[0])

    def with_header(**changes):
        return "\n".join([json.dumps({**header, **changes})] + good[1:])

    reading = header["readings"][0]
    yield with_header(has_reference="yes")
    yield with_header(name=7)
    yield with_header(readings=[{**reading, "sentences": "many"}])
    yield with_header(readings=[{**reading, "detected": 1}])
    yield with_header(readings=[{**reading, "documents": -3}])
    yield with_header(documents=[{**header["documents"][0], "paragraph_starts": ["yes"]}])
    yield "\n".join([good[0], json.dumps([-1] + json.loads(good[1])[1:])] + good[2:])   # a chunk of "the last"
    yield "[" * 100_000 + "]" * 100_000


def test_an_entry_with_the_wrong_types_is_never_used(tmp_path):
    path = str(CHOI[0])
    cache = ReadingCache(tmp_path)
    key = cache.key(Path(path).read_bytes(), {}, path)
    assert decode_entry(encode_entry(read_corpus(path), path), path) is not None
    for text in tampered_entries():
        (tmp_path / f"{key}.jsonl").write_text(text, encoding="utf-8")
        assert cache.load(key, path) is None, text[:200]


def test_two_files_with_the_same_bytes_keep_their_own_names(tmp_path):
    first, second = tmp_path / "a.sgm", tmp_path / "b.sgm"
    first.write_bytes(SAMPLE.read_bytes())
    second.write_bytes(SAMPLE.read_bytes())
    cache_dir = tmp_path / "cache"
    cache_dir.mkdir()
    corpus = run_to_end(read_corpus_task([str(first), str(second)], reading_cache=cache_dir))
    assert same(corpus, read_corpus([first, second]))
    assert corpus.documents[-1].name.startswith("b.sgm#")


def _dead_pid() -> int:
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()
    return child.pid


def test_directories_of_windows_that_died_are_removed_and_nothing_else(tmp_path):
    from segviz.app.reading_cache import SESSION_PREFIX
    from segviz.app.temp_dirs import OWNER_FILE, remove_abandoned as remove_abandoned_sessions

    def session(name: str, owner: str | None) -> Path:
        d = tmp_path / (SESSION_PREFIX + name)
        d.mkdir()
        (d / "entry.jsonl").write_text("{}\n")
        if owner is not None:
            (d / OWNER_FILE).write_text(owner)
        return d

    dead = session("dead", str(_dead_pid()))
    alive = session("alive", str(os.getppid()))
    ours = session("ours", str(os.getpid()))
    no_owner = session("no-owner", None)
    garbled = session("garbled", "not a pid")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / OWNER_FILE).write_text(str(_dead_pid()))
    (elsewhere / "keep.txt").write_text("precious")
    (tmp_path / (SESSION_PREFIX + "link")).symlink_to(elsewhere, target_is_directory=True)
    (tmp_path / (SESSION_PREFIX + "file")).write_text(str(_dead_pid()))
    unrelated = tmp_path / "other-dead"
    unrelated.mkdir()
    (unrelated / OWNER_FILE).write_text(str(_dead_pid()))

    assert remove_abandoned_sessions(tmp_path) == [dead]
    assert not dead.exists()
    for kept in (alive, ours, no_owner, garbled, unrelated, tmp_path / (SESSION_PREFIX + "file")):
        assert kept.exists()
    assert (elsewhere / "keep.txt").read_text() == "precious"   # a link is never followed
    assert remove_abandoned_sessions(tmp_path / "missing") == []


def test_a_new_session_directory_names_its_owner_and_sweeps_abandoned_ones(tmp_path, monkeypatch):
    import tempfile

    from segviz.app.reading_cache import SESSION_PREFIX, new_session_directory
    from segviz.app.temp_dirs import OWNER_FILE

    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    abandoned = tmp_path / (SESSION_PREFIX + "old")
    abandoned.mkdir()
    (abandoned / OWNER_FILE).write_text(str(_dead_pid()))
    session = new_session_directory()
    try:
        assert not abandoned.exists()
        assert Path(session.name).parent == tmp_path
        assert (Path(session.name) / OWNER_FILE).read_text() == str(os.getpid())
    finally:
        session.cleanup()
    assert not Path(session.name).exists()


@pytest.mark.skipif(not Path("/proc/self/stat").is_file(), reason="needs /proc to see a zombie")
def test_a_killed_window_not_yet_collected_by_its_parent_counts_as_dead(tmp_path):
    from segviz.app.reading_cache import SESSION_PREFIX
    from segviz.app.temp_dirs import OWNER_FILE, remove_abandoned as remove_abandoned_sessions

    child = subprocess.Popen([sys.executable, "-c", "pass"])
    try:
        hang_guard = time.monotonic() + 120   # a count of tries was a clock: a loaded machine needed more
        # exited, not yet waited for: a zombie
        while Path(f"/proc/{child.pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z":
            assert time.monotonic() < hang_guard, "the child never exited"
            time.sleep(0.01)
        session = tmp_path / (SESSION_PREFIX + "zombie")
        session.mkdir()
        (session / OWNER_FILE).write_text(str(child.pid))
        assert remove_abandoned_sessions(tmp_path) == [session]
    finally:
        child.wait()


def test_an_entry_is_written_line_by_line_and_reads_back(tmp_path):
    # each line encoded on its own (one encode of a whole 10^6-sentence entry held the GIL for 0.6 s): the lines
    # end with their own line end, joined they are the entry, and the stored file is that entry
    from segviz.app.reading_cache import entry_lines

    corpus = read_corpus(CHOI[0])
    lines = entry_lines(corpus, str(CHOI[0]))
    assert len(lines) >= 2 and all(line.endswith(b"\n") and line.count(b"\n") == 1 for line in lines)
    assert b"".join(lines) == encode_entry(corpus, str(CHOI[0]))
    cache = ReadingCache(tmp_path)
    cache.store("k", str(CHOI[0]), corpus)
    assert (tmp_path / "k.jsonl").read_bytes() == b"".join(lines)
    assert same(cache.load("k", str(CHOI[0])), corpus)
