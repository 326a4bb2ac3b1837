"""The variance-aware chapter's words: every Markdown cell rendered over findings that the study
functions compute from small hand-made directions, in the cases a rerun meets (one test set, one
language pair, no paper values for the set, no released sets, an undefined correlation), and
over findings shaped like the book's full run (three test sets, 39 directions)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402

from mtbook import findings as fnd, paper_claims, paper_results, words  # noqa: E402
from mtbook.studies.vat import study as vs  # noqa: E402
from test_vat_study import HUMAN, SCORES, frame, make_direction  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
NAME = "variance_aware_test_sets"


def page(name: str, found: dict) -> str:
    """Every Markdown cell of ``notebooks/NAME.ipynb`` rendered over ``found`` (as the kernel
    would send it: plain JSON data), joined, whitespace collapsed (as tests/test_chapter_words.py)."""
    text = raw_page(found, name)
    # a block tag that ends a line eats its newline: a bullet glued to the previous sentence
    assert not re.findall(r"[.)]\* \S.{0,40}", text), re.findall(r".{40}[.)]\* \S.{0,40}", text)
    return " ".join(text.split())


def direction(test_set="toy", lp="de-en", *, released=True, paraphrase=False, constant_bleu=False):
    n = len(SCORES["A"])
    refs = {"ref": [f"a b c d {i}" for i in range(n)]}
    if paraphrase:
        refs["refWMTp"] = [f"a b x d {i} e" if i % 2 else f"a b c d {i}" for i in range(n)]
    ids = {"VAT (ours)": [0, 2, 3, 6], "VAT (released)": [0, 3, 5, 6] if released else None}
    r = make_direction(SCORES, HUMAN, ids, lp=lp, test_set=test_set, refs=refs, extra_frames={"chrF": frame(SCORES)})
    if constant_bleu:  # every system scores alike: BLEU's correlation is undefined
        from mtlib.vat import as_system_stats
        r.stats["BLEU"] = as_system_stats(frame({s: [0.5] * n for s in SCORES}))
    return r


def shares(keys, kind):
    groups = {"length": ["Short", "Medium", "Long"], "freq": ["Rare", "Middle", "Frequent"],
              "pos": ["NNP", "NN", "VB"]}[kind]
    rows = [dict(group=g, **{"all %": 30.0, "kept %": 30.0 + d, "change (pp)": d}, evalset=k, subset=s)
            for k in keys for s in ("VAT (ours)", "VAT (released)") for g, d in zip(groups, [2.0, 0.0, -1.5])]
    return pd.DataFrame(rows)


def findings(R: dict, *, test_sets, precision_sets=(), table4="found", da=True) -> dict:
    """The chapter's findings as its remove-cell cells publish them, from the study functions."""
    directions = [(r.test_set, r.lp) for r in R.values()]
    sets = vs.run_sets(directions)
    keys = list(R)
    abl = [k for k, r in R.items() if r.test_set == sets.ablation_test_set]
    corr = vs.correlation_rows(R)
    avg, wide = vs.table2(corr, paper_results.vat_table2_frame(), paper_results.VAT_DIRECTIONS)
    gains, paper_gain = vs.table2_gains(avg), vs.paper_table2_gains(paper_results.VAT_TABLE2)
    paper3 = paper_results.vat_table3_frame()
    t3, _ = vs.table3(corr, paper3, test_sets)
    sweep = vs.lambda_sweep(R, abl, draws=5, seed=1)
    rand = vs.random_subset_table(R, 20, 1)
    boot = vs.bootstrap_verdicts(R, 20, 1)
    prec = pd.DataFrame({"Jaccard fp32–bf16": [1.0], "max |Δ sentence R|": [1e-4], "Δr BERTS-R original": [2e-4]},
                        index=pd.Index(list(precision_sets), name="evaluation set")) if precision_sets else pd.DataFrame()
    claims = paper_claims.VAT_SHARE_FINDINGS
    an = [k for k in sets.analysis_sets if k in R]
    t4 = None
    if table4 == "found":
        key = next(k for k in keys if "refWMTp" in R[k].evs.refs)
        t4 = vs.paraphrase_findings(vs.paraphrase_table(R[key], [19.82, 20.25, 19.17]))
    da_rows = pd.DataFrame()
    if da:
        da_rows = pd.DataFrame([dict(evalset=an[0], systems=g, subset=s, metric=mt, stat=st, value=v, p=p, n_systems=n,
                                     floor=fl)
                                for g, n, fl in [("all", 5, 0.031), ("top30", 2, 0.5)]
                                for s in ("original", "VAT (ours)") for st in ("r", "tau")
                                for p in [np.nan if (g, s) == ("top30", "VAT (ours)") else 0.6 if g == "top30" else 0.2]
                                for mt, v in [("BERTS-F", 0.8), ("DA-BERTScore", 0.85)]])
    return dict(
        run=vs.run_findings("small", test_sets, [r.lp for r in R.values()], 8, 60, 20, 20, 100, 1, "BERTScore|fake",
                            None, sets, directions),
        data=dict(have_release=any(r.ids["VAT (released)"] is not None for r in R.values()),
                  skipped=["toy cs-de (no system-level human scores)"], n_directions=len(R)),
        agreement=vs.agreement_findings(vs.agreement_table(R)),
        precision=vs.precision_findings(prec, list(precision_sets), 200, "fp32", "bf16"),
        table2=vs.table2_findings(gains, paper_gain, avg, wide, paper_results.VAT_TABLE2),
        table3=vs.table3_findings(t3, paper3),
        sweep=vs.lambda_findings(sweep, 60),
        filtering=vs.filter_findings(vs.filter_metric_correlations(R, abl, 60)),
        kept=dict(missing=[k for k in sets.analysis_sets if k not in R],
                  length=vs.share_findings(shares(an, "length"), "Short", "Long", *claims["length"]),
                  freq=vs.share_findings(shares(an, "freq"), "Rare", "Frequent", *claims["freq"]),
                  nnp=vs.nnp_findings(shares(an, "pos")), nnp_check=vs.share_check(shares(an, "pos"), *claims["pos"]),
                  difficulty=vs.difficulty_findings(R, an)),
        table4=dict(set=sets.paraphrase_set, in_run=sets.paraphrase_set in R, found=t4),
        bootstrap=vs.bootstrap_findings(boot), verdicts=vs.verdicts(gains, rand, boot),
        stability=vs.stability_findings(vs.stability_table(R, abl, 60, 1, halves=3)),
        da=vs.da_findings(da_rows),
        ex=dict(std=[0.01, 0.225, 0.099, 0.01, 0.01], cut=0.045, kept=[1, 2]),
    )


