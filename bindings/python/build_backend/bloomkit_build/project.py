"""The project as packaging sees it: the repository root, the version that CMake declares, and
the [project] table of bindings/python/pyproject.toml written out as core metadata (the METADATA
of a wheel, the PKG-INFO of an sdist)."""

import pathlib
import re

try:
    import tomllib
except ModuleNotFoundError:  # Python < 3.11
    try:
        import tomli as tomllib
    except ModuleNotFoundError:
        tomllib = None

# This file is bindings/python/build_backend/bloomkit_build/project.py.
PACKAGE_DIR = pathlib.Path(__file__).resolve().parents[2]
ROOT = PACKAGE_DIR.parents[1]


class BuildError(Exception):
    """A build that cannot go on, with what to do about it (the frontend prints the message)."""


def _read(path):
    try:
        return path.read_text(encoding="utf-8")
    except OSError as e:
        raise BuildError(f"bloomkit_build: cannot read {path}: {e.strerror}") from e


def version():
    """project(bloomkit VERSION x.y.z) in the top-level CMakeLists.txt: the one place it is
    written (bloomkit/version.hpp and the module's __version__ come from it too)."""
    cmake_lists = ROOT / "CMakeLists.txt"
    match = re.search(r"\bproject\(\s*bloomkit\b[^)]*?\bVERSION\s+([^\s)]+)", _read(cmake_lists),
                      re.IGNORECASE)
    if not match:
        raise BuildError(f"bloomkit_build: no project(bloomkit VERSION ...) in {cmake_lists}")
    if not re.fullmatch(r"\d+(\.\d+){0,3}", match.group(1)):
        raise BuildError(f"bloomkit_build: project(VERSION {match.group(1)}) in {cmake_lists} "
                         "is not a version of numbers and dots")
    return match.group(1)


def project_table():
    """The [project] table of bindings/python/pyproject.toml (the root's pyproject.toml only
    points at this backend)."""
    if tomllib is None:
        raise BuildError("bloomkit_build needs tomllib (Python 3.11 or newer) or the tomli "
                         "package (Debian: python3-tomli) to read pyproject.toml")
    path = PACKAGE_DIR / "pyproject.toml"
    try:
        table = tomllib.loads(_read(path))["project"]
    except (tomllib.TOMLDecodeError, KeyError) as e:
        raise BuildError(f"bloomkit_build: {path} has no valid [project] table: {e}") from e
    supported = {"name", "dynamic", "description", "readme", "requires-python", "license",
                 "keywords", "classifiers", "dependencies", "optional-dependencies", "urls"}
    unsupported = sorted(set(table) - supported)
    if unsupported:
        raise BuildError(f"bloomkit_build does not write {', '.join(unsupported)} "
                         f"(in {path}): add it to project.py or remove it")
    if table.get("dynamic", []) != ["version"]:
        raise BuildError(f"bloomkit_build: {path} must say dynamic = [\"version\"] (the version "
                         "comes from CMakeLists.txt) and nothing else is dynamic")
    return table


def distribution_name(table):
    """The name as it appears in file names (PEP 427 / the sdist spec: runs of -_. become _)."""
    return re.sub(r"[-_.]+", "_", table["name"]).lower()


def _single_line(field, value):
    if "\n" in value or "\r" in value:
        raise BuildError(f"bloomkit_build: the metadata field {field} must be one line")
    return f"{field}: {value}"


def _readme(readme):
    if isinstance(readme, str):
        readme = {"file": readme}
    path = PACKAGE_DIR / readme["file"]
    content_type = readme.get("content-type") or {
        ".md": "text/markdown", ".rst": "text/x-rst"}.get(path.suffix, "text/plain")
    return content_type, _read(path)


def _requirement_with_extra(requirement, extra):
    name, _, marker = requirement.partition(";")
    condition = f'extra == "{extra}"'
    if marker.strip():
        condition = f"({marker.strip()}) and {condition}"
    return f"{name.strip()}; {condition}"


def core_metadata(table, the_version):
    """Core metadata 2.1 (packaging.python.org, "Core metadata specifications") of the table."""
    lines = ["Metadata-Version: 2.1", _single_line("Name", table["name"]),
             _single_line("Version", the_version)]
    if "description" in table:
        lines.append(_single_line("Summary", table["description"]))
    if "keywords" in table:
        lines.append(_single_line("Keywords", ",".join(table["keywords"])))
    license_ = table.get("license")
    if license_ is not None:
        text = license_["text"] if "text" in license_ else _read(PACKAGE_DIR / license_["file"])
        lines.append(_single_line("License", text.strip()))
    lines += [_single_line("Classifier", c) for c in table.get("classifiers", [])]
    lines += [_single_line("Project-URL", f"{k}, {v}") for k, v in table.get("urls", {}).items()]
    if "requires-python" in table:
        lines.append(_single_line("Requires-Python", table["requires-python"]))
    lines += [_single_line("Requires-Dist", r) for r in table.get("dependencies", [])]
    for extra, requirements in table.get("optional-dependencies", {}).items():
        lines.append(_single_line("Provides-Extra", extra))
        lines += [_single_line("Requires-Dist", _requirement_with_extra(r, extra))
                  for r in requirements]
    body = ""
    if "readme" in table:
        content_type, body = _readme(table["readme"])
        lines.append(_single_line("Description-Content-Type", content_type))
    return "\n".join(lines) + "\n\n" + body
