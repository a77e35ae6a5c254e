"""Prefect defaults for a quiet, offline, local run. Call before importing prefect."""

from __future__ import annotations

import os


def configure_prefect(verbose: bool = False) -> None:
    defaults = {
        # No telemetry: this machine, like many data hosts, has no route to the internet.
        "PREFECT_SERVER_ANALYTICS_ENABLED": "false",
        # The temporary local server needs a few seconds, more on a first run that migrates its database.
        "PREFECT_SERVER_EPHEMERAL_STARTUP_TIMEOUT_SECONDS": "120",
        # Quiet by default: the CLI prints its own summary and turns errors into one line;
        # --verbose shows Prefect's run log, tracebacks included.
        "PREFECT_LOGGING_LEVEL": "INFO" if verbose else "CRITICAL",
        "PREFECT_UI_ENABLED": "false",
    }
    if not os.environ.get("PREFECT_API_URL"):
        # Only the temporary in-process server: when it stops at the end of a run, its
        # task-run recorder is cancelled mid-flight and logs CancelledError tracebacks.
        # Raising the *server's* log level hides those; the task-run history is still
        # recorded (disabling the recorder instead would drop it). A real Prefect server
        # (PREFECT_API_URL set) keeps its own logging untouched.
        defaults["PREFECT_LOGGING_SERVER_LEVEL"] = "CRITICAL"
    for key, value in defaults.items():
        os.environ.setdefault(key, value)
