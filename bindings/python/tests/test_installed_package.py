"""The package pip installed (CTest runs the suite in a venv with the wheel installed:
installed_package.py): its metadata is the project's, its files are all there and recorded, and
its wheel tag is one this interpreter accepts."""

import importlib.machinery
import importlib.metadata
import os
import pathlib
import re
import sys

import pytest
from packaging.tags import sys_tags

import bloomkit

ROOT = pathlib.Path(__file__).resolve().parents[3]

pytestmark = pytest.mark.skipif(
    not os.environ.get("BLOOMKIT_PYTHON_VENV"),
    reason="tests the pip-installed package: CTest installs it into a venv")


@pytest.fixture(scope="module")
def dist():
    return importlib.metadata.distribution("bloomkit")


def test_the_version_is_cmakes_project_version(dist):
    cmake = re.search(r"project\(bloomkit VERSION (\S+)", (ROOT / "CMakeLists.txt").read_text())
    assert dist.version == cmake.group(1) == bloomkit.__version__


def test_the_metadata_is_the_pyproject_tables(dist):
    meta = dist.metadata
    assert meta["Name"] == "bloomkit"
    assert meta["Requires-Python"] == ">=3.8"
    assert "Typing :: Typed" in meta.get_all("Classifier")
    assert meta["License"]
    # NumPy is an extra: the module takes any buffer, it never imports numpy itself.
    assert dist.requires == ['numpy; extra == "numpy"']
    assert meta["Description-Content-Type"] == "text/markdown"
    assert "bindings/python" in meta.get_payload()


def test_every_file_is_installed_and_recorded(dist):
    files = {str(f) for f in dist.files}
    suffix = next(s for s in importlib.machinery.EXTENSION_SUFFIXES if s.startswith(".cpython"))
    for name in ("__init__.py", "__init__.pyi", "py.typed", "_bloomkit" + suffix):
        assert f"bloomkit/{name}" in files
        assert (pathlib.Path(bloomkit.__file__).parent / name).is_file()
    for f in dist.files:
        if f.hash is not None:  # RECORD's own line and the .pyc pip wrote have none
            assert dist.locate_file(f).stat().st_size == f.size
    assert dist.read_text("INSTALLER").strip() == "pip"


def test_the_wheel_tag_is_this_interpreters(dist):
    tags = [line.split(": ", 1)[1] for line in dist.read_text("WHEEL").splitlines()
            if line.startswith("Tag: ")]
    version = f"{sys.version_info.major}{sys.version_info.minor}"
    assert len(tags) == 1 and tags[0].startswith(f"cp{version}-cp{version}-linux_")
    assert tags[0] in {str(t) for t in sys_tags()}
    assert dist.read_text("WHEEL").count("Root-Is-Purelib: false") == 1
