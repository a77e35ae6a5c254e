"""One settings object with a section per stage.

Sources, strongest first: command-line flags, a TOML file (``--config``),
environment variables (``ZHBENCH_DATA_DIR``, ``ZHBENCH_CRAWL__MAX_PAGES`` ...),
then the defaults below. Components never read it: the flow passes each stage
its own section.
"""

from __future__ import annotations

import json
import os
import tomllib
from pathlib import Path
from typing import Any, ClassVar, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator
from pydantic_core import PydanticCustomError
from pydantic_settings import BaseSettings, EnvSettingsSource, SettingsConfigDict

from crawlers.crawl import DEFAULT_USER_AGENT
from flows.env import ENV_DELIMITER, ENV_PREFIX, SettingsError, env_variable
from flows.masking import mask_settings, mask_value


class _Section(BaseModel):
    model_config = ConfigDict(extra="forbid")


class CrawlSettings(_Section):
    site: Literal["baidu", "sogou", "wikipedia"] = "baidu"
    base_url: str | None = Field(None, description="site to crawl; unset: the bundled mirror, started by the run")
    # A fixed port keeps the crawl's fetch URLs the same from run to run (resume, recrawl); pairs, ids and
    # releases carry the public sites' URLs (crawlers.urls.public_url) whatever the port.
    mirror_port: int = Field(8800, ge=0, le=65535, description="port of the bundled mirror (0: any free port)")
    mirror_profile: Literal["demo", "realistic"] = Field(
        "demo", description="the bundled mirror's entries: the small hand-written facts table (demo) or generated "
                            "entries that behave like real Baike, every planted property labelled (realistic)")
    mirror_size: int = Field(3000, ge=50, le=50_000, description="entries of the realistic mirror")
    mirror_seed: int = Field(0, description="seed of the realistic mirror's entries")
    seeds: list[Path] = Field(default_factory=list, description="seed files; empty: the bundled seed lists")
    # Deep enough that a crawl of the bundled mirror reaches the whole link closure whatever the
    # order of responses (a depth-limited walk that binds depends on that order).
    max_depth: int = Field(100, ge=0)
    max_pages: int = Field(0, ge=0, description="stop after this many content pages; 0: no limit")
    concurrency: int = Field(8, ge=1, le=64)
    download_delay: float = Field(0.0, ge=0)
    autothrottle: bool = True
    obey_robots: bool = True
    user_agent: str = DEFAULT_USER_AGENT
    timeout_s: float = Field(30.0, gt=0)
    max_block_retries: int = Field(5, ge=0)
    backoff_base_s: float = Field(1.0, gt=0, description="first pause of a domain after a block")
    backoff_max_s: float = Field(300.0, gt=0, description="longest pause of a domain after repeated blocks")
    parser_backend: Literal["selectolax", "lxml", "bs4"] = Field(
        "selectolax", description="HTML parser of the crawl: selectolax (lexbor, the fastest), lxml or bs4; the "
        "records are the same")
    reuse: bool = Field(True, description="zhbench run: take the finished crawl of the same settings, seeds and "
                        "site again instead of fetching every page anew (false: crawl again)")
    recrawl_after: str | None = Field(None, pattern=r"^\d+(\.\d+)?[smhd]$", description="zhbench run: when the "
                                      "crawl it would reuse finished this long ago (e.g. 20h, 7d), ask again, "
                                      "conditionally, for the pages fetched that long ago; unset: never")
    from_crawl: list[str] = Field(default_factory=list, description="zhbench run: build from these finished crawls "
                                  "of the data directory (names under DATA_DIR/crawls; of a page in several, the "
                                  "latest fetch) instead of crawling")


