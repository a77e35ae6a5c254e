"""Where every stage keeps what it writes: Parquet shards named by content (``shards``), the data directory's
DuckDB catalog of fetches, runs, stage outputs and releases (``catalog``), and the LLM and search caches kept
in that catalog (``cache``). The ground floor: it imports no stage."""
