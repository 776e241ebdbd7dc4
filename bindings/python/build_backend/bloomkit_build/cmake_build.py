"""The package from the project's own CMake build: configure (once per build directory), build
the bloomkit_python target, then `cmake --install --component python` (the install rules of
bindings/python/CMakeLists.txt, the one list of the package's files) into a staging directory.

Config settings (pip --config-settings / -C, python -m build -C):
  build-dir=PATH   reuse this build directory (relative paths are from the repository root);
                   when it is configured already (build/release of the presets), only the
                   target is brought up to date, a no-op after `cmake --build --preset release`
  cmake-args=ARGS  more arguments for a first configure (shell-quoted; repeatable)
CMAKE_BUILD_PARALLEL_LEVEL in the environment sets the build's jobs, as for any cmake --build.
"""

import hashlib
import os
import pathlib
import shlex
import shutil
import subprocess
import sys
import sysconfig

from .project import ROOT, BuildError

SETTINGS = ("build-dir", "cmake-args")

# A first configure builds the package and what it links, nothing of the developer's tree; as
# one unity build, as the presets do (a target's sources a few at a time as one file: the
# headers parsed once per batch).
_CONFIGURE_DEFAULTS = ["-DCMAKE_BUILD_TYPE=Release", "-DCMAKE_UNITY_BUILD=ON",
                       "-DBLOOMKIT_BUILD_PYTHON=ON",
                       "-DBLOOMKIT_BUILD_TESTS=OFF", "-DBLOOMKIT_BUILD_FUZZ=OFF",
                       "-DBLOOMKIT_BUILD_EXAMPLES=OFF", "-DBLOOMKIT_BUILD_TOOLS=OFF",
                       "-DBLOOMKIT_BUILD_REDIS_MODULE=OFF"]


def check_settings(config_settings):
    unknown = sorted(set(config_settings or {}) - set(SETTINGS))
    if unknown:
        raise BuildError(f"bloomkit_build: unknown config setting(s) {', '.join(unknown)}; "
                         f"it takes {', '.join(SETTINGS)}")


def _values(config_settings, key):
    value = (config_settings or {}).get(key, [])
    return [value] if isinstance(value, str) else list(value)


def build_dir(config_settings):
    chosen = _values(config_settings, "build-dir")
    if len(chosen) > 1:
        raise BuildError("bloomkit_build: build-dir given more than once")
    if chosen:
        return (ROOT / chosen[0]).resolve()
    # One directory per base interpreter: every venv of it shares the build, two interpreters
    # never share a module.
    digest = hashlib.sha256(str(_base_interpreter()).encode()).hexdigest()[:8]
    return ROOT / "build" / f"pip-{sys.implementation.cache_tag}-{digest}"


def _base_interpreter():
    """The interpreter a venv was made from (the same ABI and headers as the venv's): CMake's
    cache keeps this path, which outlives a venv that pip ran from."""
    return pathlib.Path(os.path.realpath(getattr(sys, "_base_executable", sys.executable)))


def _run(command, env=None):
    print("bloomkit_build:", shlex.join(str(c) for c in command), flush=True)
    try:
        subprocess.run([str(c) for c in command], check=True, env=env)
    except subprocess.CalledProcessError as e:
        raise BuildError(f"bloomkit_build: failed ({e.returncode}): "
                         f"{shlex.join(str(c) for c in command)}") from e


def _cmake():
    cmake = shutil.which("cmake")
    if cmake is None:
        raise BuildError("bloomkit_build: cmake is not on PATH (scripts/setup installs it)")
    return cmake


def _cache_entry(directory, name):
    for line in (directory / "CMakeCache.txt").read_text(encoding="utf-8").splitlines():
        if line.startswith(name + ":"):
            return line.partition("=")[2]
    return None


def _configure(cmake, directory, config_settings):
    generator = ["-G", "Ninja"] if shutil.which("ninja") else []
    extra = [a for value in _values(config_settings, "cmake-args") for a in shlex.split(value)]
    _run([cmake, "-S", ROOT, "-B", directory, *generator, *_CONFIGURE_DEFAULTS,
          f"-DPython_EXECUTABLE={_base_interpreter()}", *extra])


def _extension_suffix_check(package):
    """The module must be the one this interpreter imports: a build directory configured for
    another Python (build/release is configured for `python3` on PATH) would make a wheel that
    installs and then fails to import."""
    suffix = sysconfig.get_config_var("EXT_SUFFIX")
    modules = sorted(p.name for p in package.glob("_bloomkit*"))
    if modules != ["_bloomkit" + suffix]:
        raise BuildError(f"bloomkit_build: the build has {modules or 'no _bloomkit module'}; "
                         f"{sys.executable} imports _bloomkit{suffix}. Configure the build "
                         f"directory with -DPython_EXECUTABLE={sys.executable}, or use another")


def build_package(config_settings, staging):
    """Builds and stages the package; returns the staged `bloomkit` directory."""
    cmake = _cmake()
    directory = build_dir(config_settings)
    if not (directory / "CMakeCache.txt").exists():
        _configure(cmake, directory, config_settings)
    elif _values(config_settings, "cmake-args"):
        raise BuildError(f"bloomkit_build: {directory} is configured already; cmake-args apply "
                         "to a first configure only (reconfigure it with cmake, or remove it)")
    if _cache_entry(directory, "BLOOMKIT_BUILD_PYTHON") not in ("ON", "TRUE", "1"):
        raise BuildError(f"bloomkit_build: {directory} builds no Python module "
                         "(BLOOMKIT_BUILD_PYTHON is off: a sanitized build, or pybind11-dev / "
                         "python3-dev missing when it was configured)")
    _run([cmake, "--build", directory, "--target", "bloomkit_python"])
    # DESTDIR and --prefix both inside the staging directory: the install rules' destination is
    # an absolute path (the configuring interpreter's site-packages) unless set otherwise.
    staging = pathlib.Path(staging)
    env = dict(os.environ, DESTDIR=str(staging / "destdir"))
    _run([cmake, "--install", directory, "--component", "python",
          "--prefix", staging / "prefix"], env=env)
    packages = [p.parent for p in staging.rglob("bloomkit/__init__.py")]
    if len(packages) != 1:
        raise BuildError(f"bloomkit_build: `cmake --install {directory} --component python` "
                         f"staged {len(packages)} bloomkit packages, not one")
    _extension_suffix_check(packages[0])
    return packages[0]
