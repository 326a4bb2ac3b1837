"""The ``mtlib`` command: one entry point for the package's command-line tools.

    mtlib score ...    score whole test sets or a plain folder in bulk (mtlib.batch)
    mtlib merge ...    combine match caches filled by shards elsewhere
    mtlib files ...    score plain files with any metric (mtlib.score_files)
    mtlib vat ...      variance-aware filtering of test sets or plain files (mtlib.vat.cli)
    mtlib --version    print mtlib's version

The book's own tools (package mtbook, not part of mtlib) work in a clone of its repository.
"""

from __future__ import annotations

import sys
from typing import Sequence

__all__ = ["main"]


def _commands() -> dict:
    from mtlib import batch, score_files
    from mtlib.vat import cli as vat_cli
    return {"score": batch.score_main, "merge": batch.merge_main,
            "files": lambda argv: score_files.main(argv, prog="mtlib files"), "vat": vat_cli.main}


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:1] == ["--version"]:
        from mtlib.version import __version__
        print(f"mtlib {__version__}")
        return 0
    try:
        commands = _commands()
        if not argv or argv[0] in ("-h", "--help"):
            print(__doc__.strip())
            return 0 if argv else 2
        if argv[0] not in commands:
            print(f"error: unknown command {argv[0]!r}; commands: {sorted(commands)}", file=sys.stderr)
            return 2
        from mtlib.textio import broken_pipe
        try:
            code = commands[argv[0]](argv[1:])
            sys.stdout.flush()  # a closed pipe shows here, not in the interpreter's last flush
        except BrokenPipeError:
            return broken_pipe()
    except KeyboardInterrupt:  # Ctrl-C: one line, not a traceback from deep inside torch or SQLite
        print("interrupted: what was finished is kept in the caches (a rerun resumes there); no output is left "
              "half-written", file=sys.stderr)
        return 130
    return code


if __name__ == "__main__":
    sys.exit(main())
