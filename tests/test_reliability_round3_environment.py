"""The fault matrix, round three (issue 43): the environment.

* ``segviz gui`` with a Qt platform that cannot start (``QT_QPA_PLATFORM=xcb`` without an X server, a ``DISPLAY``
  naming no server, a Wayland socket that is not there) is one line saying what to do and exit status 2, not Qt's
  abort (134); a headless run that named no platform renders offscreen instead;
* a user who can write neither beside the package nor in a home directory still runs every command: numba caches
  its machine code in a private temporary directory.  Being root, the test cannot take write permission away, so
  it takes it away where numba (and segviz) ask for it: ``tempfile.TemporaryFile`` refuses every directory but the
  temporary one, and the home directory is a file.
"""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
CHOI = ROOT / "sample_corpora" / "choi"
GUARD_S = 600

linux = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="Qt's X11/Wayland platforms (Linux)")


def _free_display() -> str:
    """An X display number no server listens on here."""
    number = 987
    while Path(f"/tmp/.X11-unix/X{number}").exists():
        number += 1
    return f":{number}"


def _env(**changes):
    env = {k: v for k, v in os.environ.items() if k not in {"DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM"}}
    env["PYTHONPATH"] = str(ROOT)
    env.update(changes)
    return env


def _gui(args, env, cwd):
    return subprocess.run([sys.executable, "-m", "segviz", "gui", *args], env=env, cwd=cwd, capture_output=True,
                          text=True, timeout=GUARD_S)


@linux
@pytest.mark.parametrize("env", [{"QT_QPA_PLATFORM": "xcb"}, {"DISPLAY": "{free}"},
                                 {"QT_QPA_PLATFORM": "xcb", "DISPLAY": "{free}"},
                                 {"QT_QPA_PLATFORM": "wayland", "WAYLAND_DISPLAY": "segviz-no-such-socket"}],
                         ids=["xcb-without-display", "display-without-server", "xcb-display-without-server",
                              "wayland-without-compositor"])
def test_a_platform_that_cannot_start_is_one_line_and_status_2(tmp_path, env):
    pytest.importorskip("PySide6")
    env = {k: v.format(free=_free_display()) for k, v in env.items()}
    proc = _gui([], _env(**env), tmp_path)
    assert proc.returncode == 2, (proc.returncode, proc.stderr)
    assert proc.stderr.startswith("segviz: error: Qt cannot start") and proc.stderr.count("\n") == 1, proc.stderr
    assert "QT_QPA_PLATFORM=offscreen" in proc.stderr   # what to do


@pytest.mark.slow
@linux
def test_a_headless_run_whose_display_has_no_server_renders_offscreen(tmp_path):
    pytest.importorskip("PySide6")
    out = tmp_path / "shot.png"
    proc = _gui([str(CHOI / "3-11_0.ref"), "--screenshot", str(out), "--size", "800x600"],
                _env(DISPLAY=_free_display()), tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert out.stat().st_size > 10_000
    assert "rendering offscreen" in proc.stderr


def test_qts_own_words_are_the_reason():
    from segviz.app.platform_check import _reason

    err = ("qt.qpa.xcb: could not connect to display :987\n"
           "qt.qpa.plugin: Could not load the Qt platform plugin \"xcb\" in \"\" even though it was found.\n"
           "This application failed to start because no Qt platform plugin could be initialized.\n\n"
           "Available platform plugins are: minimal, offscreen, xcb.\n")
    assert _reason(err, -6) == ("could not connect to display :987; Could not load the Qt platform plugin \"xcb\" "
                                "in \"\" even though it was found")
    assert _reason("", -6) == "killed by signal 6"


# ------------------------------------------------------------------------------------------------- numba's cache

#: segviz's CLI where ``tempfile.TemporaryFile`` (numba's and segviz's test of a cache directory) refuses every
#: directory outside $ALLOWED_DIR
NO_WRITE = """
import os, sys, tempfile

allowed = os.path.realpath(os.environ["ALLOWED_DIR"])
real = tempfile.TemporaryFile


def refusing(*args, dir=None, **kwargs):
    if dir is not None and not os.path.realpath(dir).startswith(allowed + os.sep):
        raise PermissionError(13, "Permission denied", dir)
    return real(*args, dir=dir, **kwargs)


tempfile.TemporaryFile = refusing
if sys.argv[1] == "--bare":   # numba alone, as it behaves without segviz's choice
    import numba

    numba.njit(cache=True)(lambda x: x)
    sys.exit(0)
from segviz.cli import main

sys.exit(main(sys.argv[1:]))
"""


def _no_write_env(tmp_path: Path) -> dict:
    temporary = tmp_path / "tmp"
    temporary.mkdir()
    home = tmp_path / "home"
    home.write_text("not a directory")
    env = {k: v for k, v in os.environ.items() if k not in {"NUMBA_CACHE_DIR", "XDG_CACHE_HOME"}}
    env.update(PYTHONPATH=str(ROOT), HOME=str(home), TMPDIR=str(temporary), ALLOWED_DIR=str(temporary))
    return env


def test_the_simulation_makes_numba_refuse_to_compile(tmp_path):
    """The test below means something: where nothing is writable, numba alone refuses to compile."""
    proc = subprocess.run([sys.executable, "-c", NO_WRITE, "--bare"], env=_no_write_env(tmp_path), cwd=tmp_path,
                          capture_output=True, text=True, timeout=GUARD_S)
    assert proc.returncode != 0 and "cannot cache function" in proc.stderr, proc.stderr


@pytest.mark.parametrize("args", [["--version"], ["baselines", str(CHOI / "3-11_0.ref")],
                                  ["segment", str(CHOI / "3-11_0.ref"), "-o", "-", "--quiet"]],
                         ids=["version", "baselines", "segment"])
@pytest.mark.slow
def test_without_a_writable_home_or_package_numba_caches_in_a_private_directory(tmp_path, args):
    env = _no_write_env(tmp_path)
    proc = subprocess.run([sys.executable, "-c", NO_WRITE, *args], env=env, cwd=tmp_path, capture_output=True,
                          text=True, timeout=GUARD_S)
    assert proc.returncode == 0, proc.stderr
    assert "cannot cache" not in proc.stderr and "Traceback" not in proc.stderr
    private = Path(env["TMPDIR"]) / f"segviz-numba-{os.getuid()}"
    assert private.is_dir() and private.stat().st_mode & 0o077 == 0
    if args[0] == "segment":
        assert any(private.rglob("*.nbi"))   # the decision rule's kernels compiled and were cached there


def test_a_cache_directory_the_user_names_is_left_alone(tmp_path, monkeypatch):
    from segviz import numba_cache

    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path))
    assert numba_cache.ensure_writable_cache() is None
    assert os.environ["NUMBA_CACHE_DIR"] == str(tmp_path)


def test_a_private_directory_name_taken_by_someone_else_is_not_used(tmp_path, monkeypatch):
    from segviz import numba_cache

    monkeypatch.setattr(numba_cache.tempfile, "tempdir", str(tmp_path))
    taken = tmp_path / f"segviz-numba-{os.getuid()}"
    taken.symlink_to(tmp_path)          # a link planted where the directory would be
    chosen = numba_cache._private_directory()
    assert chosen != str(taken) and Path(chosen).is_dir() and not Path(chosen).is_symlink()
