"""Command line: score a hypothesis file against reference files with any registered metric.

Usage::

    python -m mtlib.score_files --metric Otem --hyp hyp.txt --ref ref1.txt ref2.txt
    python -m mtlib.score_files --metric Utem -o order=4 -o tokenize=none --hyp hyp.txt --ref ref.txt
    python -m mtlib.score_files --metric BLEU --lp en-zh --hyp hyp.zh --ref ref.zh

Prints the corpus score and the signature; ``--sentences`` prints one score per line instead.
``--lp`` names the language pair, whose target language sets up language-dependent metrics:
BLEU and Otem/Utem into zh/ja/ko tokenise with zh/ja-mecab/ko-mecab (as sacreBLEU's ``-l`` does
for BLEU), TER uses asian_support; without it they keep their defaults (13a). An explicit
``-o`` option wins.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Sequence

import yaml

from mtlib.metrics import METRICS, get_metric
from mtlib.metrics.languages import target_of
from mtlib.textio import read_lines

__all__ = ["main", "parse_options"]


def parse_options(items: Sequence[str]) -> dict:
    """``KEY=VALUE`` command-line options, values parsed as YAML (``order=2``, ``lowercase=true``)."""
    options = {}
    for item in items:
        if "=" not in item:
            raise ValueError(f"option {item!r} is not KEY=VALUE")
        key, value = item.split("=", 1)
        try:
            options[key] = yaml.safe_load(value)
        except yaml.YAMLError as err:
            raise ValueError(f"option {item!r}: the value is not valid YAML ({str(err).splitlines()[0]}); "
                             "quote strings, e.g. -o \"tokenize='13a'\"") from None
    return options


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m mtlib.score_files", description=__doc__.split("\n")[0])
    parser.add_argument("--metric", required=True, help=f"one of {sorted(METRICS)}")
    parser.add_argument("--hyp", required=True, type=Path, help="hypothesis file, one segment per line")
    parser.add_argument("--ref", required=True, type=Path, nargs="+", help="reference file(s)")
    parser.add_argument("-o", "--option", action="append", default=[], metavar="KEY=VALUE",
                        help="metric setting, e.g. order=2 or tokenize=none (values parsed as YAML)")
    parser.add_argument("--lp", default=None, metavar="SRC-TGT",
                        help="language pair, e.g. en-zh: its target language picks BLEU's and Otem/Utem's tokeniser "
                             "(zh, ja-mecab, ko-mecab; else 13a; as sacreBLEU's -l does for BLEU) and TER's "
                             "asian_support; -o options win (default: no language, 13a)")
    parser.add_argument("--sentences", action="store_true", help="print one score per segment")
    args = parser.parse_args(argv)
    try:
        options = parse_options(args.option)
    except ValueError as err:
        parser.error(str(err))
    try:
        target = None if args.lp is None else target_of(args.lp)
        metric = get_metric(args.metric, target_lang=target, **options)
        hyps = read_lines(args.hyp)
        refs = [read_lines(r) for r in args.ref]
        for path, lines in zip(args.ref, refs):
            if len(lines) != len(hyps):
                raise ValueError(f"{path}: {len(lines)} lines, but {args.hyp} has {len(hyps)}")
        if args.sentences:
            print("\n".join(f"{s:.6f}" for s in metric.sentence_scores(hyps, refs)))
        else:
            print(f"{metric.corpus_score(hyps, refs):.6f}\t{metric.signature}")
    except (ValueError, TypeError, OSError) as err:  # OSError: missing, unreadable file or a folder (textio)
        print(f"error: {err}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
