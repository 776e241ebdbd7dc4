// bloomkit.RedisFilter: one Bloom filter in Redis (a server, a Cluster or Sentinel's master),
// shared by every client that opens it by name (bloomkit::redis::redis_filter, docs/REDIS.md).
// URLs, the GIL and threads: redis_handle.hpp, shared with the window and peer filters.

#include <chrono>
#include <filesystem>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include <pybind11/stl.h>
#include <pybind11/stl/filesystem.h>

#include "bloomkit/redis/redis_filter.hpp"
#include "dict_report.hpp"
#include "key_batch.hpp"
#include "redis_handle.hpp"

namespace py = pybind11;

namespace bloomkit::python {

namespace {

using H = redis_handle<redis::redis_filter>;

py::dict filter_info(H& h) {
  const auto [i, url] = locked(
      h, [&](redis::redis_filter& f) { return std::make_pair(f.info(), h.client->describe()); });
  dict_report r;
  redis::report_info(i, url, r);
  py::dict d = r.dict();
  py::list warnings;
  for (const std::string& w : i.warnings) warnings.append(w);
  d["warnings"] = warnings;
  return d;
}

constexpr const char* class_doc =
    R"(One Bloom filter in Redis, shared by every client that opens it by name (C++
bloomkit::redis::redis_filter; layout and guarantees in docs/REDIS.md).

    f = bloomkit.RedisFilter.create("redis://127.0.0.1:6379", "urls", 10_000_000, 0.01)
    f.add("https://example.com/a")      # True: the key was new
    f.contains_many(keys)               # pipelined BITFIELD_RO, several keys per command

url: a redis://, rediss://, redis-cluster:// or redis-sentinel:// URL; None takes
BLOOMKIT_REDIS_URL, else redis://127.0.0.1:6379. A URL without a password takes REDISCLI_AUTH's
(so that no password need be in code or on a command line). The bits are the CLI's and the C++
library's for the same keys (pull() gives a file identical to a local filter's).

Errors: UnreachableError (a ConnectionError) when the server cannot be reached, AuthError,
RedisTimeoutError, NotFoundError when the filter (or one of its shards) is gone, ...
A handle is one connection: give each thread or process its own (a handle is not shared across
fork).)";

}  // namespace

