from tests.builders.conftest import fact_pages, kept_pair_shards  # noqa: F401  (shared fixtures)
