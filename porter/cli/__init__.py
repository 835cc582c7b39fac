"""Command line front end.  Each sub-command lives in its own module with
``register(subparsers)`` and ``run(args) -> int``; no porting logic here."""
