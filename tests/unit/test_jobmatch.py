"""The job-ad matcher's parts: normalisation, level reading, file decoding, ranking, plan weighting."""

from __future__ import annotations

import random
from collections import Counter

import pytest

from domain import jobmatch
from domain.jobmatch import (
    DEFAULT_LEVEL,
    Matcher,
    detect_level,
    fold,
    matcher_for,
    read_text_file,
    stem,
    tokenize,
    word_forms,
)
from questions.loader import load_bank
from questions.selection import PLAN_SHARE, plan_pool
from tests.conftest import TEST_BANK
from tests.jobmatch.evaluate import load_ads


def terms(text: str) -> list[str]:
    return [t.term for t in tokenize(text)]


def test_fold_handles_turkish_casing_and_keeps_positions():
    assert fold("KIDEMLİ YAZILIM MÜHENDİSİ") == "kidemli yazilim muhendisi"
    assert fold("İstanbul, IŞIK, ığdır") == "istanbul, isik, igdir"
    text = "Çağrı Şenöz — İş İlanı"
    assert len(fold(text)) == len(text)


@pytest.mark.parametrize("forms", [
    ["test", "tests", "testing", "testleri", "testler", "testlerin"],
    ["veritabanı", "veritabanları", "veritabanının", "VERİTABANI"],
    ["güvenlik", "güvenliği", "guvenligi", "GÜVENLİK"],
    ["container", "containers"],
    ["deploy", "deployment", "deployed", "deploying", "deploys"],
    ["monitor", "monitoring", "monitored"],
])
def test_word_forms_share_a_stem(forms):
    assert len({stem(fold(word)) for word in forms}) == 1, {w: stem(fold(w)) for w in forms}


def test_tokens_keep_tech_names_and_drop_suffixes_after_apostrophes():
    assert terms("C++, C#, .NET and Go") == ["cpp", "csharp", "dotnet", "golang"]
    assert terms("Kubernetes'e ve Docker'ı") == terms("Kubernetes Docker")
    assert terms("we go to the 2024 summit") == [stem("summit")]  # "go" the verb, a number


def test_token_positions_point_into_the_original_text():
    text = "Kıdemli Kubernetes'e hâkim"
    tokens = tokenize(text)
    assert [text[t.start : t.end] for t in tokens] == ["Kubernetes", "hâkim"]


@pytest.mark.parametrize(("ad", "level"), [
    ("Senior Backend Engineer\nWe build APIs.", "senior"),
    ("Lead Frontend Engineer\nReact.", "senior"),
    ("Staff AI Engineer, LLM Platform", "senior"),
    ("Kıdemli Yazılım Mühendisi\nJava", "senior"),
    ("KIDEMLİ VERİ MÜHENDİSİ", "senior"),
    ("Junior Python Developer\nDjango", "junior"),
    ("Stajyer Veri Mühendisi", "junior"),
    ("Yeni mezun yazılım geliştirici arıyoruz", "junior"),
    ("Graduate Cloud Engineer\nAWS", "junior"),
    ("Frontend Developer (Mid-level)", "mid"),
    ("Backend Developer\nEn az 3 yıl deneyim", "mid"),
    ("Backend Developer\nminimum 5 yıllık tecrübe", "senior"),
    ("Backend Developer\nSektörde 2-4 yıl deneyimli", "mid"),
    ("Backend Developer\nYou have 5+ years of experience with Go", "senior"),
    ("Backend Developer\nat least three years of experience", "mid"),
    ("Backend Developer\n0-2 years of experience, internships count", "junior"),
    ("Engine Programmer\nWe'd like 3+ years of C++ in games", "mid"),
    ("Backend Engineer\nYou will mentor junior engineers. 6+ years of experience.", "senior"),
    ("Junior Developer\nYou will work alongside senior engineers.", "junior"),
    ("Yazılımcı\nKıdemli mühendislerle birlikte çalışacak, yeni mezun", "junior"),
])
def test_level_from_title_years_and_words(ad, level):
    guess = detect_level(ad)
    assert (guess.level, guess.stated) == (level, True), guess


@pytest.mark.parametrize("ad", [
    "Backend Developer\nWe were founded 15 years ago and you will lead the design of our API.",
    "Backend Geliştirici\n10 yıl önce kurulan şirketimizde Java ile mikroservis geliştireceksin.",
])
def test_an_ad_without_a_level_gets_the_default(ad):
    guess = detect_level(ad)
    assert (guess.level, guess.stated, guess.evidence) == (DEFAULT_LEVEL, False, ())


def test_level_evidence_quotes_the_ad():
    assert detect_level("Senior Go Engineer").evidence == ("Senior",)
    assert detect_level("Go Engineer\nEn az 3 yıl deneyim").evidence == ("3 yıl",)


