// bloomkit.StaticFilter: the static kind (C++ bloomkit::static_filter), built once from a whole
// key set. The shared surface (filter_class.hpp) gives it lookups, files and info; its writes
// (add, add_many, merge, intersect, clear) raise InvalidArgumentError naming the kind.

#include <cstdint>
#include <memory>
#include <vector>

#include "bloomkit/static_filter.hpp"
#include "errors.hpp"
#include "filter_class.hpp"
#include "key_batch.hpp"

namespace bloomkit::python {

namespace {

using W = py_filter<static_filter>;

constexpr const char* static_doc =
    R"(The static filter: built once from a whole key set, then only queried (C++
bloomkit::static_filter). A binary fuse filter (Graf & Lemire 2022) of b-bit fingerprints, b the
smallest with 2**-b <= fpp: about 1.13 b bits per key against a Bloom filter's 1.44 log2(1/p),
FPP exactly 2**-b for keys not in the set, never a false negative, three cache lines per lookup.
fill_ratio() is the keys per fingerprint slot its construction reached (info()'s "load").

    f = bloomkit.StaticFilter.build(urls, 0.001)   # keys: iterable of str / bytes (duplicates ok)
    "https://example.com/a" in f                     # True for every key of the set
    f.save("urls.bloom"); g = bloomkit.StaticFilter.open_mapped("urls.bloom")

It takes no keys after the build: add, add_many, merge, intersect and clear raise
InvalidArgumentError; build a new filter from the new set (or `bloomkit build --kind static`).)";

std::unique_ptr<W> build(py::handle keys, double fpp, unsigned threads) {
  static_filter::fingerprint_bits_for(fpp);  // a bad fpp before the keys are read
  key_batch batch(keys);
  std::vector<std::uint64_t> hashes;
  if (batch.size()) hashes.reserve(*batch.size());
  batch.run([&](std::span<const std::string_view> chunk, std::size_t) {
    for (const std::string_view key : chunk) hashes.push_back(xxh3_64(key));
  });
  py::gil_scoped_release unlocked;
  return std::make_unique<W>(static_filter::build_from_hashes(std::move(hashes), fpp, threads));
}

}  // namespace

void bind_static(py::module_& m) {
  bind_filter_class<static_filter>(m, "StaticFilter", static_doc)
      .def_static("build", &build, py::arg("keys"), py::arg("fpp"), py::arg("threads") = 1,
                  "The filter of `keys` (an iterable of str / bytes / int, a NumPy integer array, "
                  "or\nbytes of newline-separated keys, as add_many takes them elsewhere; "
                  "duplicates and the\nempty set allowed) at false-positive probability fpp "
                  "(2**-32 <= fpp < 1), its\nshards built on `threads` threads.")
      .def_static("fingerprint_bits_for", &static_filter::fingerprint_bits_for, py::arg("fpp"),
                  "b: the smallest fingerprint width with 2**-b <= fpp.")
      .def_static("bits_for", &static_filter::bits_for, py::arg("n"), py::arg("fpp"),
                  "The bits of the filter of n distinct keys at fpp (bloomkit size --kind static).")
      .def("__len__", [](const W& w) { return w.filter.size(); })
      .def_property_readonly(
          "size", [](const W& w) { return w.filter.size(); }, "Distinct keys of the set.")
      .def_property_readonly(
          "fingerprint_bits", [](const W& w) { return w.filter.fingerprint_bits(); },
          "b: bits per fingerprint; the FPP is 2**-b.")
      .def_property_readonly(
          "shard_bits", [](const W& w) { return w.filter.shard_bits(); },
          "s: the filter is 2**s shards, a key's shard the top s bits of its XXH3-64.")
      .def_property_readonly(
          "shards", [](const W& w) { return w.filter.shards().size(); }, "2**shard_bits.")
      .def_property_readonly(
          "bits_per_key", [](const W& w) { return w.filter.bits_per_key(); },
          "bits / size (0 for the empty set).")
      .def_property_readonly(
          "fpp", [](const W& w) { return w.filter.fpp(); }, "2**-fingerprint_bits.");
}

}  // namespace bloomkit::python
