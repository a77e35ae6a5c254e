"""``zhbench mirror serve``, ``export`` and ``synth``: the bundled offline Baike mirror."""

from __future__ import annotations

import argparse
from pathlib import Path

from flows.cli.common import (UsageError, any_port, command, directory, file_path, group, outside_releases,
                              per_second, seed, share, whole)

ENTRIES = whole(1, 10_000_000)  # entries of a generated mirror or file


def cmd_mirror_serve(args: argparse.Namespace) -> int:
    import time

    from crawlers.mirror.facts import FACTS_DIR
    from crawlers.mirror.site import MirrorServer, Site
    from crawlers.mirror.synth import SynthConfig

    if args.profile == "realistic":
        if args.facts or args.synthetic:
            raise UsageError("--facts and --synthetic apply to the demo profile; "
                             "the realistic one takes --size and --seed")
        site = Site(profile="realistic", size=args.size, seed=args.seed, rate_limit=args.rate_limit)
    else:
        site = Site(facts_dir=Path(args.facts) if args.facts else FACTS_DIR, synthetic=args.synthetic,
                    synth_config=SynthConfig(seed=args.seed), rate_limit=args.rate_limit)
    try:
        server = MirrorServer(site, port=args.port, host=args.host)
    except OSError as exc:
        raise UsageError(f"cannot listen on {args.host}:{args.port} ({exc.strerror}); choose another --port") from None
    with server:
        extra = f" + {args.synthetic} synthetic" if args.synthetic else ""
        print(f"mirror: {len(site.entries)} entries{extra} at {server.url}/item/<title> "
              f"(sogou {server.url}/v<id>.htm, wikipedia {server.url}/wiki/<title>); Ctrl-C stops", flush=True)
        try:
            while True:
                time.sleep(3600)
        except KeyboardInterrupt:
            pass
    return 0


def cmd_mirror_export(args: argparse.Namespace) -> int:
    from crawlers.mirror.facts import FACTS_DIR
    from crawlers.mirror.site import Site

    site = Site(facts_dir=Path(args.facts) if args.facts else FACTS_DIR)
    written = site.export(outside_releases(args.directory, "DIRECTORY"))
    print(f"wrote {written} pages of {len(site.entries)} entries to {args.directory}")
    return 0


def cmd_mirror_synth(args: argparse.Namespace) -> int:
    from crawlers.mirror.facts import FACTS_DIR, load_facts
    from crawlers.mirror.synth import SynthConfig, Synthesizer, write_synthetic

    config = SynthConfig(seed=args.seed, ungrounded_rate=args.ungrounded_rate,
                         trailing_rate=args.trailing_rate, near_duplicate_rate=args.near_duplicate_rate)
    synth = Synthesizer(load_facts(Path(args.facts) if args.facts else FACTS_DIR), config)
    write_synthetic(synth, args.count, outside_releases(args.out),
                    outside_releases(args.seeds_out, "--seeds-out") if args.seeds_out else None)
    print(f"wrote {args.count} synthetic entries (seed {args.seed}) to {Path(args.out)}")
    return 0


def register(sub) -> None:
    _, mirror = group(sub, "mirror", "The bundled offline Baike mirror.", "zhbench mirror serve --port 8800",
                      "mirror_command")
    serve = command(mirror, "serve", "Serve the mirror on 127.0.0.1 until Ctrl-C.",
                    "zhbench mirror serve --port 8800\ncurl http://127.0.0.1:8800/item/李白\n"
                    "zhbench mirror serve --profile realistic --size 5000", cmd_mirror_serve)
    serve.add_argument("--port", type=any_port, default=8800, help="port (default 8800; 0 picks a free one)")
    serve.add_argument("--host", default="127.0.0.1", help="address to bind (default 127.0.0.1)")
    serve.add_argument("--facts", type=directory, help="facts directory (default: the bundled facts table)")
    serve.add_argument("--synthetic", type=whole(0, 10_000_000), default=0,
                       help="also serve this many synthetic entries at /item/<title>/<20000000+i>")
    serve.add_argument("--seed", type=seed, default=0, help="seed of the synthetic or realistic entries (default 0)")
    serve.add_argument("--profile", choices=["demo", "realistic"], default="demo",
                       help="demo: the facts table; realistic: generated entries that behave like real Baike")
    serve.add_argument("--size", type=ENTRIES, default=3000, help="entries of the realistic profile (default 3000)")
    serve.add_argument("--rate-limit", type=per_second, default=0.0,
                       help="above this many entry requests per second, answer 429 or a captcha redirect (0: off)")
    export = command(mirror, "export",
                     "Write every mirror page as a static HTML file (for review, fixtures and zhbench parse).",
                     "zhbench mirror export mirror-html\nzhbench parse mirror-html/baidu/李白-8555631.html "
                     "--url http://127.0.0.1:8800/item/李白/8555631", cmd_mirror_export)
    export.add_argument("directory", type=directory, help="output directory (created if missing)")
    export.add_argument("--facts", type=directory, help="facts directory (default: the bundled facts table)")
    synth = command(mirror, "synth",
                    "Write synthetic entries, recombined from the facts, with planted noise labelled.",
                    "zhbench mirror synth --count 100000 --seed 7 --out synth.jsonl --seeds-out synth-urls.txt",
                    cmd_mirror_synth)
    synth.add_argument("--count", type=ENTRIES, required=True, help="number of entries")
    synth.add_argument("--seed", type=seed, default=0, help="seed (default 0); same seed, same entries")
    synth.add_argument("--out", type=file_path, required=True,
                       help="JSON Lines file to write (facts format plus 'labels')")
    synth.add_argument("--seeds-out", type=file_path, help="also write each entry's Baidu-form path, one per line")
    synth.add_argument("--facts", type=directory,
                       help="facts directory to recombine (default: the bundled facts table)")
    synth.add_argument("--ungrounded-rate", type=share, default=0.3, help="share of entries with an unmentioned row")
    synth.add_argument("--trailing-rate", type=share, default=0.2, help="share with a trailing uncovered relation")
    synth.add_argument("--near-duplicate-rate", type=share, default=0.05, help="share that copy an earlier entry")
