from __future__ import annotations

import re
from bench.localhost import free_port
from tests.flows.test_cli import zhbench


def test_crawl_resume_recrawl_and_reparse_on_the_mirror(tmp_path):
    data = str(tmp_path / "data")
    port = str(free_port())
    first = zhbench("crawl", "--site", "mirror", "--max-pages", "40", "--name", "c1", "--data-dir", data,
                    "--mirror-port", port)
    assert first.returncode == 0, first.stderr
    assert first.stdout.startswith("crawl c1: ")
    assert "ok 40" in first.stdout
    assert "crawl: " in first.stderr  # the progress display (one line every 10 s when not a terminal)

    twice = zhbench("crawl", "--site", "mirror", "--max-pages", "40", "--name", "c1", "--data-dir", data,
                    "--mirror-port", port)
    assert twice.returncode == 1
    assert twice.stderr.strip() == (f"zhbench: error: crawl c1 already exists in {data}/crawls/c1; "
                                    "continue it with --resume, or choose another --name")

    resumed = zhbench("crawl", "--site", "mirror", "--max-pages", "60", "--name", "c1", "--resume",
                      "--data-dir", data, "--mirror-port", port)
    assert resumed.returncode == 0, resumed.stderr
    assert "ok 60" in resumed.stdout

    again = zhbench("crawl", "--site", "mirror", "--max-pages", "60", "--recrawl-after", "0s", "--name", "r1",
                    "--data-dir", data, "--mirror-port", port)
    assert again.returncode == 0, again.stderr
    # Every page with content fetched before (pages and sense lists) is asked for again and answers 304.
    before = sum(int(n) for n in re.findall(r"(?:ok|disambiguation) (\d+)", resumed.stdout.splitlines()[1]))
    assert re.search(rf"changes .*unchanged {before}\b", again.stdout), again.stdout

    reparsed = zhbench("reparse", "c1", "--data-dir", data)
    assert reparsed.returncode == 0 and "re-parsed" in reparsed.stdout


def test_crawl_mistakes_are_one_line(tmp_path):
    data = str(tmp_path / "data")
    cases = [
        (["crawl", "--site", "mirror", "--resume", "--data-dir", data], "no crawl to resume"),
        (["crawl", "--site", "baidu", "--data-dir", data], "--seeds is required for a real site"),
        (["crawl", "--site", "mirror", "--recrawl-after", "soon", "--data-dir", data], "--recrawl-after 'soon'"),
        (["crawl", "--site", "bing"], "argument --site: invalid choice"),
        (["reparse", "--data-dir", data], "no crawl to resume"),
        (["crawl", "--site", "mirror", "--name", "../../x", "--data-dir", data], "crawl name '../../x': use letters"),
        (["crawl", "--site", "mirror", "--name", str(tmp_path / "abs"), "--data-dir", data], "names a directory"),
        (["reparse", str(tmp_path), "--data-dir", data], "is not a crawl of"),
    ]
    for args, message in cases:
        result = zhbench(*args)
        lines = result.stderr.strip().splitlines()
        assert result.returncode != 0 and len(lines) == 1, (args, result.stderr)
        assert lines[0].startswith("zhbench: error:") and message in lines[0], (args, lines[0])


def test_the_progress_line_prints_without_a_terminal(monkeypatch):
    import io
    import time

    from flows.crawling import ProgressLine

    clock = [1000.0]
    monkeypatch.setattr(time, "monotonic", lambda: clock[0])
    stream = io.StringIO()
    line = ProgressLine(stream)
    for second in range(25):
        clock[0] = 1000.0 + second
        line({"pages": second, "ok": second, "elapsed_s": second,
              "waiting": {"seconds": 30, "host": "h:1", "reason": "http_429", "strikes": 2, "cap_s": 300,
                          "retry_after": ""}})
    line({"pages": 25, "ok": 25, "elapsed_s": 25, "finished": True})
    printed = stream.getvalue().splitlines()
    assert len(printed) == 4  # at 0 s, 10 s, 20 s and the end
    assert "waiting 30 s: h:1 answered http_429 2x in a row (backoff, cap 300 s)" in printed[0]
    assert printed[-1].startswith("crawl: 25 pages")
