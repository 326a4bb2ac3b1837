"""WordNet for NLTK's METEOR without a download.

NLTK finds WordNet only inside an ``nltk_data/corpora/wordnet/`` folder on its search
path, and wants a ``lexnames`` file that Debian's ``wordnet-base`` package lacks. This
module copies Debian's database files (``apt-get install wordnet-base wordnet-sense-index``
puts them in ``/usr/share/wordnet``) into such a folder under the mtlib cache and writes
``lexnames`` from the table in the ``lexnames(5WN)`` manual page. Users with internet can
instead run ``nltk.download('wordnet')``.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from mtlib import paths

__all__ = ["ensure_wordnet", "wordnet_available", "WORDNET_ENV", "MissingWordNetError"]

WORDNET_ENV = "WNSEARCHDIR"  # WordNet's own variable for the database folder
_DEBIAN_DIR = Path("/usr/share/wordnet")

# lexnames(5WN): the 45 lexicographer files, numbered 00..44 in this order.
_LEXNAMES = (
    "adj.all adj.pert adv.all noun.Tops noun.act noun.animal noun.artifact noun.attribute "
    "noun.body noun.cognition noun.communication noun.event noun.feeling noun.food noun.group "
    "noun.location noun.motive noun.object noun.person noun.phenomenon noun.plant "
    "noun.possession noun.process noun.quantity noun.relation noun.shape noun.state "
    "noun.substance noun.time verb.body verb.change verb.cognition verb.communication "
    "verb.competition verb.consumption verb.contact verb.creation verb.emotion verb.motion "
    "verb.perception verb.possession verb.social verb.stative verb.weather adj.ppl"
).split()
_POS_NUMBER = {"noun": 1, "verb": 2, "adj": 3, "adv": 4}


class MissingWordNetError(RuntimeError, ImportError):
    """WordNet is not installed. A RuntimeError, as before, and an ImportError, so that commands
    report it as they report a missing optional package: one line saying what to install."""


def _lexnames_text() -> str:
    return "".join(f"{i:02d}\t{name}\t{_POS_NUMBER[name.split('.')[0]]}\n" for i, name in enumerate(_LEXNAMES))


def _nltk_has_wordnet() -> bool:
    import nltk
    try:
        nltk.data.find("corpora/wordnet")
        return True
    except LookupError:
        try:
            nltk.data.find("corpora/wordnet.zip")
            return True
        except LookupError:
            return False


def _source_dir() -> Path | None:
    env = os.environ.get(WORDNET_ENV)
    for cand in ([Path(env)] if env else []) + [_DEBIAN_DIR]:
        if (cand / "data.noun").exists() and (cand / "index.sense").exists():
            return cand
    return None


def ensure_wordnet() -> None:
    """Makes WordNet visible to NLTK, or raises :class:`MissingWordNetError` (a ``RuntimeError``)
    saying how to install it."""
    import nltk

    if _nltk_has_wordnet():
        return
    src = _source_dir()
    if src is None:
        raise MissingWordNetError(
            "METEOR needs WordNet, which was not found. Install it with "
            "`apt-get install wordnet-base wordnet-sense-index` (Debian/Ubuntu), set "
            f"{WORDNET_ENV} to a WordNet 3.0 dict folder, or run nltk.download('wordnet')."
        )
    root = paths.cache_dir() / "nltk_data"
    target = root / "corpora" / "wordnet"
    target.mkdir(parents=True, exist_ok=True)
    # Copies, not links: NLTK refuses files whose real path leaves its corpus folder.
    for f in src.iterdir():
        dest = target / f.name
        if f.is_file() and not dest.exists():
            tmp = dest.with_suffix(dest.suffix + ".part")
            shutil.copyfile(f, tmp)
            tmp.replace(dest)
    lex = target / "lexnames"
    if not lex.exists():
        lex.write_text(_lexnames_text(), encoding="utf-8")
    if str(root) not in nltk.data.path:
        nltk.data.path.append(str(root))
    if not _nltk_has_wordnet():  # pragma: no cover - would mean NLTK changed its lookup
        raise RuntimeError(f"prepared {target} but NLTK still cannot find WordNet")


def wordnet_available() -> bool:
    """True when METEOR can run (WordNet present or installable from Debian's files)."""
    try:
        ensure_wordnet()
    except RuntimeError:
        return False
    return True
