"""The fault matrix, round three (issue 43): signals are never lost.

A SIGTERM or SIGINT that arrives while a finaliser (``__del__``) runs cannot be raised there: Python prints
"Exception ignored ..." and goes on.  The command line remembers the signal and raises it at its next step, so
the command still ends with ``segviz: terminated`` (143) or ``segviz: interrupted`` (130) and writes nothing.
The moment is made exact here: a finaliser that signals its own process runs in the middle of reading.
"""
from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
CHOI = ROOT / "sample_corpora" / "choi"

#: the command run with a finaliser that signals its own process while the corpus is read
SCRIPT = """
import os, signal, sys
import segviz.readers as readers
from segviz.cli import main

SIGNUM = int(sys.argv[1])


class Finaliser:
    def __del__(self):
        os.kill(os.getpid(), SIGNUM)
        total = 0
        for i in range(100000):   # Python runs the handler here, inside __del__, where it cannot raise
            total += i


read = readers.READERS["choi"]


def reading(*args, **kwargs):
    Finaliser()                   # made and dropped: its __del__ runs at once
    return read(*args, **kwargs)


readers.READERS["choi"] = reading
sys.exit(main(sys.argv[2:]))
"""


@pytest.mark.parametrize("signum,status,line", [(signal.SIGTERM, 143, "segviz: terminated"),
                                                (signal.SIGINT, 130, "segviz: interrupted")],
                         ids=["SIGTERM", "SIGINT"])
@pytest.mark.parametrize("quiet", [False, True], ids=["progress", "quiet"])
def test_a_signal_during_a_finaliser_ends_the_command(tmp_path, signum, status, line, quiet):
    out = tmp_path / "out.jsonl"
    argv = ["segment", str(CHOI / "3-11_0.ref"), "-o", str(out), *(["--quiet"] if quiet else [])]
    proc = subprocess.run([sys.executable, "-c", SCRIPT, str(int(signum)), *argv], capture_output=True, text=True,
                          cwd=tmp_path, timeout=600, env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert proc.returncode == status, proc.stderr
    assert proc.stderr.endswith(line + "\n"), proc.stderr
    assert "Exception ignored" not in proc.stderr and "Traceback" not in proc.stderr, proc.stderr
    assert not out.exists()   # raised at the next step, before the output


def test_a_signal_lost_at_the_very_end_still_sets_the_status(capsys):
    """The last safe point is the end of the command: a signal swallowed after the last step changes the exit
    status, even though the work was done."""
    from segviz.cli import main
    from segviz.commands import interrupts

    class Finaliser:
        def __del__(self):
            os.kill(os.getpid(), signal.SIGTERM)
            for _ in range(100000):
                pass

    def command(args):
        Finaliser()
        return 0

    import segviz.commands.scoring as scoring

    original = scoring._cmd_baselines
    scoring._cmd_baselines = command
    try:
        assert main(["baselines", str(CHOI / "3-11_0.ref")]) == 143
    finally:
        scoring._cmd_baselines = original
    assert capsys.readouterr().err == "segviz: terminated\n"
    interrupts.check()   # reported: nothing pending any more
