"""The bank cache (questions/cache.py): a restart with unchanged packs reads the validated bank
and the job-ad matcher back; a changed, added or removed pack, or a damaged cache, rebuilds."""

from __future__ import annotations

import copy
import gc
import os
import pickle
import shutil
from pathlib import Path

import pytest

from domain import jobmatch
from questions import cache, loader, packsplit
from services.jobmatch_index import matcher_from_cache
from tests.conftest import TEST_BANK


@pytest.fixture
def bank_dir(tmp_path: Path) -> Path:
    folder = tmp_path / "bank"
    shutil.copytree(TEST_BANK, folder)
    return folder


def no_loading(*_args, **_kwargs):
    raise AssertionError("the bank was parsed again instead of read from the cache")


def test_an_unchanged_bank_is_read_back_from_the_cache(bank_dir, tmp_path, monkeypatch):
    folder = tmp_path / "cache"
    first = cache.load_bank_cached(bank_dir, folder)
    assert first.fingerprint and list(folder.glob("bank-*.pickle"))
    monkeypatch.setattr(loader, "checked_packs", no_loading)
    again = cache.load_bank_cached(bank_dir, folder)
    assert set(again.questions) == set(first.questions)
    assert again.fingerprint == first.fingerprint
    assert not list(folder.glob(".*")), "no temporary file is left behind"


def test_a_changed_added_or_removed_pack_rebuilds(bank_dir, tmp_path):
    folder = tmp_path / "cache"
    first = cache.load_bank_cached(bank_dir, folder)
    pack = bank_dir / "backend" / "http-caching.yaml"
    text = pack.read_text(encoding="utf-8")
    pack.write_text(text.replace("Which header", "Which HTTP header", 1), encoding="utf-8")
    stat = pack.stat()
    os.utime(pack, ns=(stat.st_atime_ns, stat.st_mtime_ns + 1_000_000))
    changed = cache.load_bank_cached(bank_dir, folder)
    assert changed.fingerprint != first.fingerprint
    assert any("Which HTTP header" in q.en.body for q in changed.questions.values())
    pack.unlink()
    fewer = cache.load_bank_cached(bank_dir, folder)
    assert len(fewer) < len(changed)


def test_a_damaged_cache_is_rebuilt_not_fatal(bank_dir, tmp_path, caplog):
    folder = tmp_path / "cache"
    cache.load_bank_cached(bank_dir, folder)
    [path] = folder.glob("bank-*.pickle")
    path.write_bytes(path.read_bytes()[:100])  # as if a crash cut it short
    bank = cache.load_bank_cached(bank_dir, folder)
    assert len(bank) > 0 and "unreadable" in caplog.text
    path.write_bytes(b"not a pickle at all")
    assert len(cache.load_bank_cached(bank_dir, folder)) == len(bank)


def test_an_invalid_bank_is_refused_and_not_cached(tmp_path):
    bad = tmp_path / "bad"
    bad.mkdir()
    (bad / "pack.yaml").write_text("field: x\nquestions: [1]\n", encoding="utf-8")
    with pytest.raises(loader.BankError):
        cache.load_bank_cached(bad, tmp_path / "cache")
    assert not list((tmp_path / "cache").glob("*.pickle")) if (tmp_path / "cache").exists() else True


def test_the_matcher_is_cached_with_the_bank(bank_dir, tmp_path, monkeypatch):
    folder = tmp_path / "cache"
    bank = cache.load_bank_cached(bank_dir, folder)
    built = matcher_from_cache(folder)(bank)
    assert list(folder.glob("matcher-*.pickle"))
    monkeypatch.setattr("services.jobmatch_index.build_matcher", no_loading)
    again = matcher_from_cache(folder)(cache.load_bank_cached(bank_dir, folder))
    ad = "Backend engineer: HTTP caching, ETag, Cache-Control and message queues"
    assert again.match(ad) == built.match(ad)
    # A bank that did not come from a folder is never cached (nothing to key it by).
    monkeypatch.setattr("services.jobmatch_index.build_matcher", jobmatch.build_matcher)
    loose = loader.load_bank(bank_dir)
    assert loose.fingerprint is None
    matcher_from_cache(tmp_path / "elsewhere")(loose)
    assert not (tmp_path / "elsewhere").exists()


