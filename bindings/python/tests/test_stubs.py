"""The type stubs (bloomkit/__init__.pyi) describe the module: every class, method, property and
function they declare exists at runtime (a property as a property), every public name of the
module is in them, and every public method or property of a runtime class is declared for it,
directly or by one of the stubs' private bases (_Filter, _RedisKeyMethods, ...: no runtime
classes). No mypy / stubtest on the target machines: this is their core check, from the AST."""

import ast
import inspect
import pathlib

import pytest

import bloomkit

STUB = pathlib.Path(bloomkit.__file__).with_name("__init__.pyi")


def stub_tree():
    return ast.parse(STUB.read_text())


def decorators(node):
    return {d.id for d in node.decorator_list if isinstance(d, ast.Name)}


def class_members(classes, name):
    """{member: 'property' | 'method' | 'attribute'} of a stub class and its stub bases."""
    members = {}
    node = classes[name]
    for base in node.bases:
        if isinstance(base, ast.Name) and base.id in classes:
            members.update(class_members(classes, base.id))
    for item in node.body:
        if isinstance(item, ast.FunctionDef):
            members[item.name] = "property" if "property" in decorators(item) else "method"
        elif isinstance(item, ast.AnnAssign) and isinstance(item.target, ast.Name):
            members[item.target.id] = "attribute"
    return members


def public_stub_classes():
    tree = stub_tree()
    classes = {n.name: n for n in tree.body if isinstance(n, ast.ClassDef)}
    return classes, [n for n in classes if not n.startswith("_")]


CLASSES, PUBLIC = public_stub_classes()
FILTER_CLASSES = [n for n in PUBLIC if isinstance(getattr(bloomkit, n, None), type)
                  and not issubclass(getattr(bloomkit, n), BaseException)
                  and not issubclass(getattr(bloomkit, n), bloomkit.ErrorCode)]


@pytest.mark.parametrize("name", PUBLIC)
def test_stub_members_exist(name):
    if name.startswith("Redis") or name.endswith("RedisFilter"):
        if not bloomkit.has_redis:
            pytest.skip("built without Redis")
    cls = getattr(bloomkit, name)
    for member, kind in class_members(CLASSES, name).items():
        if kind == "attribute":
            continue  # instance attributes (Error.code) and enum members
        assert hasattr(cls, member), f"{name}.{member} is in the stub, not at runtime"
        is_property = isinstance(inspect.getattr_static(cls, member), property)
        assert is_property == (kind == "property"), f"{name}.{member}: property in one only"


@pytest.mark.parametrize("name", FILTER_CLASSES)
def test_runtime_members_are_declared(name):
    cls = getattr(bloomkit, name)
    declared = class_members(CLASSES, name)
    runtime = {m for m in dir(cls) if not m.startswith("_")}
    missing = sorted(runtime - set(declared))
    assert not missing, f"{name} has {missing} at runtime, not in the stub"


def test_module_names():
    tree = stub_tree()
    names = set(CLASSES)
    for node in tree.body:
        if isinstance(node, ast.FunctionDef):
            names.add(node.name)
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            names.add(node.target.id)
    for name in names:
        if not name.startswith("_") and name not in ("Key", "Keys", "PathLike", "AnyFilter"):
            if "Redis" in name and not bloomkit.has_redis:
                continue
            assert hasattr(bloomkit, name), f"bloomkit.{name} is in the stub, not at runtime"
    public = {n for n in dir(bloomkit) if not n.startswith("_")}
    undeclared = sorted(n for n in public - names
                        if not inspect.ismodule(getattr(bloomkit, n)))
    assert not undeclared, f"{undeclared} at runtime, not in the stub"
