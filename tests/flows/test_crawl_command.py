from __future__ import annotations

import json
import re
from bench.localhost import free_port
from flows.cli import main
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


def test_crawl_input_mistakes_are_one_line_before_any_crawler_starts(tmp_path, capsys):
    data = str(tmp_path / "data")
    seeds_json = tmp_path / "seeds.json"
    seeds_json.write_text('{"李白": 1}', encoding="utf-8")
    too_long = tmp_path / "long.txt"
    too_long.write_text("关" * 300 + "\n", encoding="utf-8")
    cases = [
        # the crawler process used to log these two and exit 0 with nothing fetched
        (["--redis", "notaurl"], 1, "--redis 'notaurl' is not a Redis URL"),
        (["--redis", "redis://127.0.0.1:1/0"], 1, "Redis at redis://127.0.0.1:1/0 does not answer"),
        (["--seeds", str(tmp_path)], 1, f"seed file {tmp_path} is a directory; give a .tsv"),
        (["--seeds", str(seeds_json)], 1, f"{seeds_json}: expected a JSON list of seeds"),  # crawled as a title before
        (["--data-dir", str(seeds_json)], 2, f"argument --data-dir: {seeds_json} is a file, not a directory"),
        (["--max-pages", "-5"], 2, "argument --max-pages: must be 0 or more, got -5"),  # queued all but 5 before
        (["--seeds", str(too_long), "--name", "long"], 1,
         "no start URLs: every seed was dropped (seed_too_long: a title of 300 characters (titles have at most 255))"),
    ]
    for args, status, message in cases:
        assert main(["crawl", "--site", "mirror", "--data-dir", data, "--mirror-port", "0", *args]) == status, args
        captured = capsys.readouterr()
        lines = captured.err.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith(f"zhbench: error: {message}"), (args, captured.err)
    # Seeds that were all dropped are still recorded, each with its reason.
    (line,) = (tmp_path / "data" / "crawls" / "long" / "fetched.jsonl").read_text(encoding="utf-8").splitlines()
    assert json.loads(line)["page_status"] == "dropped" and json.loads(line)["seed_chars"] == 300


def test_seeds_too_long_to_be_titles_are_dropped_with_their_reason_and_counted(tmp_path):
    """A 300-character seed and a 10 MB line were dropped by Scrapy's URL length limit with no trace."""
    port = free_port()
    seeds = tmp_path / "seeds.json"
    seeds.write_text(json.dumps(["李白", {"title": "关" * 300}, {"url": f"http://127.0.0.1:{port}/item/杜甫"}],
                                ensure_ascii=False), encoding="utf-8")
    huge = tmp_path / "huge.txt"
    huge.write_text("长江\n" + "关" * 10_000_000 + "\n", encoding="utf-8")
    result = zhbench("crawl", "--site", "mirror", "--seeds", str(seeds), str(huge), "--max-pages", "3",
                     "--max-depth", "0", "--name", "c", "--data-dir", str(tmp_path / "data"), "--mirror-port", str(port))
    assert result.returncode == 0, result.stderr
    assert "  not kept   dropped/seed_too_long 2  (reasons in" in result.stdout
    log = [json.loads(line) for line in (tmp_path / "data" / "crawls" / "c" / "fetched.jsonl").open(encoding="utf-8")]
    assert sorted((e["seed_chars"], e["reason"]) for e in log if e["page_status"] == "dropped") == [
        (300, "seed_too_long: a title of 300 characters (titles have at most 255)"),
        (10_000_000, "seed_too_long: a title of 10,000,000 characters (titles have at most 255)")]
    assert {e["title"] for e in log if e["page_status"] == "ok"} == {"李白", "杜甫", "长江"}


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