def words_per_paragraph(text: str) -> list[int]:
    """Words of each paragraph of prose (tables, maths, code and directive fences left out)."""
    out = []
    text = "\n".join(line for line in text.split("\n") if not line.lstrip().startswith(("```", ":")))  # fences
    for para in re.split(r"\n\s*\n", text):
        if para.lstrip().startswith(("|", "$$", "#")) or "\n$$" in para:
            continue
        for item in re.split(r"\n(?=\* )", para):  # each bullet on its own
            out.append(len(item.split()))
    return out


def raw_page(found: dict, name: str = NAME) -> str:
    """The Markdown cells rendered, kept apart (for paragraph and sentence checks)."""
    nb = json.loads((ROOT / "notebooks" / f"{name}.ipynb").read_text(encoding="utf-8"))
    path = ROOT / "notebooks" / f"{name}.ipynb"
    # the book's shared macros and the chapter's, as the runner gives them (where mtbook.words has them)
    macros = (words.chapter_macros(path) if hasattr(words, "chapter_macros")
              else (ROOT / "notebooks" / f"{name}.macros.j2").read_text(encoding="utf-8"))
    data = json.loads(json.dumps(fnd.as_data(found)))
    return "\n\n".join(words.render_template("".join(c["source"]), data, where=f"cell {i}", macros=macros)
                       for i, c in enumerate(nb["cells"]) if c["cell_type"] == "markdown")


def conclusion(text: str) -> list[str]:
    section = text.split("## Conclusion", 1)[1].split("The analyses of what is kept", 1)[0]
    return [b.strip() for b in re.split(r"\n(?=\* )", section.strip()) if b.strip().startswith("*")]