class AlignSettings(_Section):
    text_scope: Literal["summary", "full"] = Field(
        "summary", description="the pair text: the entry's summary (CDTP) or its whole text")
    position_threshold: float = Field(0.75, gt=0, lt=1, description="keep pairs whose position index exceeds this")
    enumerations_must_be_covered: bool = True
    cut: bool = Field(True, description="cut what a pair's text states beyond its kept triples (the smallest fluent "
                      "unit: a list item, a parenthetical, a clause, a sentence) instead of dropping the pair")
    lexicon_min_pages: int = Field(1, ge=1, description="a value infobox rows give on at least this many pages of the "
                                   "crawl is a fact wherever a text states it (what the cut looks for)")
    learn_cues: bool = Field(True, description="learn how texts say each relation from the crawl itself (the words "
                             "next to its values) and use them beside filters/relation_cues.tsv; written to the run's "
                             "rules/learned_cues.tsv for review")
    cue_min_pages: int = Field(3, ge=1, description="a learned cue stands next to the relation's values on at least "
                               "this many pages")
    cue_sample_pages: int = Field(20000, ge=1, description="learn cues from at most this many content pages")
    min_relation_support: int = Field(2, ge=1, description="keep relations found on at least this many pages")
    top_k_relations: int = Field(0, ge=0, description="keep at most this many relations, most frequent first; 0: all")
    taxonomy: Path | None = Field(None, description="domain taxonomy TOML; unset: the bundled filters/taxonomy.toml")
    embedder: str = Field("char-ngram", description="embeddings for domain similarity: 'char-ngram' (offline) or "
                          "'sentence-transformers:<local model directory>' (e.g. a Chinese bge-small-zh copy)")
    domain_rule_weight: float = Field(0.6, ge=0, le=1, description="weight of keyword rules against embeddings")
    topics: bool = Field(True, description="also label each pair with a Chinese SimpleQA topic and subtopic")


class DedupSettings(_Section):
    enabled: bool = True
    threshold: float = Field(0.6, gt=0, lt=1, description="MinHash Jaccard similarity that makes a near duplicate")
    num_perm: int = Field(128, ge=16)
    shingle: Literal["char", "word"] = "char"
    n: int = Field(5, ge=1, description="shingle length in characters or jieba words")
    against_releases: bool = Field(
        True, description="drop pairs that an earlier release of the same name already holds (exactly or nearly)")
    memory_limit: str = Field("32MB", pattern=r"^\d+(\.\d+)?\s*[KMGT]i?B$",
                              description="DuckDB's memory limit while grouping (one thread); beyond it DuckDB "
                                          "spills to disk")


class ItemsSettings(_Section):
    enabled: bool = True
    kinds: list[Literal["kgc", "qa", "t2t", "cloze", "simpleqa"]] = Field(
        default_factory=lambda: ["kgc", "qa", "t2t", "cloze", "simpleqa"])
    embedder: str = Field("char-ngram", description="embeddings for the distractor filter and the contamination "
                          "check: 'char-ngram' (offline) or 'sentence-transformers:<local model directory>'")
    templates: Path | None = Field(None, description="question templates TSV; unset: builders/question_templates.tsv")
    synonym_max: float = Field(0.92, gt=0, le=1, description="drop distractors this similar to the gold (synonyms)")
    context_min: float = Field(0.0, ge=-1, lt=1, description="drop distractors less similar than this to the "
                               "question (0 suits char-ngram; about 0.2 suits a Chinese sentence model)")
    per_source: int = Field(30, ge=9, description="candidates taken from each source per item")
    seed: int = Field(13, description="seed of option shuffles, subsets and splits")
    max_answer_chars: int = Field(20, ge=1, description="SimpleQA answer length budget in characters")
    cloze_max_chars: int = Field(128, ge=20, description="longest cloze sentence, in characters")
    subset_size: int = Field(0, ge=0, description="per item kind, a stratified subset of about this many; 0: all")
    subset_prefer_hard: float = Field(3.0, ge=0, description="how strongly the subset favours items the offline "
                                      "difficulty proxy rates harder: weight 1 + this x difficulty (0: uniform)")
    easy_max_share: float = Field(0.10, ge=0, lt=1, description="most share of each config's kept items that an "
                                  "offline baseline answers (builders/baselines.py: pinyin, the answer in the name, "
                                  "the relation's or the type's most frequent value); easy items past it are "
                                  "dropped, by a hash of their id (difficulty:easy_over_budget)")
    eval_fraction: float = Field(0.2, gt=0, lt=1, description="share of each domain's items in the eval split "
                                 "(whole entities: every item of an entity, in every config, is in one split)")
    contamination_files: list[Path] = Field(default_factory=list, description="benchmark question files (CSV or "
                                            "JSONL with a question/problem field, and an answer field when they have "
                                            "one) new questions must not repeat, even reworded")
    contamination_minhash: float = Field(0.7, gt=0, lt=1, description="character bigram similarity of a near match "
                                         "(builders/contamination.py)")
    contamination_embedding: float = Field(0.95, gt=0, le=1, description="embedding similarity of a match")
    contamination_paraphrase: float = Field(0.75, gt=0, lt=1, description="weight of the content words shared by "
                                            "a question holding all the other's words, without agreeing answers")
    contamination_same_fact: float = Field(0.5, gt=0, lt=1, description="weight of the content words shared by "
                                           "two wordings of one fact (same entity, agreeing answers); a rewrite "
                                           "sharing less asks it differently enough")
    contamination_llm_judge: bool = Field(True, description="with an LLM configured, let it settle the pairs the "
                                          "rules leave undecided (same entity, relation words the learned groups "
                                          "of builders/relation_groups.tsv do not know): a match of kind llm")


