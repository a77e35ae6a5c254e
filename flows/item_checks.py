"""Running the item verifiers over a stage's items, and the verification report.

Question items (qa, simpleqa) still kept after dedup and the contamination check go
through safety, criteria, evidence and difficulty in that order; each verifier sees
only what the ones before it kept. Safety also covers every other kind. Drops are
added to ``drops`` (item id -> (reason, evidence)). Per item, ``verified_by`` gets the
checks that returned a verdict on it and ``unverified_by`` those that ran on it without
one (a failed LLM call); an item of a kind in ``verify.drop_unverified`` is then dropped
with ``unverified:<check>:<error>``, any other stays with the label. Every drop is
written to ``verification.jsonl`` with its verifier, reason and evidence, and every
check (kept or not: criteria verdicts, quoted evidence, each panel model's answer and
grade) to ``checks.jsonl`` beside it.

The report counts, per check: items checked, verdicts, failures by error, items its
verdicts dropped and items dropped for want of its verdict. ``verifiers_ran`` lists only
the checks that returned at least one verdict.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

from flows.settings import VerifySettings
from schemas import Item
from verifiers.items import (CriteriaVerifier, DifficultyFilter, EvidenceVerifier, OptionsJudge, SafetyVerifier,
                             load_terms)
from schemas.llm import LLMClient, LLMSettings, error_code
from schemas.records import QUESTION_KINDS
from schemas.storage.shards import iter_records


def _tally() -> dict:
    return {"checked": 0, "verdicts": 0, "failures": Counter(), "dropped": 0, "dropped_unverified": 0}


def verify_items(item_shards: list[Path], drops: dict, verified_by: dict, verify: VerifySettings,
                 client: LLMClient | None, page_shards: list[Path], report_path: Path, cache: Path,
                 unverified_by: dict | None = None, sources: dict | None = None,
                 pair_texts: dict[str, str] | None = None) -> dict:
    """Runs the checks on the kept items; fills ``drops``, ``verified_by``, ``unverified_by`` and ``sources``
    (item id -> the pages of other sites that state its answer: URL and passage, see EvidenceVerifier).
    ``pair_texts``: pair id -> text, the items' own pages as released (whether they state the answer)."""
    from flows.verify import search_backend
    from verifiers.items import TERMS
    from verifiers.search import CachedSearch

    unverified_by = {} if unverified_by is None else unverified_by
    items = [i for i in iter_records(item_shards, Item) if i.decision == "kept" and i.item_id not in drops]
    kinds = {i.item_id: i.kind for i in items}
    report: dict = {}
    checks: dict[str, dict] = {}
    records = []
    report_path.parent.mkdir(parents=True, exist_ok=True)
    every_check = open(report_path.with_name("checks.jsonl"), "w", encoding="utf-8")

    def apply(name: str, results: dict) -> None:
        dropped = 0
        for item_id, check in sorted(results.items()):
            verified_by.setdefault(item_id, []).extend(check.verified)
            unverified_by.setdefault(item_id, []).extend(check.unverified)
            for check_name in check.verified:
                tally = checks.setdefault(check_name, _tally())
                tally["checked"] += 1
                tally["verdicts"] += 1
            for check_name, error in check.unverified.items():
                tally = checks.setdefault(check_name, _tally())
                tally["checked"] += 1
                tally["failures"][error_code(error)] += 1
            reason, evidence = check.reason, {**check.evidence}
            if not check.keep:
                checks.setdefault(check.by, _tally())["dropped"] += 1
            elif check.unverified and kinds[item_id] in verify.drop_unverified:
                check_name, error = next(iter(check.unverified.items()))
                reason, evidence["error"] = f"unverified:{check_name}:{error_code(error)}", error
                checks[check_name]["dropped_unverified"] += 1
            every_check.write(json.dumps({"item_id": item_id, "verifier": name, "keep": not reason,
                                          "reason": reason, "verified": check.verified,
                                          "unverified": check.unverified, "evidence": evidence},
                                         ensure_ascii=False, sort_keys=True) + "\n")
            if reason:
                drops[item_id] = (reason, {"verifier": name, **evidence})
                records.append({"item_id": item_id, "verifier": name, "reason": reason, "evidence": evidence})
                dropped += 1
        report[name] = {"checked": len(results), "dropped": dropped}

    safety = SafetyVerifier(load_terms(verify.sensitive_terms or TERMS), client)
    apply("safety", safety.check(items))
    questions = [i for i in items if i.kind in QUESTION_KINDS and i.item_id not in drops]

    apply("criteria", CriteriaVerifier(client).check(questions))
    questions = [i for i in questions if i.item_id not in drops]
    if client is not None:
        judged = OptionsJudge(client).check([i for i in items if i.kind in ("kgc", "qa") and i.item_id not in drops])
        apply("options", judged)
        report["options"]["disagrees"] = sum(bool(c.evidence.get("disagrees")) for c in judged.values())

    if page_shards or not verify.searches_the_crawl:
        backend = search_backend(verify, page_shards, cache)
        search = CachedSearch(backend, cache)
        try:
            evidence = EvidenceVerifier(search, client, verify.evidence_k, min_sources=verify.min_sources)
            own = {i.item_id: pair_texts[i.source_pair_ids[0]] for i in questions
                   if pair_texts is not None and i.source_pair_ids and i.source_pair_ids[0] in pair_texts}
            results = evidence.check(questions, own if pair_texts is not None else None)
            if sources is not None:
                sources.update((i, c.evidence["sources"]) for i, c in results.items() if c.evidence.get("sources"))
            apply("evidence", results)
        finally:
            search.close()
            backend.close()
        report["evidence"]["retrieval_supported"] = len(evidence.supported)
        checks.setdefault("retrieval_support", _tally())["checked"] = len(questions)
        questions = [i for i in questions if i.item_id not in drops]

    panel = [LLMClient(LLMSettings(base_url=m.base_url, model=m.model, api_key_env=m.api_key_env), cache)
             for m in verify.panel]
    try:
        if panel:
            apply("difficulty", DifficultyFilter(panel, client).check(questions))
            report["difficulty"]["panel"] = [model.report() for model in panel]
    finally:
        for model in panel:
            model.close()
        every_check.close()

    with open(report_path, "w", encoding="utf-8") as handle:
        for record in sorted(records, key=lambda r: r["item_id"]):
            handle.write(json.dumps(record, ensure_ascii=False, sort_keys=True) + "\n")
    ran = sorted(name for name, tally in checks.items() if tally["verdicts"])
    return {"verifiers_ran": ran,
            "checks": {name: {**tally, "failures": dict(sorted(tally["failures"].items()))}
                       for name, tally in sorted(checks.items())},
            "drop_unverified": list(verify.drop_unverified), **report}
