"""Mask credentials in settings before they are shown or handed to the engine.

Settings such as ``llm.base_url``, ``verify.search_backend`` (an API URL template,
often with its key in the query) and ``crawl.base_url`` may carry a secret. What
is shown (``zhbench config show``) or recorded as a flow parameter is masked; the
process that runs the flow puts the real values back from its own settings
(``restore_masked``), so a secret never leaves the machine it was set on.

Not pydantic's ``SecretStr``: it hides a whole value, and these settings are addresses with a secret
inside (``tcp://user:pw@host``, ``…?key=…``) that are shown, and restored, with only the secret masked.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any
from urllib.parse import unquote

from flows.settings import Settings, SettingsError, env_variable

MASK = "***"
_MISSING = object()  # a path that the real settings lack

# Query parameter names that carry a credential, compared lower-cased; names ending in
# _key, -key, _token, ... count too (x-amz-signature, subscription-key, private_token).
SECRET_PARAMS = frozenset({
    "key", "apikey", "api_key", "api-key", "token", "access_token", "accesstoken", "refresh_token", "id_token",
    "auth_token", "secret", "client_secret", "clientsecret", "password", "passwd", "pwd", "pass", "sig",
    "signature", "auth", "authorization", "credential", "credentials",
})
SECRET_PARAM_SUFFIXES = ("_key", "-key", "apikey", "_token", "-token", "token", "_secret", "-secret", "secret",
                         "_password", "-password", "_signature", "-signature", "_credential", "-credential")

# Setting names whose whole value is a secret. Narrower than the query names on purpose:
# verify.results_key names a reply field and llm.api_key_env an environment variable.
SECRET_SETTINGS = frozenset({"api_key", "apikey", "token", "access_token", "password", "secret", "client_secret"})
SECRET_SETTING_SUFFIXES = ("_api_key", "_token", "_password", "_secret")

_USERINFO = re.compile(r"(?P<scheme>\b[A-Za-z][A-Za-z0-9+.\-]*://)(?P<userinfo>[^/?#@\s]+(?:@[^/?#@\s]+)*)@")
_PARAM = re.compile(r"(?P<head>[?&#;](?P<name>[^=&#;?\s]+)=)(?P<value>[^&#;\s]*)")
_PLACEHOLDER = re.compile(r"\{[A-Za-z_][A-Za-z0-9_]*\}")
# Keys with a well-known shape, wherever they stand: OpenAI (sk-, sk-proj-), Hugging Face, GitHub,
# Google, Slack, AWS access key ids, and "Bearer <token>".
_TOKEN = re.compile(
    r"(?<![A-Za-z0-9_\-])(?:"
    r"(?P<keep>sk-|hf_|ghp_|gho_|ghu_|ghs_|ghr_|github_pat_|xox[abposr]-)[A-Za-z0-9_\-]{16,}"
    r"|AIza[A-Za-z0-9_\-]{30,}|AKIA[A-Z0-9]{16}"
    r"|(?P<bearer>[Bb]earer\s+)[A-Za-z0-9._~+/\-]{8,}=*)"
)


def mask_value(text: str) -> str:
    """``text`` with URL userinfo, secret query parameters and known key shapes replaced by ``***``.

    Everything else stays byte for byte (nothing is re-encoded: ``{query}`` stays readable);
    a string with no secret comes back unchanged.
    """
    text = _USERINFO.sub(lambda m: f"{m['scheme']}{MASK}@", text)
    text = _PARAM.sub(_mask_param, text)
    return _TOKEN.sub(lambda m: f"{m['keep'] or m['bearer'] or ''}{MASK}", text)


def is_masked(value: Any) -> bool:
    return isinstance(value, str) and MASK in value


def is_secret_param(name: str) -> bool:
    name = unquote(name).lower()
    return name in SECRET_PARAMS or name.endswith(SECRET_PARAM_SUFFIXES)


def is_secret_setting(name: str) -> bool:
    """Whether a setting's whole value is a secret; ``api_key_env`` (a variable's name) is not."""
    name = name.lower()
    return name in SECRET_SETTINGS or name.endswith(SECRET_SETTING_SUFFIXES)


def mask_settings(data: dict) -> dict:
    """A masked deep copy of a settings dump (``Settings.model_dump(mode="json")``)."""
    return _mask(data, None)


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


def restore_masked(masked: dict, real: dict) -> dict:
    """``masked`` with each masked value replaced by ``real``'s at the same path, when masking that gives it.

    ``real`` is the unmasked settings dump of the process that runs the flow. A masked value it
    cannot supply raises ``SettingsError`` naming the setting and where to set it.
    """
    return _restore(masked, real, [])


def _mask_param(match: re.Match) -> str:
    value = match["value"]
    if not value or not is_secret_param(match["name"]) or _PLACEHOLDER.fullmatch(value) or value == MASK:
        return match[0]
    return match["head"] + MASK


def _mask(value: Any, key: Any) -> Any:
    if isinstance(key, str) and is_secret_setting(key) and value is not None:
        return MASK
    if isinstance(value, str):
        return mask_value(value)
    if isinstance(value, dict):
        return {k: _mask(v, k) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_mask(v, None) for v in value]
    return value


def _restore(masked: Any, real: Any, path: list) -> Any:
    if isinstance(masked, dict):
        return {k: _restore(v, real.get(k, _MISSING) if isinstance(real, dict) else _MISSING, [*path, k])
                for k, v in masked.items()}
    if isinstance(masked, list):
        return [_restore(v, real[i] if isinstance(real, list) and i < len(real) else _MISSING, [*path, i])
                for i, v in enumerate(masked)]
    if not is_masked(masked):
        return masked
    key = path[-1] if path and isinstance(path[-1], str) else None  # a list item is masked by its value only
    if real is not _MISSING and _mask(real, key) == masked:
        return real
    raise SettingsError(_no_secret_message(path))


def _no_secret_message(path: list) -> str:
    dotted = "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in path).lstrip(".")
    keys = []
    for part in path:
        if isinstance(part, int):
            break
        keys.append(part)
    variable = env_variable(".".join(keys))
    as_json = " (as JSON)" if len(keys) < len(path) else ""
    return (f"setting {dotted} is masked in the flow's parameters and this process has no value that masks the "
            f"same; set it on the machine that runs the flow, in its config file or in the environment "
            f"variable {variable}{as_json}")