SEARCH_BACKENDS = ("searxng", "crawl", "local")  # "local": the crawl's index, by its earlier name


class VerifySettings(_Section):
    SPEED_ONLY: ClassVar[frozenset[str]] = frozenset({"search_concurrency"})  # not part of any stage's key

    search: bool = Field(True, description="CDTP's search validation: keep a triple only if its head and tail "
                         "co-occur in one of the top-k search results")
    search_backend: str = Field("searxng", description="'searxng': a SearXNG instance's JSON API at search_url "
                                "(unset: the bundled mirror's, when the run crawls the mirror); 'crawl': BM25 over "
                                "the crawl's own pages only, so a fact stated on one page is never confirmed; or a "
                                "JSON search API URL with {query}, e.g. https://api.example/search?q={query}")
    search_url: str = Field("", description="root URL of a SearXNG instance with the JSON format enabled, e.g. "
                            "https://searx.example.org; unset: the bundled mirror's search when crawling the mirror")
    results_key: str = Field("results", description="field of the search API's reply that holds the results")
    search_concurrency: int = Field(4, ge=1, le=32, description="searches a SearXNG instance or search API is "
                                    "asked at once; its limiter must allow as many (1: one after another). "
                                    "Changes how fast, never what is found")
    k: int = Field(10, ge=1, le=100)
    exclude_source: bool = Field(True, description="the pair's own page does not count as support")
    items: bool = Field(True, description="verify question items: safety terms always; criteria, evidence and "
                        "moderation by the LLM when llm.base_url is set; offline, retrieval support labels")
    evidence_k: int = Field(5, ge=1, le=50, description="passages the evidence check reads per question")
    min_sources: int = Field(2, ge=1, le=5, description="sites whose pages must state a SimpleQA answer, its own "
                             "page counted (Chinese SimpleQA asks two); fewer: dropped as evidence:single_source. "
                             "With search_backend = 'crawl' every page is of one site: set 1 to keep any")
    drop_unverified: list[Literal["kgc", "qa", "t2t", "cloze", "simpleqa"]] = Field(
        default_factory=lambda: ["simpleqa"],
        description="item kinds dropped when a check ran on them but returned no verdict (an LLM call that failed: "
                    "reason unverified:<check>:<error>); items of the other kinds are kept and name the check in "
                    "unverified_by")
    panel: list["PanelModel"] = Field(default_factory=list, description="answer models of the difficulty filter")
    sensitive_terms: Path | None = Field(None, description="term list; unset: verifiers/sensitive_terms.txt")

    @property
    def searches_the_crawl(self) -> bool:
        """Whether the search is the crawl's own index (``crawl``, or ``local``, its earlier name), built and
        searched in the run's process, rather than a search service."""
        return self.search_backend in ("crawl", "local")


class PanelModel(_Section):
    base_url: str
    model: str
    api_key_env: str = "OPENAI_API_KEY"


VerifySettings.model_rebuild()


