"""METEOR through NLTK (not the Java METEOR 1.5 that the papers used).

Differences from METEOR 1.5 (Denkowski & Lavie 2014), which the difficulty-aware paper ran:

* NLTK implements the original METEOR matching stages (exact, Porter stem, WordNet
  synonym) with English resources for every language; METEOR 1.5 adds paraphrase tables,
  language-specific stemmers and tuned parameters (German has its own).
* NLTK scores one sentence at a time and has no corpus statistics: the system score
  here is the mean of sentence scores; METEOR 1.5 aggregates match statistics over the
  corpus first.
* Tokens here: sacrebleu's 13a tokeniser, lowercased (METEOR 1.5 normalises with ``-norm``).

So METEOR numbers here are a stand-in and differ from the paper's.
"""

from __future__ import annotations

from typing import Sequence

import numpy as np
from sacrebleu.tokenizers.tokenizer_13a import Tokenizer13a

from mtlib.metrics.base import Metric, check_inputs, check_option, version_signature
from mtlib.wordnet import ensure_wordnet


class METEOR(Metric):
    """NLTK METEOR (alpha 0.9, beta 3, gamma 0.5); system score = mean sentence score.

    Args:
        alpha: weight of precision against recall in the harmonic mean, in [0, 1].
        beta: exponent of the fragmentation penalty, >= 0.
        gamma: weight of the fragmentation penalty, in [0, 1].
    """

    name = "METEOR"
    higher_is_better = True

    def __init__(self, alpha: float = 0.9, beta: float = 3.0, gamma: float = 0.5) -> None:
        # NLTK's formula, (1 - gamma * frag**beta) * PR / (alpha P + (1 - alpha) R), stays in [0, 1]
        # only for alpha and gamma in [0, 1] and beta >= 0 (alpha=5 gives negative scores).
        for key, value, maximum in (("alpha", alpha, 1), ("beta", beta, None), ("gamma", gamma, 1)):
            check_option(self.name, key, value, (int, float), minimum=0, maximum=maximum)
        self.alpha, self.beta, self.gamma = float(alpha), float(beta), float(gamma)
        self._tok = Tokenizer13a()

    def segment_stats(self, hyps: Sequence[str], refs: Sequence[Sequence[str]]) -> np.ndarray:
        check_inputs(self.name, hyps, refs)
        ensure_wordnet()
        from nltk.corpus import wordnet
        from nltk.translate.meteor_score import meteor_score

        def toks(s: str) -> list[str]:
            return self._tok(s.lower()).split()

        out = np.empty((len(hyps), 2))
        for i, h in enumerate(hyps):
            seg_refs = [toks(r[i]) for r in refs]
            out[i, 0] = meteor_score(seg_refs, toks(h), wordnet=wordnet,
                                     alpha=self.alpha, beta=self.beta, gamma=self.gamma)
            out[i, 1] = 1.0
        return out

    def score_from_stats(self, stats: np.ndarray) -> float:
        # stats = (sum of sentence scores, number of segments)
        return float(stats[0] / stats[1]) if stats[1] else 0.0

    def scores_from_stats(self, stats: np.ndarray) -> np.ndarray:
        return np.where(stats[..., 1] > 0, stats[..., 0] / np.maximum(stats[..., 1], 1), 0.0)

    @property
    def signature(self) -> str:
        # nltk's matcher and sacrebleu's 13a tokeniser both shape the number.
        return (f"METEOR|wordnet:3.0|tok:13a-lc|alpha:{self.alpha}|beta:{self.beta}|gamma:{self.gamma}|"
                f"agg:mean-sentence|{version_signature('nltk', 'sacrebleu')}")
