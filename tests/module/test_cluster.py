"""Cluster mode: the module loaded on every node of a 3-master redis cluster, its keys routed
as any key (python3-redis's RedisCluster and redis-cli -c), a non-owner answering MOVED, hash
tags keeping filters together, SCANDUMP / LOADCHUNK between nodes, and a filter migrated to
another node (MIGRATE carries the module type's serialization) answering as before."""

import subprocess

import pytest
import redis
from redis.cluster import ClusterNode, RedisCluster

from conftest import ModuleServer, free_port, wait_for

ITEMS = [f"item:{i}" for i in range(2000)]
NAMES = [f"filter:{i}" for i in range(24)]


def cluster_info(server):
    text = server.client().execute_command("CLUSTER", "INFO").decode()
    return dict(line.split(":", 1) for line in text.split("\r\n") if ":" in line)


def slot_map(server):
    return sorted((s[0], s[1], s[2][1]) for s in server.client().execute_command("CLUSTER",
                                                                                 "SLOTS"))


@pytest.fixture(scope="module")
def nodes(tmp_path_factory):
    # The bus port is chosen too: port + 10000, the default, is past 65535 for a high free port.
    servers = [ModuleServer(tmp_path_factory.mktemp(f"node{i}"), "--cluster-enabled", "yes",
                            "--cluster-config-file", "nodes.conf", "--cluster-port",
                            str(free_port()), "--cluster-node-timeout", "5000")
               for i in range(3)]
    try:
        addresses = [f"127.0.0.1:{s.port}" for s in servers]
        created = subprocess.run(["redis-cli", "--cluster", "create", *addresses,
                                  "--cluster-replicas", "0", "--cluster-yes"],
                                 capture_output=True, text=True, timeout=60)
        assert created.returncode == 0, created.stdout + created.stderr
        # Every node sees the cluster as ok and the same slot map of three masters.
        wait_for(lambda: all(cluster_info(s)["cluster_state"] == "ok" for s in servers) and
                 all(slot_map(s) == slot_map(servers[0]) for s in servers) and
                 len(slot_map(servers[0])) == 3, "cluster_state:ok on every node")
        yield servers
    finally:
        for s in servers:
            s.kill()


@pytest.fixture
def cluster(nodes):
    client = RedisCluster(startup_nodes=[ClusterNode("127.0.0.1", n.port) for n in nodes])
    yield client
    client.flushall(target_nodes=RedisCluster.PRIMARIES)
    client.close()


def owner(nodes, key):
    """The node that holds `key`'s slot."""
    slot = nodes[0].client().execute_command("CLUSTER", "KEYSLOT", key)
    for start, end, port in slot_map(nodes[0]):
        if start <= slot <= end:
            return next(n for n in nodes if n.port == port)
    raise AssertionError(f"no node owns slot {slot}")


def keys_in_slot_of(node, key):
    """The keys `node` holds in `key`'s slot (a node answers for its own keys, owner or not)."""
    slot = node.client().execute_command("CLUSTER", "KEYSLOT", key)
    return node.client().execute_command("CLUSTER", "COUNTKEYSINSLOT", slot)


def test_filters_route_to_their_slot_owners(nodes, cluster):
    for name in NAMES:
        assert cluster.execute_command("BF.RESERVE", name, 0.01, 5000) == b"OK"
        assert cluster.execute_command("BF.MADD", name, *ITEMS) == [1] * len(ITEMS)
        assert cluster.execute_command("BF.MEXISTS", name, *ITEMS) == [1] * len(ITEMS)
        assert cluster.execute_command("BF.CARD", name) == len(ITEMS)
    # Each filter lives on its slot's owner only, and the names spread over every node.
    holders = set()
    for name in NAMES:
        home = owner(nodes, name)
        holders.add(home.port)
        for n in nodes:
            assert keys_in_slot_of(n, name) == (1 if n is home else 0), (name, n.port)
        assert home.client().type(name) == b"bkbloom--"
    assert holders == {n.port for n in nodes}
    assert sum(n.client().dbsize() for n in nodes) == len(NAMES)


