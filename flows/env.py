"""How a setting is named in the environment, and the error a setting that cannot be used raises: the two things
both the settings (flows/settings.py) and their masking (flows/masking.py) need, below both."""

from __future__ import annotations

ENV_PREFIX = "ZHBENCH_"
ENV_DELIMITER = "__"  # between a section and its setting: ZHBENCH_CRAWL__MAX_PAGES


class SettingsError(ValueError):
    """Settings cannot be loaded; the message names the setting and the fix."""


def env_variable(dotted: str) -> str:
    """The environment variable that sets a dotted setting: ``crawl.max_pages`` -> ``ZHBENCH_CRAWL__MAX_PAGES``."""
    return (ENV_PREFIX + ENV_DELIMITER.join(dotted.split("."))).upper()
