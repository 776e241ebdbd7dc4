// bloomkit.GoZeroRedisFilter and bloomkit.GuavaHelperRedisFilter: the filters that go-zero
// services (core/bloom) and Java services (the Guava-based SETBIT helper) keep in one Redis
// string, read and written in place (bloomkit::redis::go_zero_filter, guava_helper_filter;
// docs/INTEROP.md). As `bloomkit redis --layout go-zero|guava-helper`. URLs, the GIL and
// threads: redis_handle.hpp.

#include <cstdint>
#include <optional>
#include <string>

#include <pybind11/stl.h>

#include "bloomkit/compat/go_zero.hpp"
#include "bloomkit/compat/guava_helper.hpp"
#include "bloomkit/redis/go_zero_filter.hpp"
#include "bloomkit/redis/guava_helper_filter.hpp"
#include "bloomkit/sizing.hpp"
#include "dict_report.hpp"
#include "redis_handle.hpp"

namespace py = pybind11;

namespace bloomkit::python {

namespace {

using G = redis_handle<redis::go_zero_filter>;
using J = redis_handle<redis::guava_helper_filter>;

redis::guava_helper_options helper_options(const std::string& funnel) {
  redis::guava_helper_options o;
  const auto parsed = guava_helper::parse_funnel(funnel);
  if (!parsed) {
    raise_error(errc::invalid_argument,
                "funnel: '" + funnel + "' is not string, string-twice or long");
  }
  o.funnel = *parsed;
  return o;
}

// What the peers' classes share besides the key methods: their figures, from one BITCOUNT.
template <class H>
void bind_peer_figures(py::class_<H>& cls, const char* layout) {
  using F = typename H::filter_type;
  cls.def(
         "info",
         [layout](H& h) {
           dict_report r;
           const auto [set, warnings, url] = locked(h, [&](F& f) {
             return std::make_tuple(f.bits_set(), f.warnings(), h.client->describe());
           });
           const F& f = h.get();
           r.add("name", f.key())
               .add("url", url)
               .add("layout", layout)
               .add("bits", f.bits())
               .add("hashes", f.hashes())
               .add("bits_set", set)
               .add("estimated_count", estimate_count(f.bits(), f.hashes(), set))
               .add("fill_ratio", static_cast<double>(set) / static_cast<double>(f.bits()));
           py::dict d = r.dict();
           d["warnings"] = py::cast(warnings);
           return d;
         },
         "`bloomkit redis --layout ... info KEY --json` as a dict, plus 'warnings' (a list: the "
         "key does not exist, the server may evict it).")
      .def(
          "bits_set", [](H& h) { return locked(h, [](F& f) { return f.bits_set(); }); },
          "BITCOUNT of the key (0 when it does not exist).")
      .def(
          "estimated_count",
          [](H& h) { return locked(h, [](F& f) { return f.estimated_count(); }); },
          "-m/k ln(1 - X/m) from the set bits X.")
      .def_property_readonly(
          "key", [](H& h) { return h.get().key(); }, "The Redis key, as the peer names it.")
      .def_property_readonly(
          "bits", [](H& h) { return h.get().bits(); }, "m, as the peer was given it.")
      .def_property_readonly(
          "hashes", [](H& h) { return h.get().hashes(); }, "k.");
}

constexpr const char* go_zero_doc =
    R"(The filter a go-zero service keeps in Redis with core/bloom's New(store, key, bits), read
and written in place (C++ bloomkit::redis::go_zero_filter; docs/INTEROP.md, "go-zero core/bloom").

    f = bloomkit.GoZeroRedisFilter(None, "users", 1 << 20)   # go-zero's key and bits
    f.add("alice")            # one BITFIELD SET of the 14 bits: atomic per key
    f.contains_many(keys)     # pipelined BITFIELD_RO

The filter is the one Redis string `key` (no meta): every user must pass go-zero's bits (and
hashes, 14 unless the proposed NewFilter sized it: for_capacity). A missing key reads as an empty
filter, as go-zero reads it. url: as RedisFilter's. Errors: InvalidArgumentError for bits outside
1..2**32 or hashes outside 1..255, WrongTypeError when the key is not a string, ...)";

