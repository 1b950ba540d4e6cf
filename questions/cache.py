"""Caches of what is slow to build from the packs: the validated bank, and things derived from it
(the job-ad matcher). A restart with unchanged packs reads them back instead of parsing and
validating every question again (30,000 questions: seconds instead of tens of seconds).

Each cache file is keyed by every pack's path, size and modification time and by the source of
the code that builds it, so a changed pack, a new pack, a removed one or an upgrade invalidates
it. Files are written to a temporary name and renamed into place, so a crash while writing
leaves the old cache or none, never half of one; a cache that cannot be read is rebuilt. They are
pickles the bot wrote itself, in a folder of its own: keep that folder as private as the
database beside it.

The bank cache keeps each pack's texts apart (`packsplit`): a restart reads the packs and their
questions, and a pack's texts are read from the file when one of its questions is first used.
The file stays open for that, so a newer cache renamed over it does not change what is read.
"""

from __future__ import annotations

import hashlib
import logging
import os
import pickle
import tempfile
import weakref
from collections.abc import Callable, Iterable
from functools import partial
from pathlib import Path
from typing import Any

from questions import loader, model, packsplit
from questions.loader import Bank, BankError, Split, pack_paths

log = logging.getLogger(__name__)
# The code whose output a bank cache holds: a change to any of it makes old caches stale.
BANK_CODE = (Path(loader.__file__), Path(model.__file__), Path(packsplit.__file__), Path(__file__))


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


def _write_atomically(path: Path, write: Callable[[Any], None]) -> None:
    """`write(file)` into a temporary file in the same folder, flushed, then renamed to `path`."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        handle, temporary = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
        try:
            with os.fdopen(handle, "wb") as file:
                write(file)
                file.flush()
                os.fsync(file.fileno())
            os.replace(temporary, path)
        except BaseException:
            Path(temporary).unlink(missing_ok=True)
            raise
    except OSError as exc:  # a read-only disk costs speed, not the start
        log.warning("cache %s not written: %s", path.name, exc)


def _dump(value: Any, file: Any) -> None:
    pickle.dump(value, file, protocol=pickle.HIGHEST_PROTOCOL)


def store(path: Path, key: str, values: list[Any]) -> None:
    """Write atomically, each value pickled on its own: pickling many at once holds a record
    of every object in them for as long as it writes."""
    def write(file: Any) -> None:
        _dump(key, file)
        _dump(len(values), file)
        for value in values:
            _dump(value, file)
    _write_atomically(path, write)


def store_bank(path: Path, key: str, splits: list[Split]) -> None:
    """The bank cache: after the key and the count, each pack without its texts and the
    length of its texts' pickle, then that pickle."""
    def write(file: Any) -> None:
        _dump(key, file)
        _dump(len(splits), file)
        for skeleton, texts in splits:
            _dump((skeleton, len(texts)), file)
            file.write(texts)
    _write_atomically(path, write)


class _OpenFile:
    """A cache file held open while texts may still be read from it; closed with the last
    pack that could."""

    def __init__(self, path: Path) -> None:
        self.fd = os.open(path, os.O_RDONLY)
        weakref.finalize(self, os.close, self.fd)

    def read(self, offset: int, length: int) -> bytes:
        data = os.pread(self.fd, length, offset)
        if len(data) != length:
            raise EOFError("the bank cache is shorter than when it was read")
        return data


def read_bank(path: Path, key: str) -> list[model.Pack] | None:
    """The packs stored by `store_bank` under `key`, their texts left in the file; or None
    (missing, stale or damaged)."""
    try:
        opened = _OpenFile(path)
        with open(opened.fd, "rb", closefd=False) as file, loader.paused_gc():
            if pickle.load(file) != key:
                return None
            packs = []
            for _ in range(pickle.load(file)):
                skeleton, length = pickle.load(file)
                offset = file.tell()
                file.seek(length, os.SEEK_CUR)
                packs.append(packsplit.join(skeleton, partial(opened.read, offset, length)))
            if file.tell() != os.fstat(opened.fd).st_size:  # the texts are not read yet
                raise EOFError("the bank cache is cut short")
            return packs
    except FileNotFoundError:
        return None
    except Exception as exc:  # noqa: BLE001 - a damaged or foreign cache is rebuilt, never fatal
        log.warning("cache %s unreadable (%s): rebuilding it", path.name, type(exc).__name__)
        return None


def cache_name(kind: str, root: Path) -> str:
    """One file per kind and bank folder (two bots sharing a cache folder keep apart)."""
    where = hashlib.sha256(str(Path(root).resolve()).encode()).hexdigest()[:16]
    return f"{kind}-{where}.pickle"


def load_bank_cached(root: Path, folder: Path | None) -> Bank:
    """The bank under `root` (BankError if it is invalid), from the cache when unchanged. The
    cache holds the validated packs, one by one, their texts apart; the bank's indexes are
    rebuilt from them."""
    root = Path(root)
    if not root.is_dir():
        return loader.load_bank(root)  # says why
    fingerprint = bank_fingerprint(root)
    path = folder / cache_name("bank", root) if folder is not None else None
    packs = read_bank(path, fingerprint) if path is not None else None
    if packs is None:
        splits: list[Split] = []
        packs, problems = loader.checked_packs(root, splits=splits)
        if packs is None:
            raise BankError(problems)
        if path is not None:
            store_bank(path, fingerprint, splits or [packsplit.split(pack) for pack in packs])
            # Read back, so that the texts wait in the file rather than in this process.
            packs = read_bank(path, fingerprint) or packs
    bank = Bank(packs)
    bank.fingerprint = fingerprint
    return bank
