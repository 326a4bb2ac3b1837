"""Evaluation sets in google-research/mt-metrics-eval's file layout.

One *evaluation set* is a test set (``wmt19``) and a language pair (``en-de``)::

    TESTSET/sources/LP.txt                      one segment per line
    TESTSET/documents/LP.docs                   "DOMAIN DOCNAME" per line (optional)
    TESTSET/references/LP.REFNAME.txt
    TESTSET/system-outputs/LP/SYSNAME.txt       references are copied here too
    TESTSET/human-scores/LP.NAME.LEVEL.score    "SYSNAME SCORE" lines; None = missing

Everything is validated on load; a problem raises ``ValueError`` or
``FileNotFoundError`` naming the file and what is wrong. Human scores are read at the
``sys`` and ``seg`` levels; other levels of the official archive (``doc``, ``domain``) are
listed in :attr:`EvalSet.unread_human_files` and not parsed.
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Sequence

from mtlib import paths
from mtlib.textio import read_lines, warn_unnormalised

__all__ = ["EvalSet", "load_evalset", "evalset_from_files", "list_evalsets", "STANDARD_REFERENCES", "REFERENCE_SOURCES"]

# mt-metrics-eval's standard reference per evaluation set where there is more than one
# reference (meta_info.py); zh-en news uses refA because refB's text is not public.
STANDARD_REFERENCES: dict[tuple[str, str], str] = {
    ("wmt19", "en-de"): "ref",
    ("wmt21.news", "en-de"): "refC",
    ("wmt21.news", "zh-en"): "refA",
    ("wmt21.tedtalks", "en-de"): "refA",
    ("wmt21.tedtalks", "zh-en"): "refB",
}

# Which references were made from which (data README): a paraphrase or a per-sentence
# selection shares text with its sources, so scoring one against the other is not independent.
REFERENCE_SOURCES: dict[tuple[str, str], dict[str, set[str]]] = {
    ("wmt19", "en-de"): {
        "refWMTp": {"ref"}, "refARp": {"refAR"}, "refHQR": {"ref", "refAR"},
        "refHQP": {"refWMTp", "refARp"}, "refHQall": {"ref", "refAR", "refWMTp", "refARp"},
    },
}

_LEVELS_WITH_SYSTEM_LINES = ("sys", "seg")


@dataclass(frozen=True)
class EvalSet:
    """A loaded evaluation set.

    Attributes:
        test_set: e.g. ``"wmt19"``.
        lp: language pair, e.g. ``"en-de"``.
        src: source segments.
        refs: reference name -> segments.
        outputs: system name -> segments (reference copies included, as in MTME).
        human: ``(name, level)`` -> system -> score (``sys``) or list of scores (``seg``);
            ``None`` marks a missing score.
        std_ref: name of the standard reference.
        docs: document name per segment (empty when there is no documents file).
        segment_ids: 0-based line numbers of the segments kept (all lines unless subset).
        unread_human_files: human-score files at levels other than sys/seg (not parsed).

    Beside google-research/mt-metrics-eval's ``data.EvalSet`` (same files, other names):
    ``test_set`` is its ``name``; ``refs`` its ``all_refs`` (``set(refs)``: ``ref_names``);
    ``outputs`` its ``sys_outputs`` (``set(outputs)``: ``sys_names``); :attr:`ref_systems`
    its ``human_sys_names``; ``human[(name, level)]`` its ``Scores(level, name)`` for human
    scores (a system score here is a number, there a one-element list); ``docs`` its
    ``DocsPerSeg()`` (per segment, not ``{doc: [begin, end]}``); ``std_ref`` the same.
    Here ``name`` is ``"TESTSET LP"`` (``"wmt19 en-de"``).
    """

    test_set: str
    lp: str
    src: list[str]
    refs: dict[str, list[str]]
    outputs: dict[str, list[str]]
    human: dict[tuple[str, str], dict[str, object]]
    std_ref: str
    docs: list[str] = field(default_factory=list)
    segment_ids: list[int] = field(default_factory=list)
    unread_human_files: list[str] = field(default_factory=list)

    def __repr__(self) -> str:
        # A summary: the dataclass default would print every segment of every system.
        human = ", ".join(f"{n} ({lev})" for n, lev in sorted(self.human)) or "none"
        return (f"EvalSet({self.name!r}: {self.n_segments} segments, {len(self.mt_systems)} MT systems, "
                f"references {list(self.refs)} (standard {self.std_ref!r}), human scores: {human})")

    @property
    def name(self) -> str:
        return f"{self.test_set} {self.lp}"

    @property
    def n_segments(self) -> int:
        return len(self.src)

    @property
    def ref_systems(self) -> set[str]:
        """Outputs that are references scored as systems (MTME's "human" systems)."""
        return set(self.refs) & set(self.outputs)

    @property
    def mt_systems(self) -> list[str]:
        """Machine-translation systems, sorted by name."""
        return sorted(set(self.outputs) - self.ref_systems)

    @property
    def human_score_names(self) -> list[tuple[str, str]]:
        return sorted(self.human)

    def _human(self, level: str, name: str | None) -> dict[str, object]:
        names = sorted(n for n, lev in self.human if lev == level)
        if name is None:
            if len(names) != 1:
                raise ValueError(
                    f"{self.name}: {len(names)} {level}-level human scores ({names}); pass name=")
            name = names[0]
        if (name, level) not in self.human:
            raise ValueError(f"{self.name}: no {level}-level human score {name!r}; available: {names}")
        return self.human[(name, level)]

    def human_sys(self, name: str | None = None, *, include_refs: bool = False) -> dict[str, float | None]:
        """System-level human scores of the MT systems (``None`` = missing)."""
        scores = self._human("sys", name)
        keep = self.outputs if include_refs else self.mt_systems
        return {s: scores.get(s) for s in sorted(keep)}  # type: ignore[misc]

    def human_seg(self, name: str | None = None, *, include_refs: bool = False) -> dict[str, list[float | None]]:
        """Segment-level human scores of the MT systems."""
        scores = self._human("seg", name)
        keep = self.outputs if include_refs else self.mt_systems
        return {s: scores[s] for s in sorted(keep) if s in scores}  # type: ignore[misc]

    def _ancestry(self, name: str) -> set[str]:
        sources = REFERENCE_SOURCES.get((self.test_set, self.lp), {})
        out, todo = {name}, [name]
        while todo:
            for parent in sources.get(todo.pop(), ()):
                if parent not in out:
                    out.add(parent)
                    todo.append(parent)
        return out

    def independent_references(self, name: str) -> list[str]:
        """References sharing no source with reference ``name`` (neither made from it nor it from them)."""
        if name not in self.refs:
            raise ValueError(f"{self.name}: unknown reference {name!r}; known: {sorted(self.refs)}")
        mine = self._ancestry(name)
        return sorted(r for r in self.refs if r != name and not (self._ancestry(r) & mine))

    def select(self, segment_ids: Sequence[int]) -> "EvalSet":
        """A new EvalSet restricted to the given 0-based positions of this set."""
        ids = list(segment_ids)
        bad = [i for i in ids if not 0 <= i < self.n_segments]
        if bad:
            raise ValueError(f"{self.name}: segment ids out of range 0..{self.n_segments - 1}: {bad[:5]}")

        def pick(xs):
            return [xs[i] for i in ids]

        human = {}
        for key, scores in self.human.items():
            human[key] = {s: pick(v) for s, v in scores.items()} if key[1] == "seg" else dict(scores)
        return EvalSet(self.test_set, self.lp, pick(self.src),
                       {k: pick(v) for k, v in self.refs.items()},
                       {k: pick(v) for k, v in self.outputs.items()}, human, self.std_ref,
                       pick(self.docs) if self.docs else [], pick(self.segment_ids),
                       list(self.unread_human_files))

    def head(self, n: int | None) -> "EvalSet":
        """The first ``n`` segments (all when ``n`` is None)."""
        if n is None:
            return self
        if n < 1:
            raise ValueError(f"head: n must be >= 1 or None, got {n}")
        return self.select(range(min(n, self.n_segments)))


def list_evalsets(root: str | os.PathLike | None = None) -> dict[str, list[str]]:
    """Test set -> language pairs available under the mt-metrics-eval folder."""
    base = paths.mtme_root(root)
    out = {}
    for ts in sorted(p for p in base.iterdir() if (p / "sources").is_dir()):
        out[ts.name] = sorted(f.name[: -len(".txt")] for f in (ts / "sources").glob("*.txt"))
    if not out:
        hint = ""
        if (base / "mt-metrics-eval").is_dir():
            hint = f"; it looks like the data root: pass {base / 'mt-metrics-eval'} instead"
        raise FileNotFoundError(
            f"{base} holds no test set: expected an mt-metrics-eval folder with TESTSET/sources/LP.txt "
            f"(e.g. wmt19/sources/de-en.txt){hint}")
    return out


def _check_count(path: Path, lines: list, expected: int, against: str = "the source") -> None:
    if len(lines) != expected:
        raise ValueError(f"{path}: {len(lines)} lines, but {against} has {expected}")


def _parse_score(path: Path, lineno: int, token: str) -> float | None:
    if token == "None":
        return None
    try:
        value = float(token)
    except ValueError:
        raise ValueError(f"{path}:{lineno}: score {token!r} is neither a number nor None") from None
    if math.isnan(value):
        return None
    return value


def _read_human(path: Path, level: str, systems: set[str], n_seg: int) -> dict[str, object]:
    per_system: dict[str, list[float | None]] = {}
    for lineno, line in enumerate(read_lines(path), 1):
        parts = line.split()
        if len(parts) != 2:
            raise ValueError(f"{path}:{lineno}: expected 'SYSNAME SCORE', got {line!r}")
        sysname, token = parts
        if sysname not in systems:
            raise ValueError(f"{path}:{lineno}: unknown system {sysname!r} (not in system-outputs)")
        per_system.setdefault(sysname, []).append(_parse_score(path, lineno, token))
    if level == "sys":
        dup = [s for s, v in per_system.items() if len(v) != 1]
        if dup:
            raise ValueError(f"{path}: systems with more than one sys-level line: {dup}")
        return {s: v[0] for s, v in per_system.items()}
    wrong = {s: len(v) for s, v in per_system.items() if len(v) != n_seg}
    if wrong:
        raise ValueError(f"{path}: segment-level blocks must have {n_seg} lines; got {wrong}")
    return per_system


def load_evalset(test_set: str, lp: str, root: str | os.PathLike | None = None, *,
                 std_ref: str | None = None) -> EvalSet:
    """Loads and validates one evaluation set.

    Args:
        test_set: e.g. ``"wmt19"`` (see :func:`list_evalsets`).
        lp: language pair, e.g. ``"en-de"``.
        root: the mt-metrics-eval folder; default from :mod:`mtlib.paths`.
        std_ref: standard reference name; default: the only reference, or
            :data:`STANDARD_REFERENCES`, or ``"ref"`` when present.

    Returns:
        The :class:`EvalSet`.
    """
    available = list_evalsets(root)
    if test_set not in available:
        raise ValueError(f"unknown test set {test_set!r}; known: {sorted(available)}")
    if lp not in available[test_set]:
        raise ValueError(f"unknown language pair {lp!r} for {test_set}; known: {available[test_set]}")
    base = paths.mtme_root(root) / test_set

    src_path = base / "sources" / f"{lp}.txt"
    src = read_lines(src_path)
    n = len(src)
    if n == 0:
        raise ValueError(f"{src_path}: empty source file")

    docs: list[str] = []
    docs_path = base / "documents" / f"{lp}.docs"
    if docs_path.exists():
        raw = read_lines(docs_path)
        _check_count(docs_path, raw, n)
        docs = [line.split(" ", 1)[-1] for line in raw]

    refs = {}
    for path in sorted((base / "references").glob(f"{lp}.*.txt")):
        name = path.name[len(lp) + 1: -len(".txt")]
        refs[name] = read_lines(path)
        _check_count(path, refs[name], n)
    if not refs:
        raise FileNotFoundError(f"{base / 'references'}: no reference for {lp}")

    out_dir = base / "system-outputs" / lp
    outputs = {}
    for path in sorted(out_dir.glob("*.txt")):
        outputs[path.name[: -len(".txt")]] = read_lines(path)
        _check_count(path, outputs[path.name[: -len(".txt")]], n)
    if not outputs:
        raise FileNotFoundError(f"{out_dir}: no system outputs")

    human: dict[tuple[str, str], dict[str, object]] = {}
    unread = []
    for path in sorted((base / "human-scores").glob(f"{lp}.*.score")):
        parts = path.name[len(lp) + 1: -len(".score")].rsplit(".", 1)
        if len(parts) != 2:
            raise ValueError(f"{path}: expected a name LP.NAME.LEVEL.score")
        name, level = parts
        if level in _LEVELS_WITH_SYSTEM_LINES:
            human[(name, level)] = _read_human(path, level, set(outputs), n)
        else:
            unread.append(path.name)

    if std_ref is None:
        if len(refs) == 1:
            std_ref = next(iter(refs))
        elif (test_set, lp) in STANDARD_REFERENCES:
            std_ref = STANDARD_REFERENCES[(test_set, lp)]
        elif "ref" in refs:
            std_ref = "ref"
        else:
            raise ValueError(f"{test_set} {lp}: several references {sorted(refs)}; pass std_ref=")
    if std_ref not in refs:
        raise ValueError(f"{test_set} {lp}: unknown reference {std_ref!r}; known: {sorted(refs)}")

    warn_unnormalised({str(out_dir / f"{s}.txt"): v for s, v in outputs.items() if s not in refs},
                      {str(base / "references" / f"{lp}.{r}.txt"): v for r, v in refs.items()})
    return EvalSet(test_set, lp, src, refs, outputs, human, std_ref, docs, list(range(n)), unread)


def evalset_from_files(hyp_files: Sequence[str | os.PathLike], ref_files: Sequence[str | os.PathLike],
                       src_file: str | os.PathLike | None = None, *, lp: str, test_set: str = "files") -> EvalSet:
    """An evaluation set from plain text files: one hypothesis file per system (named by the
    file name without its last extension: ``MSRA.MASS.6942.txt`` is ``MSRA.MASS.6942``, as WMT
    names carry dots), one or more reference files (the first is the standard one) and
    optionally the source. Every file must have the same number of lines; without a
    source, the source segments are empty strings. There are no human scores.
    """
    if len(lp.split("-")) != 2 or not all(lp.split("-")):
        raise ValueError(f"lp must look like 'en-de', got {lp!r}")
    if len(hyp_files) == 0 or len(ref_files) == 0:
        raise ValueError("need at least one hypothesis file and one reference file")

    def name_of(path: Path) -> str:
        return path.stem or path.name  # ".hidden" has no stem

    def read_named(files, what: str) -> dict[str, list[str]]:
        out: dict[str, list[str]] = {}
        for f in map(Path, files):
            if f.is_dir():
                raise IsADirectoryError(f"{what} file {f} is a folder, not a text file; give the file itself")
            if not f.is_file():
                raise FileNotFoundError(f"{what} file {f} does not exist")
            name = name_of(f)
            if name in out:
                raise ValueError(f"two {what} files are both named {name!r} (names come from file names "
                                 f"without their last extension): rename one of them ({f})")
            out[name] = read_lines(f)
        return out

    outputs = read_named(hyp_files, "hypothesis")
    refs = read_named(ref_files, "reference")
    clash = sorted(set(outputs) & set(refs))
    if clash:
        raise ValueError(f"{clash}: names used by both a hypothesis and a reference file")
    first = Path(ref_files[0])
    n = len(refs[name_of(first)])
    if n == 0:
        raise ValueError(f"{first}: empty reference file")
    src = [""] * n
    if src_file is not None:
        if not Path(src_file).is_file():
            raise FileNotFoundError(f"source file {src_file} does not exist")
        src = read_lines(Path(src_file))
        _check_count(Path(src_file), src, n, str(first))
    for path in [*map(Path, hyp_files), *map(Path, ref_files)]:
        lines = (outputs if name_of(path) in outputs else refs)[name_of(path)]
        _check_count(path, lines, n, str(first))
    warn_unnormalised({str(f): outputs[name_of(Path(f))] for f in hyp_files},
                      {str(f): refs[name_of(Path(f))] for f in ref_files})
    return EvalSet(test_set, lp, src, refs, outputs, {}, name_of(first), [], list(range(n)), [])