void bind_redis(py::module_& m) {
  py::class_<H> cls(m, "RedisFilter", class_doc);
  cls.def_static(
         "create",
         [](std::optional<std::string> url, std::string name, std::uint64_t capacity, double fpp,
            unsigned shard_bits) {
           return make_redis_handle<redis::redis_filter>(url, [&](redis::client& c) {
             return redis::redis_filter::create(c, name, capacity, fpp, shard_bits);
           });
         },
         py::arg("url"), py::arg("name"), py::arg("capacity"), py::arg("fpp"),
         py::arg("shard_bits") = redis::default_shard_bits_log2,
         "Creates filter `name` sized for `capacity` keys at FPP `fpp`, in shards of at most "
         "2**shard_bits bits. If it exists with the same parameters, opens it (every instance of "
         "a service may call create at startup); with others, AlreadyExistsError naming what "
         "differs.")
      .def_static(
          "open",
          [](std::optional<std::string> url, std::string name) {
            return make_redis_handle<redis::redis_filter>(
                url, [&](redis::client& c) { return redis::redis_filter::open(c, name); });
          },
          py::arg("url"), py::arg("name"),
          "Opens an existing filter (NotFoundError when there is none). Writes nothing.")
      .def_static(
          "push",
          [](std::optional<std::string> url, const std::filesystem::path& file, std::string name) {
            return make_redis_handle<redis::redis_filter>(
                url, [&](redis::client& c) { return redis::redis_filter::push(c, file, name); });
          },
          py::arg("url"), py::arg("file"), py::arg("name"),
          "Creates filter `name` from a local classic filter file (BloomFilter.save, or pull()). "
          "AlreadyExistsError when the name exists.")
      .def_static(
          "delete",
          [](std::optional<std::string> url, const std::string& name) {
            py::gil_scoped_release unlocked;
            auto c = connect_redis(url);
            return redis::redis_filter::drop(*c, name);
          },
          py::arg("url"), py::arg("name"),
          "Deletes every key of filter `name` (orphans of an interrupted create or rebuild "
          "included) without opening it; returns the number of keys deleted.");
  bind_redis_key_methods(
      cls,
      "Adds a key with one BITFIELD SET command; returns whether it was new. Keys as the local "
      "filters take them (str, bytes-like, int).");
  cls.def(
         "estimated_count",
         [](H& h) { return locked(h, [](redis::redis_filter& f) { return f.estimated_count(); }); },
         "-m/k ln(1 - X/m) from the set bits of every shard (BITCOUNT).")
      .def(
          "inserted",
          [](H& h) { return locked(h, [](redis::redis_filter& f) { return f.inserted(); }); },
          "The meta's count of new keys (approximate: docs/REDIS.md).")
      .def("info", &filter_info,
           "`bloomkit redis info NAME --json` as a dict (plus 'warnings', a list).")
      .def(
          "expire",
          [](H& h, std::int64_t seconds) {
            locked(h, [&](redis::redis_filter& f) { f.expire(std::chrono::seconds(seconds)); });
          },
          py::arg("seconds"), "Sets a time to live on every key of the filter (meta and shards).")
      .def(
          "drop", [](H& h) { locked(h, [](redis::redis_filter& f) { f.drop(); }); },
          "Deletes the filter: other clients get NotFoundError at once.")
      .def(
          "rebuild",
          [](H& h, py::handle keys, bool allow_empty) {
            redis::redis_filter& f = h.get();
            key_batch batch(keys);
            py::gil_scoped_release unlocked;
            std::lock_guard<std::mutex> guard(h.lock);
            f.rebuild(
                [&](const redis::key_sink& sink) {
                  py::gil_scoped_acquire with_gil;  // the batch reads Python objects
                  batch.run(
                      [&](std::span<const std::string_view> chunk, std::size_t) { sink(chunk); });
                },
                redis::rebuild_options{allow_empty});
          },
          py::arg("keys"), py::arg("allow_empty") = false,
          "Fills a new generation from `keys` (a batch as add_many takes it), then atomically "
          "makes it the filter's; lookups answer from the old one until then. No keys is "
          "InvalidArgumentError unless allow_empty.")
      .def(
          "pull",
          [](H& h, const std::filesystem::path& file) {
            locked(h, [&](redis::redis_filter& f) { f.pull(file); });
          },
          py::arg("file"),
          "Writes the filter to a local file: 1 shard as a classic filter file (bloomkit.load "
          "reads it), more as a redis-sharded-xxh3 file. push then pull gives the same file.")
      .def(
          "flush", [](H& h) { locked(h, [](redis::redis_filter& f) { f.flush(); }); },
          "Sends the pending count of new keys to the meta now (the next call would carry it).")
      .def_property_readonly(
          "name", [](H& h) { return h.get().name(); }, "The filter's name.")
      .def_property_readonly(
          "capacity", [](H& h) { return h.get().capacity(); }, "n it was sized for.")
      .def_property_readonly(
          "target_fpp", [](H& h) { return h.get().target_fpp(); }, "p it was sized for.")
      .def_property_readonly(
          "generation", [](H& h) { return h.get().generation(); }, "The generation read last.")
      .def_property_readonly(
          "bits", [](H& h) { return h.get().layout().total_bits(); }, "m: bits over all shards.")
      .def_property_readonly(
          "hashes", [](H& h) { return h.get().layout().hashes; }, "k.")
      .def_property_readonly(
          "shards", [](H& h) { return h.get().layout().shard_count; }, "Shards.");
}

}  // namespace bloomkit::python
