// bloomkit.RedisWindowFilter: a time-window filter shared through Redis by every client that
// opens it by name, "was this key inserted within the last W seconds?"
// (bloomkit::redis::redis_window_filter, docs/REDIS.md "Window filters"). URLs, the GIL and
// threads: redis_handle.hpp.

#include <cstdint>
#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include <pybind11/stl.h>

#include "bloomkit/hashing.hpp"
#include "bloomkit/redis/redis_filter.hpp"
#include "bloomkit/redis/window_filter.hpp"
#include "dict_report.hpp"
#include "redis_handle.hpp"

namespace py = pybind11;

namespace bloomkit::python {

namespace {

using W = redis_handle<redis::redis_window_filter>;

// `bloomkit redis info NAME --json` of a window filter (redis::report_info), plus 'slice_list':
// one dict per live slice.
py::dict window_info(W& h) {
  const auto [i, url] = locked(h, [&](redis::redis_window_filter& f) {
    return std::make_pair(f.info(), h.client->describe());
  });
  py::list slices;
  for (const redis::window_slice_info& s : i.slices) {
    py::dict d;
    d["slice"] = s.slice;
    d["exists"] = s.exists;
    d["bits_set"] = s.bits_set;
    d["fill_ratio"] = s.fill_ratio;
    d["ttl_ms"] = s.ttl_ms;
    slices.append(d);
  }
  dict_report r;
  redis::report_info(i, url, r);
  py::dict d = r.dict();
  d["slice_list"] = slices;
  return d;
}

constexpr const char* window_class_doc =
    R"(A time-window filter in Redis: "was this key inserted within the last `window` seconds?",
shared by every client that opens it by name (C++ bloomkit::redis::redis_window_filter; layout
and guarantees in docs/REDIS.md, "Window filters").

    seen = bloomkit.RedisWindowFilter.create(None, "recrawl", 10_000_000, 0.01, window=7 * 86400)
    if seen.add(url):       # True: nobody inserted it within the last 7 days
        fetch(url)

The window is `slices` slices of window/slices seconds, named by time: every client derives the
current slice from its clock (no coordinator). A key is kept for at least `window` seconds and
forgotten after window + window/slices + skew; clocks may differ by up to `skew` seconds. Slices
expire by TTL; one missing (evicted, deleted) reads as empty, losing its keys without an error.

url: as RedisFilter's (None: BLOOMKIT_REDIS_URL, else redis://127.0.0.1:6379; REDISCLI_AUTH).
The bits are the CLI's for the same keys and clock (`bloomkit redis add NAME --now T`). A handle
is one connection: give each thread or process its own.)";

}  // namespace

