"""Where commands write: the ``--out`` / ``--out-dir`` rule, no clobbering, ``$GITHUB_OUTPUT``.

No command replaces an existing output (a paid run's receipt) unless given ``--force``, and no
output lands on one of the command's own inputs.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import os
import re
import sys
import tempfile
import uuid
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path

from driftproof.errors import RefusalError
from driftproof.wording import count_of, first_of

Wait = Callable[[Callable[[], object]], object]  # wait(get): get(), where held stops act
Writers = Mapping[Path, Callable[[Path], object]]  # a target -> what writes it to a given path
#: The rule every command follows (README, "Commands").
OUT_RULE = (
    "--out names the one file a command writes (run, regrade, export); --out-dir names the folder "
    "a command writes several files into (import, badge, demo, reports build)"
)


def refuse_folder_name(text: str, option: str) -> None:
    """Refuse a file's path, as typed, that names a folder (``/``, ``.``, ``..``) or no file.

    :class:`~pathlib.Path` drops a trailing slash, so ``--out rdir/`` would write a file
    named ``rdir``; this is checked on the text before it becomes a path. A blank name (``""``,
    ``" "``) names no file a reader would find.

    Raises:
        RefusalError: naming the option (exit status 2).
    """
    name = os.path.basename(text)
    if text and name in ("", ".", ".."):
        raise RefusalError(
            f"{option} {text}: {option} names a file, not a folder (nothing was written)"
        )
    if not name.strip():
        raise RefusalError(
            f"{option} {text!r}: expected a file name, found none (nothing was written)"
        )


def refuse_existing_output(output: Path, option: str, *, force: bool) -> None:
    """Refuse an ``output`` that would replace a file (unless ``force``) or has no folder.

    Called before anything is read or written.

    Raises:
        RefusalError: naming the file (exit status 2).
    """
    parent = output.parent
    if not parent.is_dir():
        what = "is a file, not a folder" if parent.exists() else "does not exist; create it first"
        raise RefusalError(f"{option} {output}: the folder {parent} {what} (nothing was written)")
    if output.is_dir():
        raise RefusalError(f"{option} {output} is a folder; {option} names a file ({OUT_RULE})")
    refuse_special([output], option)
    if (output.exists() or output.is_symlink()) and not force:
        raise RefusalError(
            f"{option} {output} already exists; it was not replaced. Choose another path, "
            "or give --force to replace it"
        )


def refuse_special(outputs: list[Path], option: str) -> None:
    """Refuse an output that is (or links to) a device, a named pipe or a socket, even forced.

    Raises:
        RefusalError: naming the first such file; ``--force`` would replace it with a file.
    """
    for p in outputs:
        if p.exists() and not (p.is_file() or p.is_dir()):
            raise RefusalError(
                f"{option} {p}: expected a file, found a device, a named pipe or a socket, which "
                "writing would replace with a file, even with --force; choose another path "
                "(nothing was written)"
            )


def refuse_long_name(output: Path, option: str, extra: int) -> None:
    """Refuse an ``output`` whose name, ``extra`` bytes longer, is more than its folder takes.

    A command writing beside ``output`` (its temporary copy, a run's journal) would else fail
    after its work, at every attempt alike. Called after :func:`refuse_existing_output`.

    Raises:
        RefusalError: naming the file and the longest name it may have (exit status 2).
    """
    folder = next((p for p in [output.parent, *output.parent.parents] if p.is_dir()), Path("."))
    try:  # a folder not made yet: the limit of the one it will be made in
        most = os.pathconf(folder, "PC_NAME_MAX")
    except (OSError, ValueError):  # no limit this system tells
        return
    size = len(os.fsencode(output.name))
    if size + extra > most:
        raise RefusalError(
            f"{option} {output}: the name is {size} bytes; the files written beside it need it "
            f"at most {most - extra} bytes long (nothing was written)"
        )


def refuse_existing_outputs(
    outputs: list[Path], option: str, *, force: bool, same: Callable[[Path], bool] | None = None
) -> None:
    """:func:`refuse_existing_output` for the files a command writes into an ``--out-dir``.

    ``same``: whether an existing output already holds what would be written (a killed
    command's, written again): that one is no conflict.

    Raises:
        RefusalError: naming every file that exists (exit status 2).
    """
    refuse_special(outputs, option)  # a folder in a file's place: writing names it as such
    there = [p for p in outputs if (p.exists() or p.is_symlink()) and not p.is_dir()]
    existing = [str(p) for p in there if not (same and same(p))]
    if existing and not force:
        one = len(existing) == 1
        other = "another folder" if option == "--out-dir" else "other paths"
        raise RefusalError(
            f"{option}: {count_of(len(existing), 'file')} already "
            f"{'exists and was' if one else 'exist and were'} not replaced: {first_of(existing)}; "
            f"choose {other}, or give --force to replace {'it' if one else 'them'}"
        )


#: The name of the temporary file :func:`staged_sibling` makes for ``<name>``:
#: ``.<name>.<8 of tempfile's random letters, digits or _>.tmp``.
_STAGED = re.compile(r"\..+\.[a-z0-9_]{8}\.tmp")
#: How many bytes longer than ``<name>`` that temporary file's name is: ``.``, ``.``, 8, ``.tmp``.
STAGED_EXTRA = 14


def staged_sibling(path: Path) -> tuple[int, str]:
    """A new temporary file beside ``path`` to write it through (an open descriptor, its path).

    Raises:
        OSError: the file cannot be made (a folder not writable), naming ``path``.
    """
    with named_as(path):
        return tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)


@contextmanager
def named_as(path: Path) -> Iterator[None]:
    """An ``OSError`` in the block raised naming ``path``, not a helper file made beside it."""
    try:
        yield
    except OSError as exc:
        raise OSError(exc.errno, exc.strerror or str(exc), str(path)) from exc


def is_staged_name(name: str) -> bool:
    """Whether ``name`` is one :func:`staged_sibling` gives (a killed write leaves it behind)."""
    return _STAGED.fullmatch(name) is not None


@contextmanager
def staging_in(folder: Path) -> Iterator[None]:
    """A shared lock (flock) on ``folder`` for a block that stages files in it.

    Held by every write through :func:`staged_sibling`; :func:`remove_abandoned` removes a staged
    file only under the exclusive lock, so never one a living writer holds. A folder that cannot
    be opened or locked is written unlocked (nor can a removal there take the exclusive lock).
    """
    try:
        fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY)
    except OSError:
        yield
        return
    try:
        with contextlib.suppress(OSError):
            fcntl.flock(fd, fcntl.LOCK_SH)  # waits out a removal under way, which is short
        yield
    finally:
        os.close(fd)


def remove_abandoned(folder: Path, names: list[str]) -> None:
    """Remove the staged files of ``names`` in ``folder`` that a killed write left, or none.

    Only plain files named as :func:`staged_sibling` names one for a name in ``names``
    (``.<name>.XXXXXXXX.tmp``), or one staged beside that (``..<name>.XXXXXXXX.tmp.YYYYYYYY.tmp``,
    a receipt's own write), and only when no writer holds :func:`staging_in`'s lock on the
    folder: its exclusive lock is taken at once, or nothing is removed. No names, none.
    """
    if not names:
        return
    try:
        fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY)
    except OSError:
        return
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        named = "|".join(map(re.escape, names))
        ours = re.compile(rf"\.(?:{named}|\.(?:{named})\.[a-z0-9_]{{8}}\.tmp)\.[a-z0-9_]{{8}}\.tmp")
        for entry in os.scandir(folder):
            if ours.fullmatch(entry.name) and entry.is_file(follow_symlinks=False):
                Path(entry.path).unlink(missing_ok=True)
    except OSError:  # a living writer holds the folder (or it cannot be locked or read)
        return
    finally:
        os.close(fd)


def open_mode(fd: int) -> None:
    """Give a file :func:`tempfile.mkstemp` made (mode 0600) open()'s mode: 0666 less the umask."""
    mask = os.umask(0)
    os.umask(mask)
    os.fchmod(fd, 0o666 & ~mask)


def write_all_or_none(
    writers: Writers, *, replace: bool, option: str = "--out", wait: Wait | None = None
) -> list[Path]:
    """Write each file through its writer to a temporary sibling, then move them all into place.

    Args:
        writers: target path -> a function that writes the file's content to the path it is
            given (a temporary file beside the target, with the mode ``open()`` would give).
        replace: whether a target that exists is replaced (``--force``). Without it a target
            that exists holding other bytes is refused, naming ``option``; one holding the
            same bytes is left as it is (a killed command's, written again).
        option: the option that names the targets, as that refusal says it.
        wait: ``wait(stage)`` runs each step before a file is in place: held stops act there.

    Returns the targets, in order, once every one is in place. What a killed write of these
    targets left is removed first (:func:`remove_abandoned`).

    Raises:
        Whatever a writer or the file system raises (an ``OSError`` naming the target being
        written, ``IsADirectoryError`` for a target that is a folder, Ctrl-C), after every
        temporary file and every folder this call made is removed: nothing is half-written.
        RefusalError: without ``replace``, a target exists, naming it (nothing written).
    """
    made, placed = list[Path](), list[Path]()  # placed: the targets this call created
    staged: list[tuple[Path, Path]] = []
    path = next(iter(writers), Path())
    held, there = contextlib.ExitStack(), dict[Path, bytes]()  # targets already there: bytes
    for folder in dict.fromkeys(p.parent for p in writers):
        remove_abandoned(folder, [p.name for p in writers if p.parent == folder])

    def stage() -> None:  # a stop acts here (``wait``); from the first file placed, it is held
        nonlocal path
        for path in writers:
            for parent in reversed([path.parent, *path.parent.parents]):
                if not parent.exists():
                    parent.mkdir()
                    made.append(parent)
        for folder in dict.fromkeys(p.parent for p in writers):
            held.enter_context(staging_in(folder))
        for path, write in writers.items():
            if path.is_dir():
                raise IsADirectoryError(21, "Is a directory", str(path))
            fd, tmp = staged_sibling(path)
            staged.append((Path(tmp), path))
            open_mode(fd)
            os.close(fd)
            write(Path(tmp))
        there.update({p: t.read_bytes() for t, p in staged if not replace and os.path.lexists(p)})
        refuse_existing_outputs(list(there), option, force=False, same=lambda p: holds(p, there[p]))

    try:
        wait(stage) if wait else stage()
        for tmp_path, path in staged:
            if replace:
                os.replace(tmp_path, path)
            elif path in there:  # the same bytes already there: left as they are
                tmp_path.unlink()
            else:
                _place_new(tmp_path, path)
                placed.append(path)
                tmp_path.unlink(missing_ok=True)  # linked: the target keeps the file
    except BaseException as exc:
        for tmp_path, target in staged:
            if target not in placed and same_path(tmp_path, target):
                placed.append(target)  # linked as Ctrl-C or SIGTERM arrived, not yet counted
            tmp_path.unlink(missing_ok=True)
        for target in placed:
            target.unlink(missing_ok=True)
        for d in reversed(made):
            with contextlib.suppress(OSError):  # a folder something else wrote into stays
                d.rmdir()
        if isinstance(exc, OSError) and str(exc.filename or ".tmp").endswith(".tmp"):
            raise OSError(exc.errno, exc.strerror or str(exc), str(path)) from exc  # the target
        raise
    finally:
        held.close()
    return [target for _, target in staged]


def same_path(a: Path, b: Path) -> bool:
    """Whether ``a`` and ``b`` name the same file (a link to it included)."""
    try:
        if a.exists() and b.exists():
            return os.path.samefile(a, b)
    except OSError:
        pass
    return a.resolve() == b.resolve()


def refuse_output_on_input(output: Path, option: str, **inputs: Path | None) -> None:
    """Refuse an ``output`` that names (or links to) any of ``inputs``, before anything is written.

    Raises:
        RefusalError: naming the option and the input it would overwrite.
    """
    for name, path in inputs.items():
        if path is not None and same_path(output, path):
            raise RefusalError(
                f"{option} {output} is the {name.replace('_', ' ')} it reads; "
                "choose another path (nothing was written)"
            )


@contextmanager
def held_lock(path: Path, busy: str) -> Iterator[None]:
    """An exclusive lock (flock) on the existing file or folder ``path`` for the block.

    Never waited for; nothing is written.

    Raises:
        RefusalError: another process holds it; ``busy`` says what is running.
    """
    fd = os.open(path, os.O_RDONLY)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise RefusalError(busy) from None
        yield
    finally:
        os.close(fd)


@contextmanager
def held_name(path: Path, busy: str, shown: Path | None = None) -> Iterator[None]:
    """An exclusive lock (flock) on the file ``path``, made for the block and removed after it.

    Never waited for. A lock on a file another holder has just removed is no lock: refused too.

    Raises:
        RefusalError: another process holds it; ``busy`` says what is running.
        OSError: ``path`` cannot be made (a symbolic link there is not followed), naming
            ``shown`` when given (the path the user gave, which the lock is beside).
    """
    with named_as(shown or path):
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_NOFOLLOW, 0o600)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            if not os.path.samestat(os.fstat(fd), os.stat(path, follow_symlinks=False)):
                raise BlockingIOError
        except (BlockingIOError, FileNotFoundError):
            raise RefusalError(busy) from None
        try:
            yield
        finally:
            path.unlink(missing_ok=True)
    finally:
        os.close(fd)


def holds(path: Path, content: bytes) -> bool:
    """Whether ``path`` is a plain file (no link) holding ``content``."""
    return path.is_file() and not path.is_symlink() and path.read_bytes() == content


#: What ``link()`` fails with on a file system without hard links (ENOSYS: FUSE, rclone mount).
_NO_HARD_LINKS = (errno.EPERM, errno.ENOSYS, errno.ENOTSUP, errno.EOPNOTSUPP, errno.EXDEV)


def _place_new(tmp: Path, path: Path) -> None:
    """Move ``tmp`` to ``path`` only where no file is: one that appeared is not replaced.

    A hard link is made where no name is (atomic), and ``tmp`` is left for the caller to
    remove; a file system without hard links gets a last look and a rename instead.

    Raises:
        RefusalError: ``path`` exists, naming it.
    """
    try:
        os.link(tmp, path)
        return  # ``tmp`` stays until the caller has counted ``path`` as placed
    except FileExistsError:
        pass
    except OSError as exc:
        if exc.errno not in _NO_HARD_LINKS:
            raise
        if not (path.exists() or path.is_symlink()):
            os.replace(tmp, path)
            return
    raise RefusalError(
        f"{path} already exists (another command wrote it while this one ran); it was not "
        "replaced, and nothing was written. Give --force to replace it"
    )


def append_text(path: Path, text: str) -> None:
    """Append ``text`` to ``path`` whole or not at all (a write cut short is truncated back).

    Raises:
        OSError: the file cannot be opened or written; a named pipe no one reads is ENXIO.
    """
    # O_NONBLOCK: a named pipe no one reads is refused at once (ENXIO), never waited on; one a
    # reader holds (``/dev/stdout`` into a pipe, trying the step locally) is written
    try:
        fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_NONBLOCK, 0o666)
    except OSError as exc:
        if exc.errno != errno.ENXIO or not path.is_fifo():  # a socket also says ENXIO
            raise
        why = "expected a file to append to, found a named pipe no one reads"
        raise OSError(errno.ENXIO, why, str(path)) from None
    os.set_blocking(fd, True)
    with open(fd, "ab", buffering=0) as fh:
        start, data = os.fstat(fd).st_size, memoryview(text.encode("utf-8"))
        try:
            while data:
                data = data[fh.write(data) :]
        except BaseException:  # cut short (a full disk): taken back, no block left unclosed
            if path.is_file():
                os.ftruncate(fd, start)
            raise


def append_github_output(path: Path, outputs: dict[str, str]) -> None:
    """Append ``outputs`` to ``$GITHUB_OUTPUT``, each a ``name<<random-delimiter`` block."""
    delims = {name: f"driftproof_{uuid.uuid4().hex}" for name in outputs}
    append_text(path, "".join(f"{n}<<{delims[n]}\n{v}\n{delims[n]}\n" for n, v in outputs.items()))


def stdout_gone() -> int:
    """Exit status 141 (128 + SIGPIPE, as a shell reports it) for a stdout whose reader went away.

    Standard output is pointed at the null device first, so that Python's flush at exit does not
    report the failed write.
    """
    with contextlib.suppress(OSError, ValueError):
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    return 141
