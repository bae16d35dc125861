"""CLI subcommands: each module exposes ``register(subparsers)``; :mod:`segviz.cli` wires them up."""