def test_one_test_set_one_pair_no_paper_values_no_release():
    R = {"toy de-en": direction(released=False, paraphrase=False)}
    found = findings(R, test_sets=["toy"], table4="none", da=False)
    text = page(NAME, found)
    assert "run on other sets here**: TOY (ablations) and TOY de-en (analyses)." in text
    assert "**The data root has no `vat-release/` folder" in text
    assert "Left out of this run: toy cs-de (no system-level human scores)." in text
    assert "This run has no released set to compare with." in text
    assert "*`precision_check` is empty" in text or "No evaluation set of `precision_check`" in text
    assert "No test set of the paper's Table 2 is in this run." in text
    assert "The text of TOY is as WMT released it (cased, untokenised)." in text
    assert "BLEU tokenized `intl` into en." in text
    assert "*No paraphrased reference for Table 4: this run has no en-de direction.*" in text
    assert "*No analysis set is in this run: DA-BERTScore is not compared.*" in text
    assert "the released sets" not in text.split("## Conclusion")[1].split("All comparisons")[0]
    assert "**Our sets against random subsets of their size**" in text
    assert not re.search(r"\bnan\b|\bNone\b(?! of)", text)


def test_an_undefined_correlation_and_the_paper_pairs():
    R = {"wmt19 de-en": direction("wmt19", "de-en", constant_bleu=True),
         "wmt19 en-de": direction("wmt19", "en-de", paraphrase=True)}
    found = findings(R, test_sets=["wmt19"], precision_sets=["wmt19 de-en"])
    text = page(NAME, found)
    assert "WMT19 (ablations) and WMT19 de-en and en-de (analyses)" in text
    assert "fp32 and bf16 keep identical segments (Jaccard 1.000), and Pearson's $r$ moves by at most 0.00020." in text
    assert "**BLEU** with the paper's tokenization (`intl`; `zh` into Chinese) lies within 0.01" in text
    assert "the paper's +VAT moves it, on the same cells, up in" in text
    assert "**Reading Table 4.** In words" in text and "the paper: 19.17 and 20.25 (all 19.82)" in text
    assert "| wmt19 de-en | all | +0.050 | p = 0.200 | +0.050 | p = 0.200 |" in text
    assert "| wmt19 de-en | top 30% | +0.050 | p = 0.600 | +0.050 | p not defined |" in text
    assert "and in none after Holm's adjustment for the 6 tests (smallest adjusted p = 1.000)" in text
    assert "with 2 systems (wmt19 de-en top30) the test cannot reach $p < 0.05$ (smallest attainable p 0.500)" in text
    assert ("In wmt19 de-en, the share of short sentences changes by +2.0 pp (released +2.0 pp) and that of long ones "
            "by -1.5 pp (released -1.5 pp).") in text
    assert ("In wmt19 de-en, the share of rare words changes by +2.0 pp (released +2.0 pp) and that of frequent ones "
            "by -1.5 pp (released -1.5 pp).") in text
    # difficulty: both kept sets, ours and the released one in brackets
    assert "In wmt19 de-en, of the middle 80% of segments 50% are kept (released 50%); of the hardest 10%, 100% (released" in text
    assert "as the paper's general trend, not its exception for de-en, in wmt19 de-en (ours) and wmt19 de-en (released)" in text
    assert not re.search(r"\bnan\b|\bNone\b(?! of)", text)
    raw = raw_page(found)
    assert max(words_per_paragraph(raw)) <= 120
    assert not repeated_sentences(raw), repeated_sentences(raw)


def repeated_sentences(raw: str) -> set[str]:
    sentences = [s.strip() for s in re.split(r"(?<=[.!?])\s+", " ".join(raw.split())) if len(s.split()) >= 8]
    return {s for s in sentences if sentences.count(s) > 1}