void bind_redis_window(py::module_& m) {
  py::class_<W> cls(m, "RedisWindowFilter", window_class_doc);
  cls.def_static(
         "create",
         [](std::optional<std::string> url, std::string name, std::uint64_t capacity, double fpp,
            std::uint64_t window, std::uint32_t slices, std::uint64_t skew, unsigned shard_bits,
            const std::string& slice_format) {
           const redis::redis_window_config config{capacity,
                                                   fpp,
                                                   window,
                                                   slices,
                                                   skew,
                                                   shard_bits,
                                                   redis::window_slice_format_named(slice_format)};
           return make_redis_handle<redis::redis_window_filter>(url, [&](redis::client& c) {
             return redis::redis_window_filter::create(c, name, config);
           });
         },
         py::arg("url"), py::arg("name"), py::arg("capacity"), py::arg("fpp"), py::kw_only(),
         py::arg("window"), py::arg("slices") = 8, py::arg("skew") = 10,
         py::arg("shard_bits") = redis::default_shard_bits_log2, py::arg("slice_format") = "words",
         "Creates window filter `name`: `capacity` keys per window (of `window` seconds, in "
         "`slices` slices of 1..255) at FPP `fpp` over the live slices, clocks differing by up "
         "to `skew` seconds (0..3600), each slice in shards of at most 2**shard_bits bits, in "
         "`slice_format` 'words' (a key's bits in one 64-bit word per slice) or 'bits' (format "
         "1, which bloomkit before the words format also reads; an existing filter of the same "
         "parameters is opened in its own format). Writes "
         "its meta only (inserts make the slices). If it exists with the same configuration, "
         "opens it; with another, AlreadyExistsError naming what differs. Parameters out of "
         "range: InvalidArgumentError naming them.")
      .def_static(
          "open",
          [](std::optional<std::string> url, std::string name) {
            return make_redis_handle<redis::redis_window_filter>(
                url, [&](redis::client& c) { return redis::redis_window_filter::open(c, name); });
          },
          py::arg("url"), py::arg("name"),
          "Opens an existing window filter: NotFoundError when there is none, IncompatibleError "
          "for a RedisFilter's name. Writes nothing.")
      .def_static(
          "is_window",
          [](std::optional<std::string> url, const std::string& name) {
            py::gil_scoped_release unlocked;
            auto c = connect_redis(url);
            return redis::redis_window_filter::is_window(*c, name);
          },
          py::arg("url"), py::arg("name"),
          "Whether `name` is a window filter (its meta says so): one HGET.");
  bind_redis_key_methods(cls,
                         "Sets the key in the current slice; returns True when no live slice "
                         "held it (new to the window). One round trip.");
  cls.def(
         "record_many",
         [](W& h, py::handle keys) {
           redis::redis_window_filter& f = h.get();
           key_batch batch(keys);
           batch.run([&](std::span<const std::string_view> chunk, std::size_t) {
             std::lock_guard<std::mutex> guard(h.lock);
             f.record_many(chunk);
           });
         },
         py::arg("keys"),
         "Adds a batch without the 'new to the window' answer: only the current slice is "
         "written, the older ones are not read (about the native filter's insert cost). "
         "Returns None.")
      .def(
          "set_now",
          [](W& h, std::uint64_t now) {
            locked(h, [&](redis::redis_window_filter& f) { f.set_now(now); });
          },
          py::arg("now"),
          "Fixes the clock at `now` (unix seconds) for this handle: tests and replays; as the "
          "CLI's --now.")
      .def(
          "use_system_clock",
          [](W& h) {
            locked(h, [](redis::redis_window_filter& f) { f.set_clock(system_unix_seconds); });
          },
          "Goes back to the system clock after set_now.")
      .def_property_readonly(
          "now",
          [](W& h) { return locked(h, [](redis::redis_window_filter& f) { return f.now(); }); },
          "The clock's time, unix seconds.")
      .def_property_readonly(
          "current_slice",
          [](W& h) {
            return locked(h, [](redis::redis_window_filter& f) { return f.current_slice(); });
          },
          "The slice inserts go to now: floor(now * slices / window).")
      .def(
          "live_slices",
          [](W& h) {
            return locked(h, [](redis::redis_window_filter& f) { return f.live_slices(); });
          },
          "The slices a lookup reads now: those of [now - window - skew, now + skew].")
      .def("info", &window_info,
           "`bloomkit redis info NAME --json` of a window filter as a dict (slice_fill and "
           "slice_ttl the CLI's strings, newest slice first), plus 'slice_list': per live slice "
           "a dict of slice, exists, bits_set, fill_ratio and ttl_ms.")
      .def(
          "drop",
          [](W& h) {
            return locked(h, [&](redis::redis_window_filter& f) {
              return redis::redis_filter::drop(*h.client, f.name());
            });
          },
          "Deletes the filter (its meta first, then every slice) as `bloomkit redis drop` does; "
          "returns the number of keys deleted. Other clients get NotFoundError at once.")
      .def_property_readonly(
          "name", [](W& h) { return h.get().name(); }, "The filter's name.")
      .def_property_readonly(
          "capacity", [](W& h) { return h.get().config().capacity; }, "Keys per window.")
      .def_property_readonly(
          "target_fpp", [](W& h) { return h.get().config().target_fpp; }, "p over live slices.")
      .def_property_readonly(
          "window", [](W& h) { return h.get().config().window; }, "W, seconds.")
      .def_property_readonly(
          "slices", [](W& h) { return h.get().config().slices; }, "S: slices per window.")
      .def_property_readonly(
          "skew", [](W& h) { return h.get().config().skew; }, "Clock skew allowed, seconds.")
      .def_property_readonly(
          "slice_format",
          [](W& h) { return std::string(redis::to_string(h.get().config().slice_format)); },
          "'words' or 'bits' (format 1).")
      .def_property_readonly(
          "bits_per_slice", [](W& h) { return h.get().layout().total_bits(); }, "m of one slice.")
      .def_property_readonly(
          "hashes", [](W& h) { return h.get().layout().hashes; }, "k.")
      .def_property_readonly(
          "shards_per_slice", [](W& h) { return h.get().layout().shard_count; },
          "Shards of one slice.");
}

}  // namespace bloomkit::python
