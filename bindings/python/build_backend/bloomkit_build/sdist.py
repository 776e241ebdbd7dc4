"""The sdist: the repository's sources (what git tracks, or, in an unpacked sdist, every file)
under bloomkit-<version>/ with PKG-INFO, so that a wheel builds from it as from the repository.
The top-level tests/ stays out: 33 MB of test vectors a package build never reads (the package's
build turns the tests off); bindings/python/tests, the package's suite, stays in."""

import gzip
import io
import os
import pathlib
import subprocess
import tarfile
import time

from .project import ROOT

_LEFT_OUT = {"tests", "build", "dist", ".git"}


def _source_files():
    def git(*args):
        return subprocess.run(["git", "-C", str(ROOT), *args], check=True,
                              capture_output=True).stdout.decode()

    try:
        is_checkout = pathlib.Path(git("rev-parse", "--show-toplevel").strip()) == ROOT
    except (OSError, subprocess.CalledProcessError):
        is_checkout = False
    if is_checkout:
        files = [pathlib.Path(f) for f in git("ls-files", "-z").split("\0") if f]
    else:  # an unpacked sdist
        files = [p.relative_to(ROOT) for p in ROOT.rglob("*") if p.is_file()]
    return sorted(f for f in files
                  if f.parts[0] not in _LEFT_OUT and "__pycache__" not in f.parts
                  and (ROOT / f).is_file())  # a file deleted but not yet committed


def _member(name, data, executable, mtime):
    info = tarfile.TarInfo(name)
    info.size = len(data)
    info.mtime = mtime
    info.mode = 0o755 if executable else 0o644
    return info, io.BytesIO(data)


def write_sdist(path, base, pkg_info):
    """Writes bloomkit-<version>.tar.gz at `path`; `base` is its top directory's name."""
    # SOURCE_DATE_EPOCH, when set, for every time (reproducible bytes); else the files' own.
    epoch = os.environ.get("SOURCE_DATE_EPOCH")
    mtime = int(epoch) if epoch is not None else int(time.time())
    partial = path.with_name(path.name + ".part")
    with open(partial, "wb") as raw, gzip.GzipFile(fileobj=raw, mode="wb", mtime=mtime) as gz, \
            tarfile.open(fileobj=gz, mode="w", format=tarfile.PAX_FORMAT) as tar:
        for f in _source_files():
            source = ROOT / f
            tar.addfile(*_member(f"{base}/{f.as_posix()}", source.read_bytes(),
                                 os.access(source, os.X_OK),
                                 mtime if epoch is not None else int(source.stat().st_mtime)))
        tar.addfile(*_member(f"{base}/PKG-INFO", pkg_info.encode(), False, mtime))
    os.replace(partial, path)
