"""Entry point of the training child process (``python -m segviz.app.train_child AUTHKEY_HEX``).

Qt-free: it imports only the engine.  It listens on a private local socket, prints the address on stdout for
the parent (:func:`segviz.app.engine.training_process`), accepts one connection authenticated with the key, and
serves one training session with :func:`segviz.app.engine.serve_training`.
"""
from __future__ import annotations

import sys
from multiprocessing.connection import Listener

from .engine import serve_training


def main(argv: list[str]) -> int:
    authkey = bytes.fromhex(argv[0])
    with Listener(family="AF_UNIX", authkey=authkey) as listener:
        print(listener.address, flush=True)
        with listener.accept() as conn:
            serve_training(conn)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
