"""The reference scorer: a model's predictions on a release, scored the way the papers report them.

Predictions are JSON lines, one per item: ``{"id": item_id, "prediction": ...}``, and for the
multiple-choice configs optionally ``{"id", "ranking": [...]}`` (best first). An option is
named by its text, its 0-based index or its letter (A–J).

* **kgc, qa** (CDTP, Appendix C.3): MRR (1/rank of the gold, 0 when the ranking lacks it; a
  single prediction is a ranking of one), Hits@1, accuracy (the top option is the gold) and
  F1, the macro average over the ten answer positions of the per-position F1 of the top
  choice (an item without a prediction counts as a miss of its gold position).
* **t2t**: corpus BLEU-4, mean ROUGE-1 and ROUGE-L F-measures and mean METEOR, over tokens
  that are single CJK characters and punctuation marks, or runs of Latin letters and digits
  (the usual way to score Chinese without a segmenter's bias). METEOR is NLTK's
  implementation with exact and stem matching; its WordNet synonym stage is off (WordNet has
  no Chinese).
* **cloze**: accuracy of the filled blank, the answer written alike counting as the answer (one value
  key: without 《》 or punctuation, 明朝 for 明代).
* **simpleqa** (Chinese SimpleQA): each answer is CORRECT, INCORRECT or NOT_ATTEMPTED, by an
  LLM grader when one is given, else by normalised matching (labelled so in the result);
  CO, NA, IN are their shares, CGA = CO / (CO + IN), F = 2·CO·CGA / (CO + CGA).
* **CUGE** (CUGE, section 4): each dataset's main score is divided by a baseline model's score
  on it when baseline predictions are given; a task scores the mean of its datasets, a
  capability the mean of its tasks, and the overall score the mean of the capabilities.
"""

from __future__ import annotations

import contextlib
import math
import re
import unicodedata
from collections import Counter
from pathlib import Path
from statistics import mean
from typing import Any, Iterator

import pyarrow.parquet as pq

from filters.normalize import _t2s, normalize, value_key
from schemas.jsonl import JSONLinesError, read_jsonl
from schemas.records import LETTERS
from schemas.releases import ReleaseError, config_files, load_manifest

MAIN_METRIC = {"kgc": "accuracy", "qa": "accuracy", "t2t": "rouge-l", "cloze": "accuracy", "simpleqa": "f_score"}
_TOKEN = re.compile(r"[A-Za-z0-9]+|[^\sA-Za-z0-9]")
_REFUSALS = ("不知道", "不清楚", "无法回答", "我不确定", "idontknow")


class PredictionsError(ValueError):
    """The predictions file cannot be read; the message says which line and why."""


def read_predictions(path: Path) -> dict[str, dict]:
    if not Path(path).is_file():
        raise PredictionsError(f"predictions file {path} does not exist")
    found: dict[str, dict] = {}
    hint = 'each line must be an object like {"id": "...", "prediction": "..."}'
    try:
        for number, row in read_jsonl(path, hint=hint):
            if not isinstance(row.get("id"), str):
                raise PredictionsError(f'{path}:{number}: each line needs a string "id" (the item_id)')
            if "prediction" not in row and "ranking" not in row:
                raise PredictionsError(f'{path}:{number}: item {row["id"]} has neither "prediction" nor "ranking"')
            if "ranking" in row and not isinstance(row["ranking"], list):
                raise PredictionsError(f'{path}:{number}: "ranking" must be a list, best option first')
            if row["id"] in found:
                raise PredictionsError(f"{path}:{number}: item {row['id']} is predicted twice")
            found[row["id"]] = row
    except JSONLinesError as exc:
        raise PredictionsError(str(exc)) from None
    return found


def tokens(text: str) -> list[str]:
    """NFKC, simplified characters, lower case; then CJK characters and marks one by one, Latin
    letters and digits in runs (whitespace separates runs, unlike ``normalize``, which drops it)."""
    if not text:
        return []
    return _TOKEN.findall(_t2s().convert(unicodedata.normalize("NFKC", text)).lower())


# --- multiple choice --------------------------------------------------------------------------


def _option_index(value: Any, options: list[str]) -> int | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value if 0 <= value < len(options) else None
    if not isinstance(value, str):
        return None
    text = value.strip()
    if len(text) == 1 and text.upper() in LETTERS[:len(options)]:
        return LETTERS.index(text.upper())
    key = normalize(text)
    for index, option in enumerate(options):
        if normalize(option) == key:
            return index
    return None


