"""The engine on a GPU gives the CPU's numbers. A tiny randomly initialised BERT, saved as a local
Hugging Face folder, stands in for the encoders (no weights need to travel to the GPU machine);
the CPU test runs everywhere, the GPU tests where torch sees a GPU (skipped elsewhere, CI too)."""

from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")

from mtlib.bertscore import BERTScorer  # noqa: E402
from mtlib.embeddings.tensors import to_numpy  # noqa: E402

gpu = pytest.mark.skipif(not torch.cuda.is_available(), reason="no GPU: torch.cuda.is_available() is False")
WORDS = "the a cat dog sat on mat house is big small red green and of to in it was very".split()
HYPS = ["the cat sat on the mat", "a dog was in the house", "it is very big and red", "the green house"]
REFS = ["the cat sat on a mat", "the dog was in a house", "it was big and very red", "a small green house"]


@pytest.fixture(scope="module")
def tiny_bert(tmp_path_factory) -> str:
    """A two-layer BERT with a word-level vocabulary, in a local folder (weights seeded)."""
    from tokenizers import Tokenizer, models, pre_tokenizers, processors
    vocab = {t: i for i, t in enumerate(["[PAD]", "[UNK]", "[CLS]", "[SEP]", *WORDS])}
    tok = Tokenizer(models.WordLevel(vocab, unk_token="[UNK]"))
    tok.pre_tokenizer = pre_tokenizers.Whitespace()
    tok.post_processor = processors.TemplateProcessing(single="[CLS] $A [SEP]", pair="[CLS] $A [SEP] $B [SEP]",
                                                       special_tokens=[("[CLS]", 2), ("[SEP]", 3)])
    fast = transformers.PreTrainedTokenizerFast(tokenizer_object=tok, unk_token="[UNK]", pad_token="[PAD]",
                                                cls_token="[CLS]", sep_token="[SEP]", model_max_length=64)
    torch.manual_seed(0)
    config = transformers.BertConfig(vocab_size=len(vocab), hidden_size=32, num_hidden_layers=2, num_attention_heads=2,
                                     intermediate_size=64, max_position_embeddings=64)
    folder = tmp_path_factory.mktemp("tiny-bert")
    transformers.BertModel(config).save_pretrained(folder)
    fast.save_pretrained(folder)
    return str(folder)


def _prf(model: str, device: str, precision: str = "fp32", matching: str | None = None) -> np.ndarray:
    with BERTScorer(model, 2, device=device, precision=precision, cache=False, progress=False,
                    matching=matching) as scorer:
        assert scorer.matching == (matching or ("batched" if device == "cuda" else "pairwise"))
        return scorer.score(HYPS, REFS)


def test_a_local_hugging_face_folder_scores_on_the_cpu(tiny_bert):
    prf = _prf(tiny_bert, "cpu")
    assert prf.shape == (4, 3) and np.isfinite(prf).all()
    same = _prf(tiny_bert, "cpu")
    np.testing.assert_array_equal(prf, same)  # deterministic


def test_static_vectors_from_any_local_model(tiny_bert):
    pytest.importorskip("gensim")
    from mtlib.embeddings.vectors import static_vectors
    # the input embeddings need no layer: a model without a known default layer works too
    static = static_vectors("de", model=tiny_bert)
    assert static.keyed_vectors.vector_size == 32 and "cat" in static.keyed_vectors


@gpu
def test_bertscore_on_the_gpu_equals_the_cpu(tiny_bert):
    # the GPU matches in batches on the device by default; pairwise there too, as on the CPU
    np.testing.assert_allclose(_prf(tiny_bert, "cuda"), _prf(tiny_bert, "cpu"), atol=1e-5)
    np.testing.assert_allclose(_prf(tiny_bert, "cuda", matching="pairwise"), _prf(tiny_bert, "cpu"), atol=1e-5)


@gpu
def test_bf16_on_the_gpu_is_close_to_fp32(tiny_bert):
    np.testing.assert_allclose(_prf(tiny_bert, "cuda", "bf16"), _prf(tiny_bert, "cuda"), atol=0.02)


@gpu
def test_to_numpy_takes_cuda_tensors():
    t = torch.tensor([[1.5, -2.0]], device="cuda", dtype=torch.bfloat16, requires_grad=True) * 2
    np.testing.assert_array_equal(to_numpy(t), np.array([[3.0, -4.0]], dtype=np.float32))


@gpu
def test_static_and_decontextualized_vectors_from_a_model_on_the_gpu(tiny_bert):
    pytest.importorskip("gensim")
    from mtlib.embeddings.embedder import Embedder
    from mtlib.embeddings.vectors import _encoder_input, decontextualized_vectors, static_vectors
    _encoder_input.cache_clear()  # the CPU test may have loaded this folder already: read it from the GPU now
    static = static_vectors("de", model=tiny_bert)  # the encoder's input embeddings, read from CUDA memory
    assert static.keyed_vectors.vector_size == 32 and "cat" in static.keyed_vectors
    vecs = {}
    for device in ("cpu", "cuda"):
        vecs[device] = decontextualized_vectors(HYPS, Embedder(tiny_bert, 2, device=device)).keyed_vectors
    np.testing.assert_allclose(vecs["cuda"]["cat"], vecs["cpu"]["cat"], atol=1e-5)
