"""The installed package the pytest suite runs against (CTest's fixture bloomkit_venv,
CMakeLists.txt here), as a user gets it: no PYTHONPATH into the build tree.

  installed_package.py install --build-dir B --work W
      `python -m build --wheel --no-isolation -C build-dir=B` (packaging only: B has built the
      module), the wheel's RECORD checked against its files, a fresh venv W/venv
      (--system-site-packages: pytest, NumPy and redis from Debian) and `pip install --no-index
      --no-deps` of the wheel into it
  installed_package.py uninstall --work W
      `pip uninstall -y bloomkit`; the venv's files must be exactly those before the install

The interpreter that runs this script makes the venv (CMake's BLOOMKIT_PYTHON_TEST_EXECUTABLE:
it has pytest, NumPy, python3-build and pip). The venv has no pip of its own (ensurepip takes
seconds); it runs the interpreter's pip, which installs into the venv it runs in."""

import argparse
import base64
import csv
import hashlib
import io
import os
import pathlib
import shutil
import subprocess
import sys
import zipfile

PACKAGE_SOURCE = pathlib.Path(__file__).resolve().parents[1]  # bindings/python


# pip reads no configuration, from files or PIP_* variables (a machine's find-links, index or
# `user = true` are not the package's), and asks nothing.
PIP_ENV = {k: v for k, v in os.environ.items() if not k.startswith("PIP_")}
PIP_ENV.update(PIP_CONFIG_FILE=os.devnull, PIP_NO_INPUT="1")


def run(*command, **env):
    print("+", " ".join(map(str, command)), flush=True)
    subprocess.run([str(c) for c in command], check=True, env=dict(PIP_ENV, **env))


def venv_python(work):
    return work / "venv" / "bin" / "python"


def venv_files(work):
    """Every file and directory under the venv, relative to it."""
    root = work / "venv"
    return sorted(str(p.relative_to(root)) for p in root.rglob("*"))


def check_record(wheel):
    """Every file of the wheel is in its RECORD with its SHA-256 and size, and nothing else is."""
    with zipfile.ZipFile(wheel) as archive:
        names = set(archive.namelist())
        record_name = next(n for n in names if n.endswith(".dist-info/RECORD"))
        rows = list(csv.reader(io.StringIO(archive.read(record_name).decode())))
        recorded = {row[0] for row in rows}
        if recorded != names:
            raise SystemExit(f"{wheel}: RECORD lists {sorted(recorded ^ names)} wrongly")
        for path, digest, size in rows:
            if path == record_name:
                continue
            data = archive.read(path)
            expected = "sha256=" + base64.urlsafe_b64encode(
                hashlib.sha256(data).digest()).rstrip(b"=").decode()
            if digest != expected or int(size) != len(data):
                raise SystemExit(f"{wheel}: RECORD's line for {path} does not match the file")


def install(build_dir, work):
    shutil.rmtree(work, ignore_errors=True)
    dist = work / "dist"
    # No bytecode of the backend in the source tree: the test command writes under build/ only.
    run(sys.executable, "-m", "build", "--wheel", "--no-isolation", "--outdir", dist,
        f"--config-setting=build-dir={build_dir}", PACKAGE_SOURCE, PYTHONDONTWRITEBYTECODE="1")
    wheels = list(dist.glob("bloomkit-*.whl"))
    if len(wheels) != 1:
        raise SystemExit(f"expected one wheel in {dist}, found {wheels}")
    check_record(wheels[0])
    run(sys.executable, "-m", "venv", "--system-site-packages", "--without-pip", work / "venv")
    (work / "before-install.txt").write_text("\n".join(venv_files(work)))
    # --ignore-installed: a bloomkit in the system's site-packages is not this one.
    run(venv_python(work), "-m", "pip", "install", "--no-index", "--no-deps", "--ignore-installed",
        "--no-cache-dir", "--disable-pip-version-check", wheels[0])
    if not any(f.startswith("lib/") and "/bloomkit/" in f for f in venv_files(work)):
        raise SystemExit("pip installed no bloomkit package into the venv")


def uninstall(work):
    run(venv_python(work), "-m", "pip", "uninstall", "-y", "--disable-pip-version-check",
        "bloomkit")
    before = set((work / "before-install.txt").read_text().splitlines())
    after = set(venv_files(work))
    if after != before:
        raise SystemExit("pip uninstall left the venv different from before the install:\n"
                         f"  left behind: {sorted(after - before)}\n"
                         f"  removed: {sorted(before - after)}")
    shutil.rmtree(work)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("action", choices=["install", "uninstall"])
    parser.add_argument("--build-dir", type=pathlib.Path)
    parser.add_argument("--work", type=pathlib.Path, required=True)
    args = parser.parse_args()
    if args.action == "install":
        install(args.build_dir.resolve(), args.work.resolve())
    else:
        uninstall(args.work.resolve())


if __name__ == "__main__":
    main()