def score_choice(items: list[dict], predictions: dict[str, dict]) -> dict:
    reciprocal, hits, gold_positions, chosen = [], [], [], []
    for item in items:
        row = predictions.get(item["item_id"], {})
        ranking = row.get("ranking") if "ranking" in row else ([row["prediction"]] if "prediction" in row else [])
        ranked = [_option_index(v, item["options"]) for v in ranking]
        ranked = list(dict.fromkeys(i for i in ranked if i is not None))
        gold = item["answer_index"]
        reciprocal.append(1 / (ranked.index(gold) + 1) if gold in ranked else 0.0)
        hits.append(1.0 if ranked[:1] == [gold] else 0.0)
        gold_positions.append(gold)
        chosen.append(ranked[0] if ranked else None)
    f1s = []
    for position in sorted(set(gold_positions) | {c for c in chosen if c is not None}):
        tp = sum(1 for g, c in zip(gold_positions, chosen) if g == position and c == position)
        fp = sum(1 for g, c in zip(gold_positions, chosen) if g != position and c == position)
        fn = sum(1 for g, c in zip(gold_positions, chosen) if g == position and c != position)
        f1s.append(2 * tp / (2 * tp + fp + fn) if tp + fp + fn else 0.0)
    n = len(items)
    return {"mrr": sum(reciprocal) / n if n else 0.0, "hits@1": sum(hits) / n if n else 0.0,
            "accuracy": sum(hits) / n if n else 0.0, "f1": mean(f1s) if f1s else 0.0}


# --- text -------------------------------------------------------------------------------------


class _Tokens:
    """rouge-score's tokenizer interface over :func:`tokens` (its own keeps only ASCII letters and digits)."""

    @staticmethod
    def tokenize(text: str) -> list[str]:
        return tokens(text)


class _NoWordNet:
    """METEOR's synonym stage, switched off: WordNet has no Chinese entries."""

    @staticmethod
    def synsets(_word: str) -> list:
        return []


def score_text(items: list[dict], predictions: dict[str, dict]) -> dict:
    """Corpus BLEU and METEOR (nltk), mean ROUGE-1 and ROUGE-L F1 (Google's rouge-score), all over
    :func:`tokens`: Chinese characters one by one, Latin words and numbers whole."""
    from nltk.translate.bleu_score import SmoothingFunction, corpus_bleu
    from nltk.translate.meteor_score import single_meteor_score
    from rouge_score.rouge_scorer import RougeScorer

    texts = [(item["answer"], str(predictions.get(item["item_id"], {}).get("prediction", "") or ""))
             for item in items]
    refs, hyps = [tokens(r) for r, _ in texts], [tokens(h) for _, h in texts]
    if not items:
        return {"bleu": 0.0, "rouge-1": 0.0, "rouge-l": 0.0, "meteor": 0.0}
    bleu = corpus_bleu([[r] for r in refs], hyps, smoothing_function=SmoothingFunction().method1) \
        if any(hyps) else 0.0
    meteor = [single_meteor_score(r, h, wordnet=_NoWordNet()) if r and h else 0.0 for r, h in zip(refs, hyps)]
    scorer = RougeScorer(["rouge1", "rougeL"], tokenizer=_Tokens())
    rouge = [scorer.score(r, h) for r, h in texts]
    return {"bleu": float(bleu), "rouge-1": mean(float(x["rouge1"].fmeasure) for x in rouge),
            "rouge-l": mean(float(x["rougeL"].fmeasure) for x in rouge), "meteor": mean(meteor)}


def score_cloze(items: list[dict], predictions: dict[str, dict]) -> dict:
    """A fill is right when it is the answer written alike (one value key: 梦溪笔谈 for 《梦溪笔谈》, 明朝
    for 明代), the rule by which the release never offers a value and its other spelling as two answers, or one of
    the item's ``also_true`` (the era's other form, a region that holds the place)."""
    right = 0
    for item in items:
        said = value_key(str(predictions.get(item["item_id"], {}).get("prediction", "") or ""))
        right += bool(said) and said in {value_key(a) for a in (item["answer"], *(item.get("also_true") or ()))}
    return {"accuracy": right / len(items) if items else 0.0}


# --- short answers ------------------------------------------------------------------------------


def match_grade(answer: str, response: str, also: tuple[str, ...] = ()) -> str:
    """The offline grade: NOT_ATTEMPTED when empty or a refusal, CORRECT when the normalised
    gold, or one of ``also`` (the item's ``also_true``: 明代 for 明朝, 汉福德 for 美国加利福尼亚州汉福德), occurs in
    the normalised response, else INCORRECT."""
    said = normalize(response)
    if not said or any(r in said for r in _REFUSALS):
        return "NOT_ATTEMPTED"
    golds = [g for g in (normalize(a) for a in (answer, *also)) if g]
    return "CORRECT" if any(g in said for g in golds) else "INCORRECT"


GRADES = ("CORRECT", "INCORRECT", "NOT_ATTEMPTED")


