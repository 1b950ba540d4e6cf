"""Caches of what is slow to build from the packs: the validated bank, and things derived from it
(the job-ad matcher). A restart with unchanged packs reads them back instead of parsing and
validating every question again (30,000 questions: seconds instead of tens of seconds).

Each cache file is keyed by every pack's path, size and modification time and by the source of
the code that builds it, so a changed pack, a new pack, a removed one or an upgrade invalidates
it. Files are written to a temporary name and renamed into place, so a crash while writing
leaves the old cache or none, never half of one; a cache that cannot be read is rebuilt. They are
pickles the bot wrote itself, in a folder of its own: keep that folder as private as the
database beside it.
"""

from __future__ import annotations

import hashlib
import logging
import os
import pickle
import tempfile
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from questions import loader, model
from questions.loader import Bank, BankError, pack_paths

log = logging.getLogger(__name__)
# The code whose output a bank cache holds: a change to any of it makes old caches stale.
BANK_CODE = (Path(loader.__file__), Path(model.__file__))


def source_hash(paths: Iterable[Path]) -> str:
    digest = hashlib.sha256()
    for path in paths:
        digest.update(path.read_bytes())
    return digest.hexdigest()


def bank_fingerprint(root: Path) -> str:
    """What the bank under `root` is made of: each pack's path, size and modification time."""
    digest = hashlib.sha256(source_hash(BANK_CODE).encode())
    for path in pack_paths(root):
        stat = path.stat()
        digest.update(f"{path.relative_to(root)}\0{stat.st_size}\0{stat.st_mtime_ns}\n".encode())
    return digest.hexdigest()


def read(path: Path, key: str) -> list[Any] | None:
    """The values stored under `key` at `path`, or None (missing, stale or damaged)."""
    try:
        with path.open("rb") as file, loader.paused_gc():
            if pickle.load(file) != key:  # the key first: a stale cache is not unpickled whole
                return None
            count = pickle.load(file)
            return [pickle.load(file) for _ in range(count)]
    except FileNotFoundError:
        return None
    except Exception as exc:  # noqa: BLE001 - a damaged or foreign cache is rebuilt, never fatal
        log.warning("cache %s unreadable (%s): rebuilding it", path.name, type(exc).__name__)
        return None


def store(path: Path, key: str, values: list[Any], *, pickled: list[bytes] | None = None) -> None:
    """Write atomically (a temporary file in the same folder, flushed, then renamed), each
    value pickled on its own: pickling a whole bank at once holds a record of every object in
    it, tens of megabytes at 30,000 questions, for as long as it writes. `pickled`: the values
    already pickled, one by one (as the loader's workers hand packs over), written as they are."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        handle, temporary = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
        try:
            with os.fdopen(handle, "wb") as file:
                pickle.dump(key, file, protocol=pickle.HIGHEST_PROTOCOL)
                pickle.dump(len(values), file, protocol=pickle.HIGHEST_PROTOCOL)
                if pickled is not None and len(pickled) == len(values):
                    for blob in pickled:  # a pickle written whole reads back like `dump`'s
                        file.write(blob)
                else:
                    for value in values:
                        pickle.dump(value, file, protocol=pickle.HIGHEST_PROTOCOL)
                file.flush()
                os.fsync(file.fileno())
            os.replace(temporary, path)
        except BaseException:
            Path(temporary).unlink(missing_ok=True)
            raise
    except OSError as exc:  # a read-only disk costs speed, not the start
        log.warning("cache %s not written: %s", path.name, exc)


def cache_name(kind: str, root: Path) -> str:
    """One file per kind and bank folder (two bots sharing a cache folder keep apart)."""
    where = hashlib.sha256(str(Path(root).resolve()).encode()).hexdigest()[:16]
    return f"{kind}-{where}.pickle"


def load_bank_cached(root: Path, folder: Path | None) -> Bank:
    """The bank under `root` (BankError if it is invalid), from the cache when unchanged. The
    cache holds the validated packs, one by one; the bank's indexes are rebuilt from them."""
    root = Path(root)
    if not root.is_dir():
        return loader.load_bank(root)  # says why
    fingerprint = bank_fingerprint(root)
    path = folder / cache_name("bank", root) if folder is not None else None
    packs = read(path, fingerprint) if path is not None else None
    if packs is None:
        pickled: list[bytes] = []
        packs, problems = loader.checked_packs(root, pickled=pickled)
        if packs is None:
            raise BankError(problems)
        if path is not None:
            store(path, fingerprint, packs, pickled=pickled)
    bank = Bank(packs)
    bank.fingerprint = fingerprint
    return bank