class LLMSection(_Section):
    base_url: str | None = Field(None, description="OpenAI-compatible endpoint, e.g. http://127.0.0.1:8000/v1; "
                                 "unset: no LLM, items come from templates and rule checks")
    model: str = Field("", description="model name at that endpoint")
    api_key_env: str = Field("OPENAI_API_KEY", description="environment variable holding the API key")
    timeout_s: float = Field(60.0, gt=0)
    max_retries: int = Field(4, ge=0)
    concurrency: int = Field(4, ge=1, le=64)
    temperature: float = Field(0.0, ge=0, le=2)
    budget_usd: float | None = Field(None, ge=0, description="most dollars one run may spend; each request reserves "
                                     "its cost bound (prompt bytes as tokens plus max_output_tokens) before it is "
                                     "sent, so the run stops before passing it; unset: no cap")
    usd_per_million_input: float = Field(0.0, ge=0)
    usd_per_million_output: float = Field(0.0, ge=0)
    max_output_tokens: int = Field(1024, ge=1, le=131_072, description="sent as max_tokens with every request: "
                                   "the longest reply, and the output part of each request's budget reservation")

    def client_settings(self):
        from schemas.llm import LLMSettings

        return LLMSettings(base_url=self.base_url or "", model=self.model, api_key_env=self.api_key_env,
                           timeout_s=self.timeout_s, max_retries=self.max_retries, concurrency=self.concurrency,
                           temperature=self.temperature, budget_usd=self.budget_usd,
                           usd_per_million_input=self.usd_per_million_input,
                           usd_per_million_output=self.usd_per_million_output,
                           max_output_tokens=self.max_output_tokens)


class ReleaseSettings(_Section):
    name: str = Field("cdtp", pattern=r"^[a-z0-9][a-z0-9_\-]*$")
    version: str | None = Field(None, pattern=r"^\d+\.\d+\.\d+$")
    hierarchy: Path | None = Field(None, description="capability/task/dataset labels per config (TOML); "
                                                     "None: warehouse/hierarchy.toml")
    gate: bool = Field(True, description="run the great-expectations suites before publishing; a failure "
                                             "blocks the release")


class ReviewSettings(_Section):
    """Human review (review/): what a run queues, and how verdicts reach the next release."""

    enqueue: bool = Field(True, description="queue the published release's items for review by the policy below")
    all_configs: list[str] = Field(default_factory=lambda: ["simpleqa"],
                                   description="configs queued in full (Chinese SimpleQA: every question)")
    sampled_configs: list[str] = Field(default_factory=lambda: ["cdtp_pairs", "qa", "kgc"],
                                       description="configs of which a seeded sample per domain is queued")
    sample_per_domain: int = Field(20, ge=0, description="items of each sampled config per domain; 0: none")
    seed: int = 0
    apply_verdicts: bool = Field(True, description="apply settled verdicts to the items of the next release: "
                                 "drop rejected ones, apply adjudicated answers, drop answers people found "
                                 "different, mark the rest human-verified")
    lease_minutes: float = Field(30, gt=0, le=525_600, allow_inf_nan=False, description="an annotator's hold on an item before it returns to "
                                 "the queue (zhbench review serve)")


class EngineSettings(_Section):
    """Where and how the flow's stage tasks run. Nothing here changes what a run publishes: a release built
    on threads, processes or a Dask cluster is the same bytes, and the release records none of it."""

    task_runner: Literal["threads", "processes", "dask"] = Field(
        "threads", description="threads or processes on this machine, or a Dask cluster (prefect-dask)")
    workers: int = Field(0, ge=0, description="threads or processes, or the local Dask cluster's worker "
                         "processes, and the processes that build the items; 0: one per core")
    dask_address: str | None = Field(None, description="scheduler of a running Dask cluster, e.g. "
                                     "tcp://10.0.0.5:8786; unset with task_runner = 'dask': a local cluster of "
                                     "`workers` processes started for the run")
    shard_pages: int = Field(2000, ge=1, description="pages per alignment shard: the unit of parallel work and "
                             "of resuming a killed run")
    retries: int = Field(1, ge=0, description="retries of a stage task that failed for a passing reason (a lost "
                         "worker, a full disk freed, a timeout); a wrong setting or input fails at once")
    retry_delay_s: float = Field(10.0, ge=0)