def full_findings() -> dict:
    """Findings shaped like the book's full run (WMT17-19, 39 directions), with its numbers."""
    R = {"wmt19 de-en": direction("wmt19", "de-en", paraphrase=True), "wmt19 en-de": direction("wmt19", "en-de")}
    found = findings(R, test_sets=["wmt17", "wmt18", "wmt19"], precision_sets=["wmt19 en-de", "wmt19 de-en"])
    m = ["BLEU", "BERTS-P", "BERTS-R", "BERTS-F"]

    def verdict(subset, median, above, below, better, worse, mean, per_set, k_median, k_gain, k_above, k_below, medians):
        metrics = [vs.MetricStanding(x, md, 0.004, median_gain=0.001) for x, md in zip(m, medians)]
        hidden = [vs.MetricStanding(x.metric, x.median, x.gain, 21, 39, x.median_gain) for x in metrics
                  if vs.standing(x.median) is vs.Standing.BELOW_MOST and vs.standing(median) is not vs.Standing.BELOW_MOST]
        rising = [t for t, v in per_set if v >= vs.SAME_CHANGE]
        falling = [t for t, v in per_set if v <= -vs.SAME_CHANGE]
        kendall = dict(median=k_median, standing=vs.standing(k_median).value, gain=k_gain, median_gain=k_gain / 2,
                       above=k_above,
                       below=k_below, band=vs.band(k_above, k_below, 156).value,
                       metrics=[dict(metric=x, median=50.0) for x in m])
        claim = (vs.Claim.SUPPORTED_R_TAU_MIXED if vs.standing(median) is vs.Standing.ABOVE_MOST and better > worse
                 else vs.Claim.NOT_SUPPORTED_SPLIT)
        return vs.SetVerdict(subset, vs.KEPT_SETS[subset], 39, 156, median, vs.standing(median), 0.004, above, below,
                             3.9, vs.band(above, below, 156), metrics, hidden, kendall, better, worse,
                             156 - better - worse, 156, mean, [dict(test_set=t, change=v) for t, v in per_set],
                             rising, falling, claim, median_gain=-0.002)

    found["verdicts"] = [
        verdict("VAT (ours)", 38.0, 45, 39, 45, 51, 0.0004, [("WMT17", -0.009), ("WMT18", -0.001), ("WMT19", 0.010)],
                54.0, 0.006, 10, 14, [75.0, 74.0, 12.0, 30.0]),
        verdict("VAT (released)", 83.0, 61, 14, 63, 22, 0.010, [("WMT17", 0.009), ("WMT18", 0.001), ("WMT19", 0.020)],
                57.0, 0.016, 20, 6, [82.0, 97.0, 72.0, 77.0])]
    found["bootstrap"] = [dict(subset="VAT (ours)", name="our sets", n=156, better=45, worse=51, undecided=60, width=0.015),
                          dict(subset="VAT (released)", name="the released sets", n=156, better=63, worse=22,
                               undecided=71, width=0.014)]
    found["agreement"] = dict(n_released=39, jaccard=0.559, chance=0.250, low=0.469, high=0.672,
                              second=dict(n=21, ours_second=0.670, second_released=0.540, ours_released=0.537))
    found["table2"]["ours"] = dict(up=19, down=16, same=1, n=36)
    found["table2"]["released"] = dict(up=25, down=10, same=1, n=36)
    found["run"]["caveats"] = [{"test_set": "wmt17", "caveat": "lowercased and Moses-tokenised"}]
    return found