def test_a_node_that_does_not_own_the_key_answers_moved(nodes, cluster):
    name = NAMES[0]
    cluster.execute_command("BF.ADD", name, "x")
    home = owner(nodes, name)
    other = next(n for n in nodes if n is not home)
    with pytest.raises(redis.exceptions.ResponseError, match="MOVED"):
        other.client().execute_command("BF.EXISTS", name, "x")
    # redis-cli -c follows the redirection, as for any key.
    followed = subprocess.run(["redis-cli", "-c", "-p", str(other.port), "BF.EXISTS", name, "x"],
                              capture_output=True, text=True, timeout=30)
    assert followed.stdout.strip() == "1", followed.stdout + followed.stderr


def test_hash_tags_keep_filters_on_one_node(nodes, cluster):
    tagged = [f"{{tenant:7}}:{kind}" for kind in ("seen", "clicked", "bought")]
    for name in tagged:
        cluster.execute_command("BF.INSERT", name, "ITEMS", *ITEMS[:100])
    homes = {owner(nodes, name).port for name in tagged}
    assert len(homes) == 1
    assert all(keys_in_slot_of(owner(nodes, name), name) == len(tagged) for name in tagged)


def test_scandump_of_one_node_loads_on_another(nodes, cluster):
    source, target = "dump:source", "dump:target"
    assert owner(nodes, source) is not owner(nodes, target)
    cluster.execute_command("BF.RESERVE", source, 0.001, 100000)
    cluster.execute_command("BF.MADD", source, *ITEMS)
    iterator = 0
    while True:
        iterator, data = cluster.execute_command("BF.SCANDUMP", source, iterator)
        if iterator == 0:
            break
        assert cluster.execute_command("BF.LOADCHUNK", target, iterator, data) == b"OK"
    assert cluster.execute_command("BF.MEXISTS", target, *ITEMS) == [1] * len(ITEMS)
    assert cluster.execute_command("BF.INFO", target) == cluster.execute_command("BF.INFO",
                                                                                 source)


def test_a_filter_migrated_to_another_node_answers_the_same(nodes, cluster):
    name = "migrated"
    cluster.execute_command("BF.RESERVE", name, 0.01, 1000)
    cluster.execute_command("BF.MADD", name, *ITEMS)  # a chain of several sub-filters
    info = cluster.execute_command("BF.INFO", name)
    source = owner(nodes, name)
    target = next(n for n in nodes if n is not source)
    slot = source.client().execute_command("CLUSTER", "KEYSLOT", name)
    source_id = source.client().execute_command("CLUSTER", "MYID").decode()
    target_id = target.client().execute_command("CLUSTER", "MYID").decode()
    target.client().execute_command("CLUSTER", "SETSLOT", slot, "IMPORTING", source_id)
    source.client().execute_command("CLUSTER", "SETSLOT", slot, "MIGRATING", target_id)
    assert source.client().execute_command("MIGRATE", "127.0.0.1", target.port, "", 0, 10000,
                                           "KEYS", name) == b"OK"
    for n in nodes:
        n.client().execute_command("CLUSTER", "SETSLOT", slot, "NODE", target_id)
    wait_for(lambda: all(slot_map(n) == slot_map(target) for n in nodes) and
             owner(nodes, name) is target, "every node to see the slot's new owner")
    assert keys_in_slot_of(source, name) == 0
    assert keys_in_slot_of(target, name) == 1
    assert target.client().execute_command("BF.MEXISTS", name, *ITEMS) == [1] * len(ITEMS)
    # The cluster client learns the new owner from MOVED and answers as before.
    assert cluster.execute_command("BF.MEXISTS", name, *ITEMS) == [1] * len(ITEMS)
    assert cluster.execute_command("BF.INFO", name) == info
