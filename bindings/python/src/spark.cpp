// Spark's BloomFilter (docs/INTEROP.md, "Spark"): SparkFilter (V2, with its seed) and
// SparkV1Filter, which answer exactly as mightContain* does, and read_spark / write_spark for
// Spark's writeTo bytes. Keys: str is putString, bytes putBinary, int putLong.

#include <cstdint>
#include <string>
#include <variant>

#include "bloomkit/compat/any_filter.hpp"
#include "bloomkit/compat/spark.hpp"
#include "byte_input.hpp"
#include "filter_class.hpp"

namespace bloomkit::python {

namespace {

using v1_wrapper = py_filter<spark::v1_filter>;
using v2_wrapper = py_filter<spark::v2_filter>;

}  // namespace

void bind_spark(py::module_& m) {
  bind_filter_class<spark::v2_filter>(
      m, "SparkFilter",
      "Spark's BloomFilter V2 (Spark 4.1's default, BloomFilter.create(n, fpp)): answers exactly\n"
      "as mightContain* does. str keys are putString, bytes putBinary, int putLong.")
      .def(py::init([](std::uint64_t bits, std::uint32_t hashes, std::int32_t seed) {
             return std::make_unique<v2_wrapper>(spark::v2_filter(bits, hashes, seed));
           }),
           py::arg("bits"), py::arg("hashes"), py::arg("seed") = 0,
           "A V2 filter of m bits (a multiple of 64) and k probes, hashing with `seed`.")
      .def_static(
          "for_capacity",
          [](std::uint64_t n, double p, std::int32_t seed) {
            return std::make_unique<v2_wrapper>(spark::v2_filter::for_capacity(n, p, seed));
          },
          py::arg("n"), py::arg("p"), py::arg("seed") = 0,
          "What BloomFilter.create(Version.V2, n, optimalNumOfBits(n, p), seed) makes.")
      .def_property_readonly(
          "seed", [](const v2_wrapper& w) { return w.filter.seed(); },
          "The seed of the V2 header, with which every key is hashed.");
  bind_filter_class<spark::v1_filter>(
      m, "SparkV1Filter",
      "Spark's BloomFilter V1 (Spark 2.0 to 4.0): answers exactly as mightContain* does, past\n"
      "2^31 bits too (where V1 never sets a bit, so its FPP is far above its target).")
      .def(py::init([](std::uint64_t bits, std::uint32_t hashes) {
             return std::make_unique<v1_wrapper>(spark::v1_filter(bits, hashes));
           }),
           py::arg("bits"), py::arg("hashes"),
           "A V1 filter of m bits (a multiple of 64), k probes.")
      .def_static(
          "for_capacity",
          [](std::uint64_t n, double p) {
            return std::make_unique<v1_wrapper>(spark::v1_filter::for_capacity(n, p));
          },
          py::arg("n"), py::arg("p"),
          "What BloomFilter.create(Version.V1, n, optimalNumOfBits(n, p), 0) makes.");

  m.def(
      "read_spark",
      [](py::handle data, const std::string& source, const std::string& key_type) {
        const bloomkit::key_type keys = parse_key_type(key_type);
        const byte_input in(data);
        return std::visit(
            [&](auto&& f) -> py::object {
              return to_python(compat::any_filter(std::move(f)), keys, {});
            },
            spark::read(in.bytes(), source));
      },
      py::arg("data"), py::arg("source") = "<bytes>", py::arg("key_type") = "string",
      "Decodes Spark's BloomFilter.writeTo() bytes: a SparkFilter (V2) or SparkV1Filter, by the\n"
      "version field. key_type ('string', 'binary' or 'long') is what save() records.\n"
      "CorruptFileError naming `source` for truncated or inconsistent bytes.");
  m.def(
      "write_spark",
      [](py::handle filter) -> py::bytes {
        if (py::isinstance<v2_wrapper>(filter)) {
          const auto& w = filter.cast<const v2_wrapper&>();
          read_lock lock(w.gate, gil::held);
          return to_bytes(spark::write(w.filter));
        }
        const auto& w = filter.cast<const v1_wrapper&>();
        read_lock lock(w.gate, gil::held);
        return to_bytes(spark::write(w.filter));
      },
      py::arg("filter"),
      "The writeTo() bytes of a SparkFilter or SparkV1Filter, byte for byte what Spark writes\n"
      "(BloomFilter.readFrom() reads them).");
}

}  // namespace bloomkit::python