def test_the_full_run_reads_as_the_book():
    text = page(NAME, full_findings())
    bullets = conclusion(raw_page(full_findings()))
    assert 3 <= len(bullets) <= 6, bullets
    for b in bullets:
        assert len(b.split()) <= 55, (len(b.split()), b)
    assert ("**Our sets against random subsets of their size** (not in the paper): Pearson $r$ has a median percentile "
            "of 38, somewhat below a typical random subset of its size; it lies above their middle 95% in 45 and below "
            "it in 39 of 156 (direction, metric) cases (chance: about 3.9 each).") in text
    assert "median percentile of 83, above most random subsets of its size" in text
    assert "in 61 and below it in 14 of 156 cases, where chance would put about 3.9 on each side: more often above it than below" in text
    assert "in 45 and below it in 39 of 156 cases, where chance would put about 3.9 on each side: beyond chance on both sides, up in some (direction, metric) cases and down in others" in text
    assert ("* **The paper's claim, with our sets** (criteria below): not supported. The averaged correlation stays about "
            "the same (+0.000, where the paper's Table 2 raises it, +0.008), rising on WMT19 and falling on WMT17; median "
            "percentile 38; better than the whole set in 45, worse in 51 of 156 bootstrap cases.") in text
    assert ("* **The paper's claim, with the released sets** (criteria below): supported for Pearson's $r$ (median "
            "percentile 83; better than the whole set in 63, worse in 22 of 156 bootstrap cases) and mixed for Kendall's "
            "$\\tau$ (its mean and median gains over random subsets are both positive).") in text
    assert "Under that median, BERTS-R (median percentile 12) lies below most random subsets." in text
    assert ("VAT raises the averaged correlation in 19 and lowers it in" in text
            and "of 36 cells with our sets, raises it in 25 and lowers it in" in text)
    # the WMT17 caveat said once, where Table 2's BLEU gap is read, with its directions from the findings
    assert text.count("WMT17's text here is lowercased and Moses-tokenised") == 1
    assert "{dropdown} All comparisons" in text
    assert "| Pearson $r$: median percentile among random subsets | 38 (BLEU 75, BERTS-P 74, BERTS-R 12, BERTS-F 30) | 83 (" in text
    # the median gain over random subsets beside the mean, for Pearson and Kendall
    assert ("| Pearson $r$: median gain over random subsets | -0.002 (BLEU +0.001, BERTS-P +0.001, BERTS-R +0.001, "
            "BERTS-F +0.001) | -0.002 (") in text
    assert "| Kendall $\\tau$: mean / median gain over random; above / below the middle 95% | +0.006 / +0.003; 10 / 14 |" in text
    assert "mean and median gains over random subsets are both positive" in text
    # no sentence outside the table of all comparisons leans on the mean gain over random subsets
    prose = text.split("{dropdown} All comparisons")[0] + text.split("**Criteria.**")[1]
    assert "mean gain" not in prose
    assert not re.search(r"\bnan\b|\bNone\b(?! of)", text)


def test_paragraphs_are_short_and_no_sentence_is_repeated():
    raw = raw_page(full_findings())
    assert max(words_per_paragraph(raw)) <= 120, sorted(words_per_paragraph(raw))[-3:]
    assert not repeated_sentences(raw), repeated_sentences(raw)


def test_figures_5_to_8_read_a_rounded_tie_as_a_tie():
    """The difficulty reading (Figure 8) and the share checks (Figures 5-7), over hand-set findings: a
    middle kept as often as an end at whole percent, and a change shown as 0.0, read as ties, not as
    directions; the released sets' numbers stand beside ours."""
    found = full_findings()
    row = dict(evalset="wmt19 de-en", middle=41.19, hardest=41.0, easiest=29.5)
    found["kept"]["difficulty"] = [
        dict(row, subset="ours", label="wmt19 de-en (ours)", vs_hardest="same", vs_easiest="more", reading="tie",
             as_paper=False),
        dict(row, subset="released", label="wmt19 de-en (released)", middle=40.0, hardest=35.0, easiest=28.0,
             vs_hardest="more", vs_easiest="more", reading="as paper", as_paper=True),
        dict(row, evalset="wmt19 en-de", subset="ours", label="wmt19 en-de (ours)", middle=41.5, hardest=33.0,
             easiest=44.0, vs_hardest="more", vs_easiest="less", reading="against", as_paper=False)]
    tie = pd.DataFrame([dict(group="Frequent", **{"all %": 30.0, "kept %": 30.03, "change (pp)": 0.03},
                             evalset="wmt19 de-en", subset="VAT (ours)")])
    found["kept"]["freq"]["check"] = vs.share_check(tie, *paper_claims.VAT_SHARE_FINDINGS["freq"])
    text = page(NAME, found)
    assert ("In wmt19 de-en, of the middle 80% of segments 41% are kept (released 40%); of the hardest 10%, 41% "
            "(released 35%); of the easiest 10%, 30% (released 28%). In wmt19 en-de, of the middle 80% of segments 42% "
            "are kept; of the hardest 10%, 33%; of the easiest 10%, 44%.") in text
    assert ("For difficulty, against the paper: the middle is kept more often than both ends, as in the paper, in wmt19 "
            "de-en (released); as often as the hardest 10% at whole percent, a tie that reads neither way, in wmt19 "
            "de-en (ours); less often than the easiest 10% in wmt19 en-de (ours).") in text
    assert "unchanged at the one decimal shown, so neither way, in wmt19 de-en (ours)." in text
    assert "not as the paper in wmt19 de-en (ours)" not in text
    bullets = raw_page(found).split("**Reading Figures 5–8**")[1].split("The paper's explanations")[0]
    assert max(words_per_paragraph(bullets)) <= 120
