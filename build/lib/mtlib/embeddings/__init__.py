"""Contextual token embeddings: model registry, cached embedding, BERTScore matching."""
