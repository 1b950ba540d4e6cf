"""The bank cache (questions/cache.py): a restart with unchanged packs reads the validated bank
and the job-ad matcher back; a changed, added or removed pack, or a damaged cache, rebuilds."""

from __future__ import annotations

import os
import pickle
import shutil
from pathlib import Path

import pytest

from domain import jobmatch
from questions import cache, loader
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
    # The workers' pickles are what the cache stores: the same packs, short keys included.
    pickled: list[bytes] = []
    loader.checked_packs(bank_dir, parallel_over=0, pickled=pickled)
    unpickled = [pickle.loads(blob) for blob in pickled]
    assert [p.model_dump() for p in unpickled] == [p.model_dump() for p in alone]
    assert all("key" in q.__dict__ for pack in unpickled for q in pack.questions)
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