def test_packs_read_in_worker_processes_are_the_same(bank_dir):
    """Above PARALLEL_BYTES the packs are parsed in spawned workers: same packs, same order,
    same problems as reading them here."""
    alone, problems = loader.checked_packs(bank_dir)
    together, problems_too = loader.checked_packs(bank_dir, parallel_over=0)
    assert problems == problems_too == []
    assert [p.model_dump() for p in together] == [p.model_dump() for p in alone]
    # The workers' splits are what the cache stores: the same packs, short keys included.
    splits: list = []
    loader.checked_packs(bank_dir, parallel_over=0, splits=splits)
    joined = [packsplit.join(skeleton, packsplit.held(texts)) for skeleton, texts in splits]
    assert all("key" in q.__dict__ and "en" not in q.__dict__
               for pack in joined for q in pack.questions)
    assert [p.model_dump() for p in joined] == [p.model_dump() for p in alone]
    assert joined == alone
    (bank_dir / "backend" / "broken.yaml").write_text("field: [", encoding="utf-8")
    assert loader.checked_packs(bank_dir, parallel_over=0)[1] == loader.checked_packs(bank_dir)[1]


def test_the_matcher_is_built_in_a_child_process_and_read_back(bank_dir, tmp_path, monkeypatch):
    folder = tmp_path / "cache"
    bank = cache.load_bank_cached(bank_dir, folder)
    monkeypatch.setattr("services.jobmatch_index.build_matcher", no_loading)  # not here
    matcher = matcher_from_cache(folder, bank_dir)(bank)
    assert list(folder.glob("matcher-*.pickle"))
    ad = "Backend engineer: HTTP caching, ETag, Cache-Control and message queues"
    assert matcher.match(ad) == jobmatch.build_matcher(bank).match(ad)


def test_texts_stay_in_the_cache_file_until_a_question_is_used(bank_dir, tmp_path):
    """A restart reads each question without its texts; they come from the file when first
    used, the same as parsed, even after a newer cache replaced the file."""
    folder = tmp_path / "cache"
    parsed = loader.load_bank(bank_dir)
    cache.load_bank_cached(bank_dir, folder)
    bank = cache.load_bank_cached(bank_dir, folder)
    assert all("en" not in q.__dict__ and "tr" not in q.__dict__ for q in bank.questions.values())
    [path] = folder.glob("bank-*.pickle")
    path.unlink()  # as when another bot's newer cache is renamed over it
    question = next(iter(bank.questions.values()))
    assert question.text("en").body == parsed.questions[question.id].text("en").body
    assert question.languages == parsed.questions[question.id].languages
    assert all(q == parsed.questions[q.id] for q in bank.questions.values())
    assert [q.model_dump() for q in bank.questions.values()] == [
        q.model_dump() for q in parsed.questions.values()]


def test_a_question_without_its_texts_copies_and_pickles_whole(bank_dir, tmp_path):
    folder = tmp_path / "cache"
    cache.load_bank_cached(bank_dir, folder)

    def fresh():
        return next(iter(cache.load_bank_cached(bank_dir, folder).questions.values()))

    whole = loader.load_bank(bank_dir).questions[fresh().id]
    assert pickle.loads(pickle.dumps(fresh())) == whole
    assert copy.deepcopy(fresh()) == whole
    changed = fresh().model_copy(update={"shuffle": False})
    assert changed.en == whole.en and changed.shuffle is False
    assert list(fresh().model_dump()) == list(whole.model_dump())  # the fields' order


def test_a_cache_cut_short_in_its_texts_is_rebuilt(bank_dir, tmp_path, caplog):
    folder = tmp_path / "cache"
    cache.load_bank_cached(bank_dir, folder)
    [path] = folder.glob("bank-*.pickle")
    path.write_bytes(path.read_bytes()[:-10])  # the texts are not read at start: the size is
    bank = cache.load_bank_cached(bank_dir, folder)
    assert "unreadable" in caplog.text
    assert all(q.text("en").body for q in bank.questions.values())


def test_the_cache_file_is_closed_with_the_last_question_that_could_read_it(bank_dir, tmp_path):
    folder = tmp_path / "cache"
    cache.load_bank_cached(bank_dir, folder)
    before = len(os.listdir("/proc/self/fd"))
    bank = cache.load_bank_cached(bank_dir, folder)
    assert len(os.listdir("/proc/self/fd")) == before + 1
    del bank
    gc.collect()
    assert len(os.listdir("/proc/self/fd")) == before
