"""bloomkit's PEP 517 build backend, in the tree (pyproject.toml's backend-path) and written over
the standard library alone: with `requires = []` pip's isolated build environment needs nothing
from PyPI, so `pip install ./bindings/python` works offline without --no-build-isolation, and so
does `python3 -m build --wheel --no-isolation` with Debian's python3-build. (setuptools would
have to be installed into that isolated environment, from an index.) The wheel is written
directly (wheel.py); CMake builds what goes in it (cmake_build.py).

Hooks: build_wheel, prepare_metadata_for_build_wheel, build_sdist and the two get_requires_*.
Config settings: cmake_build.py's docstring (build-dir=, cmake-args=)."""

import pathlib
import tempfile

from . import cmake_build, project, sdist, wheel


def _names():
    table = project.project_table()
    the_version = project.version()
    base = f"{project.distribution_name(table)}-{the_version}"
    return table, the_version, base


def get_requires_for_build_wheel(config_settings=None):
    cmake_build.check_settings(config_settings)
    return []  # cmake, a compiler, pybind11: Debian packages (scripts/setup), not PyPI's


def get_requires_for_build_sdist(config_settings=None):
    return []


def prepare_metadata_for_build_wheel(metadata_directory, config_settings=None):
    cmake_build.check_settings(config_settings)
    table, the_version, base = _names()
    dist_info = pathlib.Path(metadata_directory) / f"{base}.dist-info"
    dist_info.mkdir(parents=True, exist_ok=True)
    (dist_info / "METADATA").write_text(project.core_metadata(table, the_version),
                                        encoding="utf-8")
    (dist_info / "WHEEL").write_text(wheel.wheel_file(wheel.tag()), encoding="utf-8")
    return dist_info.name


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    cmake_build.check_settings(config_settings)
    table, the_version, base = _names()
    metadata = project.core_metadata(table, the_version)
    with tempfile.TemporaryDirectory(prefix="bloomkit_build-") as staging:
        package = cmake_build.build_package(config_settings, staging)
        name = f"{base}-{wheel.tag()}.whl"
        wheel.write_wheel(pathlib.Path(wheel_directory) / name, package, f"{base}.dist-info",
                          metadata)
    return name


def build_sdist(sdist_directory, config_settings=None):
    table, the_version, base = _names()
    name = f"{base}.tar.gz"
    sdist.write_sdist(pathlib.Path(sdist_directory) / name, base,
                      project.core_metadata(table, the_version))
    return name
