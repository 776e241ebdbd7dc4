"""RedisBloom's module arguments and configs: `--loadmodule <so> ERROR_RATE e INITIAL_SIZE n
EXPANSION x` (and the configs' names, and CF_MAX_EXPANSIONS) set the defaults of the filters
that BF.ADD / BF.MADD / BF.INSERT create; the configs bf-error-rate, bf-initial-size,
bf-expansion-factor (and cf-*) show them to CONFIG GET and change them with CONFIG SET, with
RedisBloom's ranges and refusal texts. On Redis 7.x a module's configs carry its name as a prefix
(`bf.bf-error-rate` for a module named bf); Redis 8 registers them unprefixed, as RedisBloom."""

import pytest
import redis

from conftest import ModuleServer
from redisbloom_vectors import info

ResponseError = redis.exceptions.ResponseError
RATE_RANGE = "Value for `bf-error-rate` must be in the range [0.000000, 1.000000]"


def config_prefix(r):
    """'' when the configs are unprefixed, else the module's name and a dot."""
    if r.config_get("bf-error-rate"):
        return ""
    modules = r.execute_command("MODULE", "LIST")
    names = [dict(zip(m[::2], m[1::2]))[b"name"].decode() for m in modules]
    for name in names:
        if r.config_get(f"{name}.bf-error-rate"):
            return name + "."
    raise AssertionError(f"no bf-error-rate config among modules {names}")


class Configs:
    def __init__(self, r):
        self.r = r
        self.prefix = config_prefix(r)

    def get(self, name):
        return self.r.config_get(self.prefix + name)[self.prefix + name]

    def set(self, name, value):
        return self.r.config_set(self.prefix + name, value)

    def refusal(self, name, value):
        with pytest.raises(ResponseError) as e:
            self.set(name, value)
        return str(e.value)


@pytest.fixture
def configs(r):
    c = Configs(r)
    yield c
    for name, value in (("bf-error-rate", "0.01"), ("bf-initial-size", "100"),
                        ("bf-expansion-factor", "2"), ("cf-bucket-size", "2"),
                        ("cf-initial-size", "1024")):
        c.set(name, value)


def test_defaults_are_redisblooms(configs):
    assert {n: configs.get(n) for n in ("bf-error-rate", "bf-initial-size", "bf-expansion-factor",
                                        "cf-bucket-size", "cf-initial-size", "cf-max-iterations",
                                        "cf-expansion-factor", "cf-max-expansions")} == {
        "bf-error-rate": "0.010000", "bf-initial-size": "100", "bf-expansion-factor": "2",
        "cf-bucket-size": "2", "cf-initial-size": "1024", "cf-max-iterations": "20",
        "cf-expansion-factor": "1", "cf-max-expansions": "32"}


def test_config_set_changes_what_bf_add_creates(r, configs):
    r.execute_command("BF.ADD", "before", "a")
    assert configs.set("bf-error-rate", "0.001") is True
    assert configs.set("bf-initial-size", "1000") is True
    assert configs.set("bf-expansion-factor", "4") is True
    assert (configs.get("bf-error-rate"), configs.get("bf-initial-size"),
            configs.get("bf-expansion-factor")) == ("0.001000", "1000", "4")
    r.execute_command("BF.ADD", "added", "a")
    r.execute_command("BF.MADD", "madded", "a", "b")
    r.execute_command("BF.INSERT", "inserted", "ITEMS", "a")
    r.execute_command("BF.RESERVE", "reserved", "0.001", "1000", "EXPANSION", "4")
    for key in ("added", "madded", "inserted"):
        got = info(r, key)
        assert (got["Capacity"], got["Expansion rate"]) == (1000, 4), key
        # The same error rate makes the same filter as BF.RESERVE's.
        assert got["Size"] == info(r, "reserved")["Size"], key
    # BF.RESERVE without EXPANSION takes bf-expansion-factor; options still win over defaults.
    r.execute_command("BF.RESERVE", "plain", "0.01", "10")
    assert info(r, "plain")["Expansion rate"] == 4
    r.execute_command("BF.INSERT", "given", "CAPACITY", "7", "EXPANSION", "3", "ITEMS", "a")
    assert (info(r, "given")["Capacity"], info(r, "given")["Expansion rate"]) == (7, 3)
    # Filters made before keep what they were made with.
    assert (info(r, "before")["Capacity"], info(r, "before")["Expansion rate"]) == (100, 2)


def test_expansion_factor_zero_makes_nonscaling_filters(r, configs):
    configs.set("bf-expansion-factor", "0")
    configs.set("bf-initial-size", "3")
    assert r.execute_command("BF.MADD", "f", "a", "b", "c") == [1, 1, 1]
    with pytest.raises(ResponseError, match="non scaling filter is full"):
        r.execute_command("BF.ADD", "f", "d")
    assert info(r, "f")["Expansion rate"] is None
    # An explicit EXPANSION still makes a chain.
    r.execute_command("BF.INSERT", "g", "EXPANSION", "2", "ITEMS", "a")
    assert info(r, "g")["Expansion rate"] == 2