def _llm_grades(grader, items: list[dict], responses: list[str]) -> list[str]:
    from schemas.llm import Prompt
    from verifiers.items import PROMPTS

    prompt = Prompt.load(PROMPTS / "grade.txt")
    results = grader.map("score_grade", [prompt.messages(question=i["question"], answer=i["answer"], response=r)
                                         for i, r in zip(items, responses)],
                         lambda d: "" if isinstance(d, dict) and d.get("grade") in GRADES
                         else 'expected {"grade": "CORRECT" | "INCORRECT" | "NOT_ATTEMPTED"}')
    failed = [i["item_id"] for i, r in zip(items, results) if not r.ok]
    if failed:
        raise ReleaseError(f"the grader failed on {len(failed)} of {len(items)} answers (first: {failed[0]}); "
                           "no score was computed: check the endpoint, or score without --grader-model")
    return [r.data["grade"] for r in results]


def score_short(items: list[dict], predictions: dict[str, dict], grader=None) -> dict:
    responses = [str(predictions.get(i["item_id"], {}).get("prediction", "") or "") for i in items]
    if grader is not None:
        attempted = [(i, r) for i, r in zip(items, responses) if r.strip()]
        graded = dict(zip((i["item_id"] for i, _ in attempted),
                          _llm_grades(grader, [i for i, _ in attempted], [r for _, r in attempted])))
        grades = [graded.get(i["item_id"], "NOT_ATTEMPTED") for i in items]
    else:
        grades = [match_grade(i["answer"], r, tuple(i.get("also_true") or ())) for i, r in zip(items, responses)]
    n = len(items)
    counts = Counter(grades)
    co, inc, na = (counts[g] / n if n else 0.0 for g in GRADES)
    cga = co / (co + inc) if co + inc else 0.0
    f = 2 * co * cga / (co + cga) if co + cga else 0.0
    by_category: dict[str, dict] = {}
    for item, grade in zip(items, grades):
        by_category.setdefault(item.get("primary_category") or "", Counter())[grade] += 1
    return {"correct": co, "not_attempted": na, "incorrect": inc, "correct_given_attempted": cga, "f_score": f,
            "grader": grader.name if grader is not None else "normalised match (no LLM)",
            "by_primary_category": {k: {g.lower(): v[g] for g in GRADES} for k, v in sorted(by_category.items())}}


# --- the release ------------------------------------------------------------------------------


def _items(directory: Path, manifest, config: str, split: str) -> list[dict]:
    wanted = ["item_id", "question", "answer", "options", "answer_index", "primary_category", "also_true"]
    rows = []
    for f in config_files(manifest, config, split):
        path = directory / f.path
        present = set(pq.read_schema(path).names)  # releases before item schema 1.6.0 have no also_true
        rows += pq.read_table(path, columns=[c for c in wanted if c in present]).to_pylist()
    return sorted(rows, key=lambda r: r["item_id"])


def _dataset_scores(items_by_config: dict[str, list[dict]], predictions: dict[str, dict], grader) -> dict:
    scores: dict[str, dict] = {}
    for config, items in items_by_config.items():
        if config in ("kgc", "qa"):
            metrics = score_choice(items, predictions)
        elif config == "t2t":
            metrics = score_text(items, predictions)
        elif config == "cloze":
            metrics = score_cloze(items, predictions)
        else:
            metrics = score_short(items, predictions, grader)
        predicted = sum(1 for i in items if i["item_id"] in predictions)
        scores[config] = {"items": len(items), "predicted": predicted, "main_metric": MAIN_METRIC[config], **metrics}
    return scores


@contextlib.contextmanager
def llm_grader(model: str | None, base_url: str, api_key_env: str, data_dir: Path) -> Iterator[Any]:
    """An LLM client grading with ``model`` (an OpenAI-compatible endpoint), its replies cached in
    ``data_dir``'s catalog, for the block; None without a model (normalised matching)."""
    if not model:
        yield None
        return
    from schemas.llm import LLMClient, LLMSettings

    grader = LLMClient(LLMSettings(base_url=base_url, model=model, api_key_env=api_key_env),
                       Path(data_dir) / "catalog.duckdb")
    try:
        yield grader
    finally:
        grader.close()


