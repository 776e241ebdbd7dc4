"""The wheel (PEP 427, packaging.python.org "Binary distribution format"): the staged package at
the root of the archive, its .dist-info (METADATA, WHEEL, RECORD with every file's SHA-256 and
size), and the tag of the interpreter that runs the build, which is the one the module was built
for (cmake_build checks the extension's suffix)."""

import base64
import hashlib
import os
import sys
import sysconfig
import time
import zipfile

GENERATOR = "bloomkit_build"


def _tag_part(text):
    return text.replace("-", "_").replace(".", "_")


def tag():
    """python-abi-platform of this interpreter, e.g. cp311-cp311-linux_x86_64."""
    version = f"{sys.version_info.major}{sys.version_info.minor}"
    if sys.implementation.name == "cpython":
        interpreter = f"cp{version}"
        abi = interpreter + ("d" if hasattr(sys, "gettotalrefcount") else "")
        abi += "t" if sysconfig.get_config_var("Py_GIL_DISABLED") else ""
    else:
        interpreter = f"{sys.implementation.name[:2]}{version}"
        abi = _tag_part("-".join((sysconfig.get_config_var("SOABI") or "none").split("-")[:2]))
    platform = _tag_part(sysconfig.get_platform())
    if platform == "linux_x86_64" and sys.maxsize <= 2**32:
        platform = "linux_i686"  # a 32-bit interpreter on a 64-bit kernel
    return f"{interpreter}-{abi}-{platform}"


def wheel_file(the_tag):
    return (f"Wheel-Version: 1.0\nGenerator: {GENERATOR}\nRoot-Is-Purelib: false\n"
            f"Tag: {the_tag}\n")


def _record_hash(data):
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=")
    return "sha256=" + digest.decode()


def _zip_time():
    # Reproducible: SOURCE_DATE_EPOCH when set, else the earliest time a zip can hold.
    epoch = os.environ.get("SOURCE_DATE_EPOCH")
    if epoch is None:
        return (1980, 1, 1, 0, 0, 0)
    return time.gmtime(max(int(epoch), 315532800))[:6]


def write_wheel(path, package_dir, dist_info, metadata):
    """Writes the wheel at `path` (through a temporary name, so a failed build leaves none)."""
    the_tag = tag()
    files = [(f"bloomkit/{p.relative_to(package_dir).as_posix()}", p)
             for p in sorted(package_dir.rglob("*"))
             if p.is_file() and "__pycache__" not in p.parts]
    contents = [(name, source.read_bytes(), os.access(source, os.X_OK)) for name, source in files]
    contents += [(f"{dist_info}/METADATA", metadata.encode(), False),
                 (f"{dist_info}/WHEEL", wheel_file(the_tag).encode(), False)]
    record = "".join(f"{name},{_record_hash(data)},{len(data)}\n" for name, data, _ in contents)
    contents.append((f"{dist_info}/RECORD", (record + f"{dist_info}/RECORD,,\n").encode(), False))
    partial = path.with_name(path.name + ".part")
    with zipfile.ZipFile(partial, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data, executable in contents:
            info = zipfile.ZipInfo(name, _zip_time())
            info.external_attr = (0o100755 if executable else 0o100644) << 16
            info.compress_type = zipfile.ZIP_DEFLATED
            archive.writestr(info, data)
    os.replace(partial, path)
    return the_tag
