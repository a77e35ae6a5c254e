"""Checks of a run's inputs that fail in a second, before any engine starts.

Shared by ``zhbench run``, ``zhbench deploy`` and ``zhbench crawl``: a bad seed file, a missing
taxonomy or template file, a model directory that is not there or a dead site is one clear error
before Prefect, a crawl or a model is started.
"""

from __future__ import annotations

from pathlib import Path

from flows.settings import SEARCH_BACKENDS, Settings, SettingsError


def check_run(settings: Settings) -> None:
    """``zhbench run``'s inputs, and the search a run verifies with: a real site needs a search service named
    (a crawl does not)."""
    from flows.websearch import check_search

    check_inputs(settings)
    check_search(settings)


def check_inputs(settings: Settings) -> None:
    """Fail on a bad seed file or a dead site here, in a second, before any engine starts."""
    from crawlers.crawl import check_reachable
    from crawlers.seeds import read_seeds

    from filters.domains import load_taxonomy
    from filters.embeddings import EmbeddingError, make_embedder

    for seed in settings.crawl.seeds:
        read_seeds(seed)
    from builders.contamination import ContaminationError
    from builders.templates import load_templates

    load_taxonomy(settings.align.taxonomy)
    load_templates(settings.items.templates)
    from warehouse.hierarchy import load_hierarchy

    load_hierarchy(settings.release.name, settings.release.hierarchy)
    for path in settings.items.contamination_files:
        if not Path(path).is_file():
            raise ContaminationError(f"setting items.contamination_files: {path} does not exist")
    if settings.verify.search_backend not in SEARCH_BACKENDS:
        from verifiers.search import HTTPSearch

        HTTPSearch(settings.verify.search_backend, settings.verify.results_key)
    if settings.verify.sensitive_terms and not Path(settings.verify.sensitive_terms).is_file():
        raise SettingsError(f"setting verify.sensitive_terms: {settings.verify.sensitive_terms} does not exist")
    if settings.llm.base_url and not settings.llm.model:
        raise SettingsError("setting llm.model: a model name is needed when llm.base_url is set")
    for where, spec in (("align.embedder", settings.align.embedder), ("items.embedder", settings.items.embedder)):
        model = getattr(make_embedder(spec), "model", "")
        if model.startswith(("/", ".", "~")) and not Path(model).expanduser().is_dir():
            raise EmbeddingError(f"setting {where}: model directory {model} does not exist; give the path "
                                 "of a local sentence-transformers model, or use 'char-ngram'")
    if settings.crawl.base_url:
        check_reachable(settings.crawl.base_url)