def score_release(directory: Path, predictions_path: Path, split: str = "eval", baseline: Path | None = None,
                  grader=None) -> dict:
    directory = Path(directory)
    manifest = load_manifest(directory)
    predictions = read_predictions(predictions_path)
    items_by_config = {config: items for config in MAIN_METRIC
                       if (items := _items(directory, manifest, config, split))}
    datasets = _dataset_scores(items_by_config, predictions, grader)
    if not datasets:
        raise ReleaseError(f"{manifest.name} {manifest.version} has no item configs in split {split!r} to score")
    known = {i["item_id"] for items in items_by_config.values() for i in items}
    unknown = sorted(set(predictions) - known)
    base = _dataset_scores(items_by_config, read_predictions(baseline), grader) if baseline else None
    _name_categories(datasets, manifest)
    if base is not None:
        _name_categories(base, manifest)
    return {"release": f"{manifest.name} {manifest.version}", "split": split,
            "predictions": str(predictions_path), "unknown_ids": len(unknown), "unknown_examples": unknown[:3],
            "datasets": datasets, "cuge": cuge(datasets, manifest.hierarchy, base)}


def _name_categories(datasets: dict[str, dict], manifest) -> None:
    """Categories by the names the export writes (the taxonomy's Chinese names), not the ids items store."""
    from warehouse.export import _category_names

    topics = None
    for metrics in datasets.values():
        if "by_primary_category" in metrics:
            topics = topics if topics is not None else _category_names(manifest)[0]
            metrics["by_primary_category"] = {topics.get(k, k): v for k, v in metrics["by_primary_category"].items()}


def cuge(datasets: dict[str, dict], hierarchy: dict[str, dict], baseline: dict[str, dict] | None) -> dict:
    """Dataset → task → capability → overall, means at each level (CUGE's multi-level score). With a baseline,
    ``normalisation`` says for each dataset whether its score was divided by the baseline's, and why not."""
    normalised: dict[str, float] = {}
    normalisation: dict[str, dict] = {}
    notes = []
    for config, metrics in datasets.items():
        value = metrics[metrics["main_metric"]]
        if baseline is not None:
            base = baseline.get(config) or {}
            reference = base.get(metrics["main_metric"])
            row = {"normalised": bool(reference), "main_metric": metrics["main_metric"], "raw": value,
                   "baseline": reference}
            if not reference:
                why = ("the baseline predicts none of its items" if not base.get("predicted")
                       else "the baseline scores 0 on it")
                row["why_raw"] = why
                notes.append(f"{config}: {why}, so its score is its raw {metrics['main_metric']}, not normalised")
            normalisation[config] = row
            if not reference:
                normalised[config] = value
                continue
            value = value / reference
        normalised[config] = value
    tasks: dict[tuple[str, str], list[float]] = {}
    for config, value in normalised.items():
        labels = hierarchy.get(config) or {}
        capability = labels.get("capability") or "unlabelled"
        task = labels.get("task") or config
        tasks.setdefault((capability, task), []).append(value)
    task_scores = {f"{c} / {t}": mean(v) for (c, t), v in sorted(tasks.items())}
    capabilities: dict[str, list[float]] = {}
    for (c, t), v in tasks.items():
        capabilities.setdefault(c, []).append(mean(v))
    capability_scores = {c: mean(v) for c, v in sorted(capabilities.items())}
    overall = mean(capability_scores.values()) if capability_scores else math.nan
    return {"normalised_by_baseline": baseline is not None, "datasets": normalised, "normalisation": normalisation,
            "tasks": task_scores, "capabilities": capability_scores, "overall": overall, "notes": notes}


def format_scores(result: dict) -> str:
    lines = [f"{result['release']}, split {result['split']}: {result['predictions']}"]
    for config, m in result["datasets"].items():
        shown = {k: v for k, v in m.items() if isinstance(v, float)}
        lines.append(f"  {config:<9} {m['predicted']}/{m['items']} predicted  "
                     + "  ".join(f"{k} {v:.4f}" for k, v in shown.items()))
        if config == "simpleqa":
            lines.append(f"            grader: {m['grader']}")
    c = result["cuge"]
    kind = "normalised by the baseline" if c["normalised_by_baseline"] else "raw main metrics (no --baseline)"
    lines.append(f"  CUGE-style scores ({kind}):")
    for config, row in c.get("normalisation", {}).items():
        lines.append(f"    dataset {config}: {c['datasets'][config]:.4f} "
                     + (f"({row['main_metric']} {row['raw']:.4f} / baseline {row['baseline']:.4f})" if row["normalised"]
                        else f"(raw {row['main_metric']}: {row['why_raw']})"))
    for name, value in c["capabilities"].items():
        lines.append(f"    capability {name}: {value:.4f}")
    for name, value in c["tasks"].items():
        lines.append(f"    task {name}: {value:.4f}")
    lines.append(f"    overall: {c['overall']:.4f}")
    lines += [f"  note: {n}" for n in c["notes"]]
    if result["unknown_ids"]:
        lines.append(f"  ignored {result['unknown_ids']} predictions whose ids are not items of this split "
                     f"(e.g. {', '.join(result['unknown_examples'])})")
    return "\n".join(lines)