def test_text_files_decode_from_common_encodings():
    ad = "Kıdemli Yazılım Mühendisi — Kubernetes'e hâkim"
    assert read_text_file(ad.encode()) == ad
    assert read_text_file(b"\xef\xbb\xbf" + ad.encode()) == ad
    assert read_text_file(ad.encode("utf-16")) == ad
    assert read_text_file(ad.encode("cp1254")) == ad
    assert read_text_file(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" * 20) is None
    assert read_text_file(bytes(range(256)) * 4) is None


@pytest.fixture
def matcher(bundled_bank) -> Matcher:
    return matcher_for(bundled_bank)  # built once per run, shared with the other job-ad tests


def ad_text(ad_id: str) -> str:
    return next(ad["text"] for ad in load_ads() if ad["id"] == ad_id)


def test_a_match_names_the_field_topics_and_the_ads_own_words(matcher):
    result = matcher.match(ad_text("devops-en-senior-k8s"))
    assert result.best is not None and result.best.field == "devops-cloud"
    assert 0.5 < result.best.confidence <= 1
    assert 1 <= len(result.best.topics) <= 5
    assert len(result.fields) == len(matcher.field_keys)
    topics = {t.topic: t.words for t in result.best.topics}
    assert "GitHub Actions" in topics["ci-cd"] and "AWS" in topics["cloud-services-cost"]
    text = ad_text("devops-en-senior-k8s")
    assert all(word in " ".join(text.split()) for t in result.best.topics for word in t.words)


OIDC_AD = """Senior Backend Engineer (Python)
We build our APIs in Python with Django and PostgreSQL. You will own authentication with OAuth 2.0
and OpenID Connect, design REST APIs, write SQL and tune indexes, run services in Docker on
Kubernetes, and handle concurrency with asyncio and Celery queues. Experience with Redis caching
and message queues (Kafka) is a plus."""


def test_evidence_words_are_whole_keywords_never_fragments(matcher):
    result = matcher.match(OIDC_AD)
    assert result.best is not None and result.best.field == "backend"
    topics = {t.topic: t.words for t in result.best.topics}
    # "Connect" belongs to "OpenID Connect"; "Python" is no evidence for a topic about logins.
    assert "Connect" not in topics["concurrency-async"]
    assert "asyncio" in topics["concurrency-async"]
    assert "OpenID Connect" in topics["auth-sessions"] and "Python" not in topics["auth-sessions"]
    assert all("Python" not in words for words in topics.values())


def test_a_shared_stem_is_not_a_shared_word():
    assert word_forms("Connect") != word_forms("connection")
    assert word_forms("indexes") == word_forms("indexing") == word_forms("index")
    assert word_forms("veritabanları") == word_forms("veritabanı")


def test_turkish_without_diacritics_or_in_capitals_matches_the_same(matcher):
    ad = ("Kıdemli Veri Mühendisi\nAirflow ile iş akışı orkestrasyonu, Spark ve dbt ile veri "
          "hatları, BigQuery üzerinde veri ambarı modelleme. En az 5 yıl deneyim.")
    plain = ad.translate(str.maketrans("ıİşŞğĞçÇöÖüÜ", "iIsSgGcCoOuU"))
    for text in (ad, plain, ad.upper()):
        result = matcher.match(text)
        assert result.best is not None and result.best.field == "data-engineer", text
        assert result.level.level == "senior"
        assert result.best.topics[0].topic == "warehouse-modeling"


def test_off_topic_ads_get_no_match_but_every_field_stays_ranked(matcher):
    result = matcher.match(ad_text("offtopic-en-chef"))
    assert result.best is None and not result.confident
    assert len(result.fields) == len(matcher.field_keys)


def test_a_long_text_of_chance_words_is_not_a_match(matcher):
    # 100 KB of restaurant talk collects stray words ("temperature", "warehouse"): still no match.
    text = (ad_text("offtopic-en-chef") + ad_text("offtopic-en-warehouse")) * 60
    assert matcher.match(text[:100_000]).best is None


def test_a_matcher_works_without_a_vocabulary_and_is_built_once_per_bank():
    bank = load_bank(TEST_BANK)
    plain = Matcher(bank, vocabulary={})
    ad = "Backend Engineer: HTTP caching with Cache-Control, ETag and a CDN; queues and retries."
    assert plain.match(ad).fields[0].field == "backend"
    assert matcher_for(bank) is matcher_for(bank)
    assert matcher_for(load_bank(TEST_BANK)) is not matcher_for(bank)  # a reload rebuilds


def test_plan_topics_get_about_two_thirds_of_the_questions():
    pool = load_bank(TEST_BANK).pool("backend")
    rng = random.Random(1)
    drawn = Counter()
    for _ in range(3000):
        part = plan_pool(pool, {"queues"}, rng)
        drawn["plan" if all(q.topic == "queues" for q in part) else "other"] += 1
    assert abs(drawn["plan"] / 3000 - PLAN_SHARE) < 0.03


def test_a_plan_covering_most_of_the_pool_keeps_its_natural_share_and_no_plan_changes_nothing():
    pool = load_bank(TEST_BANK).pool("backend")
    covered = [q for q in pool if q.topic == "http-caching"]
    assert len(covered) / len(pool) > PLAN_SHARE
    rng = random.Random(2)
    inside = sum(plan_pool(pool, {"http-caching"}, rng)[0].topic == "http-caching"
                 for _ in range(3000))
    assert abs(inside / 3000 - len(covered) / len(pool)) < 0.03
    state = rng.getstate()
    assert plan_pool(pool, (), rng) is pool and plan_pool(pool, {"nope"}, rng) is pool
    assert rng.getstate() == state  # without a plan the usual selection sees the same draws


@pytest.mark.parametrize("text", [
    "Tune PostgreSQL indexes; indexing and re-indexing of C++ and C# services on .NET 8.",
    "Go ile eşzamanlılık: goroutine'ler ve kanallar. Let's go build it in Go.",
    "Kubernetes'te kaynak limitleri, İstanbul'da geliştiriciler, 3 yıl deneyim, node.js",
    "",
])
def test_the_builds_term_reader_gives_tokenizes_terms(text):
    # Building the matcher reads terms without positions; they must be tokenize's, in order.
    assert jobmatch._text_terms(text) == [t.term for t in jobmatch.tokenize(text)]
    assert jobmatch._text_terms(text) == [t.term for t in jobmatch.tokenize(text)]  # cached
