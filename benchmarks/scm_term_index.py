"""Benchmark: SCM's term-similarity matrix, gensim's index against mtlib's precomputed one.

gensim's ``WordEmbeddingSimilarityIndex`` asks ``KeyedVectors.most_similar`` once per dictionary
term (a pass over the whole vocabulary each time); ``mtlib.metrics.scm_wmd`` computes the same
neighbours a block of terms at a time. Both matrices are built for the words of the first N
segments of a WMT19 pair (translations of one system and the reference), timed, and compared
cell by cell.

    python benchmarks/scm_term_index.py --lp de-en --segments 200          # GloVe, English
    python benchmarks/scm_term_index.py --lp en-de --segments 100          # encoder input embeddings
"""

from __future__ import annotations

import argparse
import time
import warnings


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--test-set", default="wmt19")
    parser.add_argument("--lp", default="de-en")
    parser.add_argument("--segments", type=int, default=200)
    args = parser.parse_args()

    from gensim.corpora import Dictionary
    from gensim.similarities import SparseTermSimilarityMatrix, WordEmbeddingSimilarityIndex

    import mtlib
    from mtlib.metrics.scm_wmd import _term_similarity_index
    from mtlib.embeddings.vectors import static_vectors

    evs = mtlib.load_evalset(args.test_set, args.lp).head(args.segments)
    vectors = static_vectors(args.lp.split("-")[1])
    kv = vectors.keyed_vectors
    texts = [*evs.outputs[evs.mt_systems[0]], *evs.refs[evs.std_ref]]
    dictionary = Dictionary([[t for t in vectors.tokenize(x) if t in kv.key_to_index] for x in texts])
    print(f"{args.test_set} {args.lp}, {args.segments} segments: {len(dictionary)} terms, vectors {vectors.name} "
          f"({len(kv)} words x {kv.vector_size})")
    timings, matrices = {}, {}
    for name, make in [("gensim", lambda: WordEmbeddingSimilarityIndex(kv)),
                       ("mtlib", lambda: _term_similarity_index(kv, [dictionary[i] for i in dictionary.keys()]))]:
        start = time.perf_counter()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            matrices[name] = SparseTermSimilarityMatrix(make(), dictionary).matrix
        timings[name] = time.perf_counter() - start
        print(f"{name:>7}: {timings[name]:7.2f} s")
    diff = abs(matrices["gensim"] - matrices["mtlib"]).max()
    print(f"speed-up {timings['gensim'] / timings['mtlib']:.1f}x; largest |difference| of a cell {diff:.2e}; "
          f"non-zeros {matrices['gensim'].nnz} vs {matrices['mtlib'].nnz}")


if __name__ == "__main__":
    main()