class ScheduleSettings(_Section):
    """When ``zhbench deploy`` runs the flow. Nothing here changes what a run publishes."""

    cdtp: str | None = Field(None, description="cron expression of the cdtp deployment's runs, e.g. '0 3 * * *' "
                             "(03:00 every night); unset: runs only when triggered")
    simpleqa: str | None = Field(None, description="cron expression of the simpleqa deployment's runs; unset: "
                                 "runs only when triggered")
    timezone: str = Field("UTC", description="IANA time zone the cron expressions are read in, e.g. Asia/Shanghai")
    deployment: str = Field("nightly", min_length=1, pattern=r"^[^/%&><]+$",
                            description="name of the deployments: runs are triggered as cdtp/<name> and "
                                        "simpleqa/<name>")

    @field_validator("cdtp", "simpleqa")
    @classmethod
    def _cron(cls, value: str | None) -> str | None:
        if value is not None and not is_cron(value):
            raise PydanticCustomError("cron", "not a cron expression Prefect accepts; give five fields (minute "
                                              "hour day-of-month month day-of-week), e.g. '0 3 * * *', or @daily")
        return value

    @field_validator("timezone")
    @classmethod
    def _timezone(cls, value: str) -> str:
        from zoneinfo import available_timezones

        if value not in available_timezones():  # the list Prefect checks a schedule's time zone against
            raise PydanticCustomError("timezone", "unknown time zone; give an IANA name such as UTC or "
                                                  "Asia/Shanghai")
        return value


def invalid_setting(exc: ValidationError, prefix: str = "") -> SettingsError:
    """pydantic's first error as one line naming the setting. The value is shown masked: a bad value is often a
    URL that carries a key, and the message goes to a terminal or a log."""
    error = exc.errors()[0]
    where = ".".join(str(p) for p in error["loc"])
    return SettingsError(f"{prefix}setting {where}: {error['msg']} (got {_shown(error.get('input'))})")


def _shown(value: Any) -> str:
    """A setting's value as an error message shows it, credentials masked."""
    return repr(mask_value(value) if isinstance(value, str) else value)


def is_cron(expression: str) -> bool:
    """Whether Prefect's server can schedule ``expression``.

    Checked with the croniter Prefect ships (``prefect._vendor.croniter``) and Prefect's own extra rule
    (no random or hashed fields), so what loads here is what the server accepts. The module is loaded
    from its file: importing the ``prefect`` package would set Prefect up (plugins, telemetry) before
    ``flows.engine.configure_prefect`` has run, in every command that loads settings.
    """
    fields = expression.split()
    return _prefect_croniter().is_valid(expression) and not any(f.casefold() in ("r", "h") for f in fields)


def _prefect_croniter():
    import importlib.util
    import sys

    name = "zhbench._prefect_croniter"
    if name not in sys.modules:
        package = importlib.util.find_spec("prefect")  # a top-level spec: finding it imports nothing
        path = Path(package.origin).parent / "_vendor" / "croniter" / "croniter.py"
        spec = importlib.util.spec_from_file_location(name, path)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        sys.modules[name] = module
    return sys.modules[name].croniter


class Settings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix=ENV_PREFIX, env_nested_delimiter=ENV_DELIMITER, extra="forbid")

    data_dir: Path = Path("zhbench-data")
    crawl: CrawlSettings = Field(default_factory=CrawlSettings)
    align: AlignSettings = Field(default_factory=AlignSettings)
    dedup: DedupSettings = Field(default_factory=DedupSettings)
    items: ItemsSettings = Field(default_factory=ItemsSettings)
    verify: VerifySettings = Field(default_factory=VerifySettings)
    llm: LLMSection = Field(default_factory=LLMSection)
    release: ReleaseSettings = Field(default_factory=ReleaseSettings)
    review: ReviewSettings = Field(default_factory=ReviewSettings)
    engine: EngineSettings = Field(default_factory=EngineSettings)
    schedule: ScheduleSettings = Field(default_factory=ScheduleSettings)

    @classmethod
    def load(cls, config_file: Path | None = None, overrides: dict[str, Any] | None = None) -> "Settings":
        return cls.load_with_sources(config_file, overrides)[0]

    @classmethod
    def load_with_sources(cls, config_file: Path | None = None, overrides: dict[str, Any] | None = None
                          ) -> tuple["Settings", dict[str, str]]:
        """The settings, and for each dotted leaf setting where its value came from.

        A source is "flag", "file <path>", "environment ZHBENCH_..." or "default"; a list
        (``verify.panel``) is one leaf, as it comes whole from one source.
        """
        from_file = _read_config(config_file)
        from_flags: dict[str, Any] = {}
        for dotted, value in (overrides or {}).items():
            if value is not None:
                _put(from_flags, dotted, value)
        try:
            settings = cls(**_merged(from_file, from_flags))
        except ValidationError as exc:
            raise invalid_setting(exc) from None
        # pydantic-settings' own source reads the environment again, so prefix, case, the "__" nesting
        # and whole sections as JSON are detected by its rules, not a copy of them.
        env = EnvSettingsSource(cls)
        from_env = env()
        sources: dict[str, str] = {}
        for dotted in _leaves(settings):
            if _holds(from_flags, dotted):
                sources[dotted] = "flag"
            elif _holds(from_file, dotted):
                sources[dotted] = f"file {config_file}"
            elif _holds(from_env, dotted):
                sources[dotted] = f"environment {_env_name(env, dotted)}"
            else:
                sources[dotted] = "default"
        return settings, sources