constexpr const char* guava_doc =
    R"(The filter Java services keep in Redis with the Guava-based SETBIT helper (murmur3_128,
Guava's double hashing, one Redis string), read and written in place (C++
bloomkit::redis::guava_helper_filter; docs/INTEROP.md, "The Guava-based Redis helper").

    f = bloomkit.GuavaHelperRedisFilter.for_capacity(None, "users", 1_000_000, 0.01)
    f.add_many(names)         # pipelined BITFIELDs: a key's k bits in one command

funnel: what the helper's Funnel feeds murmur3_128: "string" (putString UTF-8), "string-twice",
or "long" (putLong: keys are ints, or 8 little-endian bytes). Nothing in Redis records bits, k or
the funnel: every user must pass the helper's values. url: as RedisFilter's.)";

}  // namespace

void bind_redis_peers(py::module_& m) {
  py::class_<G> go_zero(m, "GoZeroRedisFilter", go_zero_doc);
  go_zero
      .def(py::init([](std::optional<std::string> url, std::string key, std::uint64_t bits,
                       std::uint32_t hashes) {
             redis::go_zero_options o;
             o.hashes = hashes;
             return make_redis_handle<redis::go_zero_filter>(
                 url, [&](redis::client& c) { return redis::go_zero_filter(c, key, bits, o); });
           }),
           py::arg("url"), py::arg("key"), py::arg("bits"), py::arg("hashes") = go_zero::hashes,
           "go-zero's key with its bits (and hashes). Connects; sends nothing else.")
      .def_static(
          "for_capacity",
          [](std::optional<std::string> url, std::string key, std::uint64_t capacity, double fpp) {
            const filter_params p = go_zero::optimal_params(capacity, fpp);
            redis::go_zero_options o;
            o.hashes = p.hashes;
            return make_redis_handle<redis::go_zero_filter>(
                url, [&](redis::client& c) { return redis::go_zero_filter(c, key, p.bits, o); });
          },
          py::arg("url"), py::arg("key"), py::arg("capacity"), py::arg("fpp"),
          "Sized as the proposed NewFilter(store, key, expectedInsertions, falseProbability).");
  bind_redis_key_methods(go_zero,
                         "Sets the key's k bits with one BITFIELD; returns whether one was 0.");
  bind_peer_figures(go_zero, "go-zero");

  py::class_<J> guava(m, "GuavaHelperRedisFilter", guava_doc);
  guava
      .def(py::init([](std::optional<std::string> url, std::string key, std::uint64_t bits,
                       std::uint32_t hashes, const std::string& funnel) {
             const redis::guava_helper_options o = helper_options(funnel);
             return make_redis_handle<redis::guava_helper_filter>(url, [&](redis::client& c) {
               return redis::guava_helper_filter(c, key, bits, hashes, o);
             });
           }),
           py::arg("url"), py::arg("key"), py::arg("bits"), py::arg("hashes"),
           py::arg("funnel") = "string",
           "The helper's key with its bitSize and numHashFunctions. Connects; sends nothing else.")
      .def_static(
          "for_capacity",
          [](std::optional<std::string> url, std::string key, std::uint64_t capacity, double fpp,
             const std::string& funnel) {
            const filter_params p = guava_helper::optimal_params(capacity, fpp);
            const redis::guava_helper_options o = helper_options(funnel);
            return make_redis_handle<redis::guava_helper_filter>(url, [&](redis::client& c) {
              return redis::guava_helper_filter(c, key, p.bits, p.hashes, o);
            });
          },
          py::arg("url"), py::arg("key"), py::arg("capacity"), py::arg("fpp"),
          py::arg("funnel") = "string",
          "Sized as the helper sizes expectedInsertions and fpp (its optimalNumOfBits and "
          "optimalNumOfHashFunctions).");
  bind_redis_key_methods(guava,
                         "Sets the key's k bits with one BITFIELD; returns whether one was 0.");
  bind_peer_figures(guava, "guava-helper");
}

}  // namespace bloomkit::python
