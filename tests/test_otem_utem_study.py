"""Sentences comparing metrics' agreement with humans, on tables whose correlations are known."""

import pandas as pd

from mtlib.otem_utem_study import versus_baseline, without_lowest

SIGNS = {"BLEU": 1, "OTEM": -1}


def _table(otem):
    return pd.DataFrame({"human": [1.0, 2.0, 3.0, 4.0], "BLEU": [1.0, 2.0, 4.0, 3.0], "OTEM": otem},
                        index=list("abcd"))


def test_verdicts_per_statistic_with_ties_as_the_rule_sets_them():
    # OTEM = -human: oriented r = tau = 1. BLEU: r = 0.8, tau = 4/6. r: 0.2 apart (> 0.02): more;
    # tau: one swapped pair of four systems (1/3 < 1.5 pairs = 0.5): about as much.
    text = versus_baseline(_table([-1.0, -2.0, -3.0, -4.0]), "OTEM", SIGNS)
    assert text == ("OTEM agrees with the human score more than BLEU on r (by 0.200) and about as much as BLEU "
                    "on τ (by 0.333)")
    same = versus_baseline(_table([-1.0, -2.0, -4.0, -3.0]), "OTEM", SIGNS)
    assert same == "OTEM agrees with the human score about as much as BLEU on both r and τ (by 0.000 and 0.000)"
    # BLEU as the metric against an OTEM that orders every system right: less on both.
    less = versus_baseline(_table([-1.0, -2.0, -3.0, -4.0]).assign(BASE=lambda d: -d.OTEM), "BLEU",
                           {"BLEU": 1, "BASE": 1}, baseline="BASE", r_tie=0.1)
    assert less.startswith("BLEU agrees with the human score less than BASE on r (by 0.200)")


def test_without_lowest_drops_the_lowest_human_score():
    text = without_lowest(_table([-1.0, -2.0, -3.0, -4.0]), SIGNS)
    assert text.startswith("The lowest-scored system, a (human z 1.000, BLEU 1.00; the next lowest z is 2.000)")
    # Without a: human (2, 3, 4), BLEU (2, 4, 3): r = 0.5; OTEM = -human: r = -1.
    assert text.endswith("without it r is BLEU +0.500, OTEM -1.000")