@pytest.mark.parametrize("name, value, text", [
    ("bf-error-rate", "abc", "Invalid value for `bf-error-rate`"),
    ("bf-error-rate", "0", RATE_RANGE),
    ("bf-error-rate", "1", RATE_RANGE),
    ("bf-error-rate", "-0.5", RATE_RANGE),
    ("bf-error-rate", "2", RATE_RANGE),
    ("bf-initial-size", "x", "Invalid value for `bf-initial-size`"),
    ("bf-initial-size", "0", "Value for `bf-initial-size` must be in the range [1, 1073741824]"),
    ("bf-initial-size", str(2**32),
     "Value for `bf-initial-size` must be in the range [1, 1073741824]"),
    ("bf-expansion-factor", "-1",
     "Value for `bf-expansion-factor` must be in the range [0, 32768]"),
    ("bf-expansion-factor", "32769",
     "Value for `bf-expansion-factor` must be in the range [0, 32768]"),
    ("cf-bucket-size", "256", "Value for `cf-bucket-size` must be in the range [1, 255]"),
    ("cf-initial-size", "3", "Value for `cf-initial-size` must be in the range [4, 1073741824]"),
    ("cf-max-iterations", "65536", "Value for `cf-max-iterations` must be in the range [1, 65535]"),
    ("cf-max-expansions", "0", "Value for `cf-max-expansions` must be in the range [1, 65535]"),
])
def test_config_set_refusals(configs, name, value, text):
    before = configs.get(name)
    message = configs.refusal(name, value)
    assert message.endswith(text), message
    assert configs.get(name) == before


def test_cuckoo_sizes_bound_each_other(configs):
    configs.set("cf-bucket-size", "3")
    assert configs.refusal("cf-initial-size", "5").endswith(
        "Value for `cf-initial-size` must be in the range [6, 1073741824]")
    configs.set("cf-initial-size", "100")
    assert configs.refusal("cf-bucket-size", "51").endswith(
        "Value for `cf-bucket-size` must be in the range [1, 50]")


def test_error_rate_text_round_trips(configs):
    configs.set("bf-error-rate", "0.02")
    assert configs.get("bf-error-rate") == "0.020000"
    # "%f" would show 0.000000, which CONFIG SET (and a rewritten redis.conf) refuses.
    configs.set("bf-error-rate", "1e-7")
    assert float(configs.get("bf-error-rate")) == 1e-7
    configs.set("bf-error-rate", configs.get("bf-error-rate"))


def test_module_arguments_are_the_configs_startup_values(server_factory):
    r = server_factory("ERROR_RATE", "0.001", "INITIAL_SIZE", "1000", "EXPANSION", "4",
                       "CF_MAX_EXPANSIONS", "64", "cf-bucket-size", "4").client()
    c = Configs(r)
    assert [c.get(n) for n in ("bf-error-rate", "bf-initial-size", "bf-expansion-factor",
                               "cf-max-expansions", "cf-bucket-size")] == \
        ["0.001000", "1000", "4", "64", "4"]
    r.execute_command("BF.ADD", "added", "a")
    r.execute_command("BF.RESERVE", "reserved", "0.001", "1000", "EXPANSION", "4")
    got = info(r, "added")
    assert (got["Capacity"], got["Expansion rate"]) == (1000, 4)
    assert got["Size"] == info(r, "reserved")["Size"]
    # A config directive is applied after the arguments.
    other = server_factory("INITIAL_SIZE", "1000", f"--{c.prefix}bf-initial-size", "500").client()
    assert Configs(other).get("bf-initial-size") == "500"
    other.execute_command("BF.ADD", "f", "a")
    assert info(other, "f")["Capacity"] == 500


def test_config_names_as_arguments_case_insensitive(server_factory):
    r = server_factory("bf-error-rate", "0.05", "BF-INITIAL-SIZE", "42", "error_rate",
                       "0.02").client()
    c = Configs(r)
    assert (c.get("bf-error-rate"), c.get("bf-initial-size")) == ("0.020000", "42")


@pytest.mark.parametrize("arguments, logged", [
    (("ERROR_RATE", "2"), "Value for `bf-error-rate` must be in the range"),
    (("ERROR_RATE", "x"), "Invalid value for `bf-error-rate`"),
    (("INITIAL_SIZE", "0"), "Value for `bf-initial-size` must be in the range [1, 1073741824]"),
    (("EXPANSION", "40000"), "Value for `bf-expansion-factor` must be in the range [0, 32768]"),
    (("CF_MAX_EXPANSIONS", "0"), "Value for `cf-max-expansions` must be in the range"),
    (("BOGUS", "1"), "unknown module argument 'BOGUS'"),
    (("ERROR_RATE",), "module arguments come in pairs"),
])
def test_bad_module_arguments_refuse_the_load(tmp_path, arguments, logged):
    with pytest.raises(RuntimeError) as e:
        ModuleServer(tmp_path, *arguments)
    assert logged in str(e.value)
