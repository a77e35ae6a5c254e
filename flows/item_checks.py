"""Running the item verifiers over a stage's items, and the verification report.

Question items (qa, simpleqa) still kept after dedup and the contamination check go
through safety, criteria, evidence and difficulty in that order; each verifier sees
only what the ones before it kept. Safety also covers every other kind. Drops are
added to ``drops`` (item id -> (reason, evidence)); the verifiers that ran on an item
go to ``verified_by``; every drop is written to ``verification.jsonl`` with its
verifier, reason and evidence, and every check (kept or not: criteria verdicts, quoted
evidence, each panel model's answer and grade) to ``checks.jsonl`` beside it.
"""

from __future__ import annotations

import json
from pathlib import Path

from flows.settings import VerifySettings
from schemas import Item
from verifiers.items import CriteriaVerifier, DifficultyFilter, EvidenceVerifier, SafetyVerifier, load_terms
from verifiers.llm import LLMClient, LLMSettings
from flows.items import QUESTION_KINDS
from warehouse.shards import iter_records


def verify_items(item_shards: list[Path], drops: dict, verified_by: dict, verify: VerifySettings,
                 client: LLMClient | None, page_shards: list[Path], report_path: Path, cache: Path) -> dict:
    from flows.verify import search_backend
    from verifiers.items import TERMS
    from verifiers.search import CachedSearch

    items = [i for i in iter_records(item_shards, Item) if i.decision == "kept" and i.item_id not in drops]
    report: dict = {}
    records = []
    report_path.parent.mkdir(parents=True, exist_ok=True)
    every_check = open(report_path.with_name("checks.jsonl"), "w", encoding="utf-8")

    def apply(name: str, checks: dict, ran_on) -> None:
        dropped = 0
        for item_id, check in sorted(checks.items()):
            verified_by.setdefault(item_id, []).extend(ran_on(item_id))
            every_check.write(json.dumps({"item_id": item_id, "verifier": name, "keep": check.keep,
                                          "reason": check.reason, "evidence": check.evidence},
                                         ensure_ascii=False, sort_keys=True) + "\n")
            if not check.keep:
                drops[item_id] = (check.reason, {"verifier": name, **check.evidence})
                records.append({"item_id": item_id, "verifier": name, "reason": check.reason,
                                "evidence": check.evidence})
                dropped += 1
        report[name] = {"checked": len(checks), "dropped": dropped}

    safety = SafetyVerifier(load_terms(verify.sensitive_terms or TERMS), client)
    apply("safety", safety.check(items), lambda _: safety.ran())
    questions = [i for i in items if i.kind in QUESTION_KINDS and i.item_id not in drops]

    criteria = CriteriaVerifier(client)
    apply("criteria", criteria.check(questions), lambda _: criteria.ran())
    questions = [i for i in questions if i.item_id not in drops]

    if page_shards or verify.search_backend != "local":
        search = CachedSearch(search_backend(verify, page_shards), cache)
        try:
            evidence = EvidenceVerifier(search, client, verify.evidence_k)
            apply("evidence", evidence.check(questions), evidence.ran_on)
        finally:
            search.close()
        report["evidence"]["retrieval_supported"] = len(evidence.supported)
        questions = [i for i in questions if i.item_id not in drops]

    panel = [LLMClient(LLMSettings(base_url=m.base_url, model=m.model, api_key_env=m.api_key_env), cache)
             for m in verify.panel]
    try:
        if panel:
            difficulty = DifficultyFilter(panel, client)
            apply("difficulty", difficulty.check(questions), lambda _: difficulty.ran())
            report["difficulty"]["panel"] = [model.report() for model in panel]
    finally:
        for model in panel:
            model.close()
        every_check.close()

    with open(report_path, "w", encoding="utf-8") as handle:
        for record in sorted(records, key=lambda r: r["item_id"]):
            handle.write(json.dumps(record, ensure_ascii=False, sort_keys=True) + "\n")
    ran = sorted({name for names in verified_by.values() for name in names})
    return {"verifiers_ran": ran, **report}
