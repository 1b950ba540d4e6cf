"""The bundled bank keeps the authoring guide's rules (shared/question-authoring.md)."""

from collections import Counter

import pytest

from questions.cli import BUNDLED
from questions.loader import check_bank, fits_one_message
from questions.model import LEVELS

FIELDS = {
    "backend", "frontend", "fullstack", "database",
    "devops-cloud", "security", "qa-test-automation", "mobile",
    "ml-engineer", "ai-engineer", "data-engineer", "game-dev",
}
MAX_BODY, MAX_OPTION, MAX_EXPLANATION = 700, 200, 600


@pytest.fixture(scope="module")
def bank():
    loaded, problems = check_bank(BUNDLED)
    assert not problems, "\n".join(problems[:30])
    return loaded


def strictly_longest_is_right(question) -> bool:
    lengths = {k: len(v) for k, v in question.text("en").options.items()}
    top = max(lengths.values())
    return lengths[question.correct] == top and list(lengths.values()).count(top) == 1


def test_every_field_has_enough_questions_per_level_and_topics(bank):
    missing = FIELDS - set(bank.fields)
    assert not missing, f"fields without questions yet: {sorted(missing)}"
    for field in FIELDS:
        counts = Counter(q.seniority for q in bank.pool(field))
        for level in LEVELS:
            assert counts[level] >= 20, f"{field} {level}: {counts[level]} < 20"
        assert len(bank.fields[field].topics) >= 5, field


def test_every_question_is_bilingual_with_four_options(bank):
    for q in bank.questions.values():
        assert q.en is not None and q.tr is not None, q.id
        assert list(q.en.options) == ["a", "b", "c", "d"], q.id
        assert q.en.body.strip() != q.tr.body.strip(), f"{q.id}: Turkish body is a copy"


def test_no_duplicate_bodies(bank):
    for lang in ("en", "tr"):
        bodies = Counter(" ".join(q.text(lang).body.split()).lower() for q in bank.questions.values())
        dupes = [b[:60] for b, n in bodies.items() if n > 1]
        assert not dupes, f"{lang} duplicate bodies: {dupes}"


def test_sizes_fit_the_guide_and_one_message(bank):
    too_big = []
    for q in bank.questions.values():
        for lang in ("en", "tr"):
            t = q.text(lang)
            if len(t.body) > MAX_BODY:
                too_big.append(f"{q.id} {lang} body {len(t.body)}")
            if len(t.explanation) > MAX_EXPLANATION:
                too_big.append(f"{q.id} {lang} explanation {len(t.explanation)}")
            too_big += [f"{q.id} {lang} option {k} {len(v)}" for k, v in t.options.items()
                        if len(v) > MAX_OPTION]
        too_big += [f"{q.id}: {p}" for p in fits_one_message(q)]
    assert not too_big, too_big[:20]


def test_right_keys_are_spread_evenly(bank):
    overall = Counter(q.correct for q in bank.questions.values())
    total = sum(overall.values())
    for key in "abcd":
        assert 0.20 <= overall[key] / total <= 0.30, f"key {key}: {overall[key] / total:.0%}"
    for field in bank.fields.values():
        for topic in field.topics.values():
            if len(topic.question_ids) < 12:
                continue
            keys = Counter(bank.questions[i].correct for i in topic.question_ids)
            for key in "abcd":
                share = keys[key] / len(topic.question_ids)
                assert 0.15 <= share <= 0.35, f"{field.key}/{topic.key} key {key}: {share:.0%}"


def test_the_right_option_is_rarely_the_longest(bank):
    longest = sum(strictly_longest_is_right(q) for q in bank.questions.values())
    assert longest / len(bank) <= 0.30, f"{longest / len(bank):.0%} of right options are longest"


def test_review_folders_are_not_packs(tmp_path):
    import shutil

    shutil.copytree(BUNDLED / "backend", tmp_path / "backend")
    reviews = tmp_path / "backend" / "reviews"
    reviews.mkdir(exist_ok=True)
    (reviews / "caching.answers.yaml").write_text("backend-caching-001: c\n", encoding="utf-8")
    loaded, problems = check_bank(tmp_path)
    assert not problems and loaded is not None


@pytest.mark.parametrize("explanation", [
    "Retrying (b) only trades duplicates for missing data.",
    "Option c forgets the cache.",
    "That is why b is wrong.",
    "The others (a, c, d) all block.",
    "Bu yüzden c şıkkı yanlış.",
])
def test_the_validator_refuses_explanations_that_name_option_letters(explanation):
    from pydantic import ValidationError

    from questions.model import QuestionText

    with pytest.raises(ValidationError, match="by its letter"):
        QuestionText(body="Q?", options={"a": "x", "b": "y", "c": "z", "d": "w"},
                     explanation=explanation)
    # Code and program output are not option references.
    QuestionText(body="Q?", options={"a": "x", "b": "y"},
                 explanation="`f.bind(c)` returns a new function; the log shows (A, D).")


def test_every_question_of_a_reviewed_field_has_its_blind_review_on_record(bank):
    """Fields with a reviews/ folder keep, per pack, the blind answers and the record, and
    every question of the pack (new and old) appears in both."""
    import yaml

    for field_dir in sorted(p for p in BUNDLED.iterdir() if (p / "reviews").is_dir()):
        field = bank.fields[field_dir.name]
        for topic_key, topic in field.topics.items():
            answers = field_dir / "reviews" / f"{topic_key}.answers.txt"
            record = field_dir / "reviews" / f"{topic_key}.md"
            assert answers.is_file() and record.is_file(), f"{field_dir.name}/{topic_key}"
            blind = yaml.safe_load(answers.read_text(encoding="utf-8")) or {}
            text = record.read_text(encoding="utf-8")
            for qid in topic.question_ids:
                assert qid in blind, f"{qid}: no blind answer"
                assert qid in text, f"{qid}: not in the review record"