def _read_config(config_file: Path | None) -> dict[str, Any]:
    if config_file is None:
        return {}
    path = Path(config_file)
    if not path.is_file():
        raise SettingsError(f"config file {path} does not exist")
    try:
        return tomllib.loads(path.read_text(encoding="utf-8"))
    except tomllib.TOMLDecodeError as exc:
        raise SettingsError(f"config file {path} is not valid TOML: {exc}") from None


def _put(data: dict[str, Any], dotted: str, value: Any) -> None:
    *sections, key = dotted.split(".")
    for section in sections:
        data = data.setdefault(section, {})
    data[key] = value


def _merged(base: dict[str, Any], top: dict[str, Any]) -> dict[str, Any]:
    """``base`` with ``top`` laid over it, section by section; neither is changed."""
    merged = dict(base)
    for key, value in top.items():
        if isinstance(value, dict) and key in merged:
            # a file's section that is not a table stays, so validation names it
            if isinstance(merged[key], dict):
                merged[key] = _merged(merged[key], value)
        else:
            merged[key] = value
    return merged


def _holds(data: dict[str, Any], dotted: str) -> bool:
    for part in dotted.split("."):
        if not isinstance(data, dict) or part not in data:
            return False
        data = data[part]
    return True


def _leaves(model: BaseModel, prefix: str = "") -> list[str]:
    leaves: list[str] = []
    for name in type(model).model_fields:
        value = getattr(model, name)
        if isinstance(value, BaseModel):
            leaves += _leaves(value, f"{prefix}{name}.")
        else:
            leaves.append(prefix + name)
    return leaves


def _env_name(env: EnvSettingsSource, dotted: str) -> str:
    """The variable that set ``dotted``: its own (``ZHBENCH_CRAWL__MAX_PAGES``, which pydantic-settings lays over
    a section's JSON) or its section's (``ZHBENCH_CRAWL='{"max_pages": 5}'``), spelt as in the environment."""
    def key(name: str) -> str:
        return name if env.case_sensitive else name.lower()

    parts = dotted.split(".")
    for depth in range(len(parts), 0, -1):
        wanted = key(env.env_prefix + env.env_nested_delimiter.join(parts[:depth]))
        if wanted in env.env_vars:
            # The last spelling wins, as in pydantic-settings' own mapping of the environment.
            spelt = [name for name in os.environ if key(name) == wanted]
            return spelt[-1] if spelt else wanted.upper()
    return env_variable(dotted)


def show_settings(config_file: Path | None, overrides: dict[str, Any], as_json: bool = False) -> str:
    """What ``zhbench config show`` prints: the settings, masked, and where each value came from."""
    settings, sources = Settings.load_with_sources(config_file, overrides)
    shown = mask_settings(settings.model_dump(mode="json"))
    if as_json:
        return json.dumps({"settings": shown, "sources": sources}, ensure_ascii=False, indent=2)
    return format_settings(shown, sources)


def format_settings(shown: dict, sources: dict[str, str]) -> str:
    """One ``section.key = value   (source)`` line per setting, a blank line between sections."""
    width = max(map(len, sources))
    lines: list[str] = []
    section = None
    for dotted, source in sources.items():
        value = shown
        for part in dotted.split("."):
            value = value[part]
        if lines and dotted.rpartition(".")[0] != section:
            lines.append("")
        section = dotted.rpartition(".")[0]
        text = "unset" if value is None else json.dumps(value, ensure_ascii=False)
        lines.append(f"{dotted:<{width}} = {text}   ({source})")
    return "\n".join(lines)
