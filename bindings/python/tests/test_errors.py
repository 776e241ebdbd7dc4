"""Bad arguments raise the documented classes, carrying the C++ code and message."""

import subprocess

import pytest

import bloomkit


def test_hierarchy():
    assert issubclass(bloomkit.InvalidArgumentError, bloomkit.Error)
    assert issubclass(bloomkit.InvalidArgumentError, ValueError)
    assert issubclass(bloomkit.TooLargeError, ValueError)
    assert issubclass(bloomkit.FileError, OSError)
    assert issubclass(bloomkit.CorruptFileError, OSError)
    assert issubclass(bloomkit.UnreachableError, ConnectionError)
    assert issubclass(bloomkit.UnreachableError, bloomkit.RedisError)
    assert issubclass(bloomkit.RedisTimeoutError, TimeoutError)
    assert issubclass(bloomkit.NotFoundError, LookupError)


@pytest.mark.parametrize("n,p", [(0, 0.01), (100, 0.0), (100, 1.5)])
def test_bad_parameters_have_the_cli_message(cli, n, p):
    with pytest.raises(bloomkit.InvalidArgumentError) as e:
        bloomkit.BloomFilter.for_capacity(n, p)
    assert e.value.code == bloomkit.ErrorCode.invalid_argument
    # the CLI checks with the same library validators: its message is the same text
    r = cli("size", "--capacity", n, "--fpp", p, check=False)
    assert r.returncode == 2
    assert f"bloomkit: error: {e.value}\n".encode() in r.stderr


def test_nan_fpp():
    # the CLI refuses 'nan' before the library sees it; Python reaches the library's validator
    with pytest.raises(bloomkit.InvalidArgumentError, match="must be in \\(0, 1\\), got nan"):
        bloomkit.BloomFilter.for_capacity(100, float("nan"))


def test_too_large():
    with pytest.raises(bloomkit.TooLargeError) as e:
        bloomkit.BloomFilter.for_capacity(2**62, 1e-300)
    assert isinstance(e.value, ValueError) and str(e.value)


def test_negative_sizes_are_type_errors():
    with pytest.raises(TypeError):
        bloomkit.BloomFilter.for_capacity(-1, 0.01)


def test_window_unit():
    with pytest.raises(bloomkit.InvalidArgumentError, match="'minutes'"):
        bloomkit.WindowFilter(10, 0.01, 60, unit="minutes")
