"""The job-ad matcher of the running bank: read back from the cache folder when the same packs
and the same code built it before; else built in a spawned child process that reads the bank
from its own cache and stores the matcher, so building it (tens of seconds and a few hundred
megabytes of transient memory at 30,000 questions) costs the bot neither its memory nor its
event loop's GIL. The bot then reads the stored matcher. Without a cache, it is built here.
"""

from __future__ import annotations

import logging
import multiprocessing
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

from domain import jobmatch
from domain.jobmatch import Matcher, build_matcher
from questions.cache import load_bank_cached, read, source_hash, store
from questions.loader import Bank

log = logging.getLogger(__name__)
# The matcher's own code and vocabulary: a change to either makes a cached matcher stale.
MATCHER_CODE = (Path(jobmatch.__file__), jobmatch.VOCABULARY)


def _place(folder: Path, fingerprint: str) -> tuple[Path, str]:
    return (folder / f"matcher-{fingerprint[:16]}.pickle",
            f"{fingerprint}:{source_hash(MATCHER_CODE)}")


def build_and_store(root: Path, folder: Path, fingerprint: str) -> bool:
    """In the child: the bank from its cache, its matcher built and stored. False when the
    packs changed meanwhile (the caller builds its own)."""
    bank = load_bank_cached(root, folder)
    if bank.fingerprint != fingerprint:
        return False
    path, key = _place(folder, fingerprint)
    store(path, key, [build_matcher(bank)])
    return True


def matcher_from_cache(folder: Path | None, root: Path | None = None,
                       ) -> Callable[[Bank], Matcher]:
    """How `matcher_for` makes a bank's matcher: from the cache, else in a child process
    (when the bank came from `root` through the cache), else here."""
    def build(bank: Bank) -> Matcher:
        if folder is None or bank.fingerprint is None:
            return build_matcher(bank)
        path, key = _place(folder, bank.fingerprint)
        found = read(path, key)
        if found:
            return found[0]
        if root is not None:
            try:
                with ProcessPoolExecutor(
                        max_workers=1, mp_context=multiprocessing.get_context("spawn")) as pool:
                    if pool.submit(build_and_store, root, folder, bank.fingerprint).result():
                        found = read(path, key)
            except Exception as exc:  # noqa: BLE001 - building it here still works
                log.warning("job-ad matcher not built in a child process: %s", exc)
            if found:
                return found[0]
        matcher = build_matcher(bank)
        store(path, key, [matcher])
        return matcher
    return build
