// The peers' filters (docs/INTEROP.md): classes for Guava's and bits-and-blooms' (and go-zero's)
// classic filters, which answer exactly as the peer does, and the readers / writers of their
// serialized forms.

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "bloomkit/compat/any_filter.hpp"
#include "bloomkit/compat/bits_and_blooms.hpp"
#include "bloomkit/compat/go_zero.hpp"
#include "bloomkit/compat/guava.hpp"
#include "bloomkit/compat/redisbloom.hpp"
#include "byte_input.hpp"
#include "filter_class.hpp"

namespace bloomkit::python {

namespace {

template <class F>
void bind_peer(py::module_& m, const char* name, const char* doc) {
  const auto wrap = [](F f) { return std::make_unique<py_filter<F>>(std::move(f)); };
  bind_filter_class<F>(m, name, doc)
      .def(py::init(
               [wrap](std::uint64_t bits, std::uint32_t hashes) { return wrap(F(bits, hashes)); }),
           py::arg("bits"), py::arg("hashes"),
           "A filter of m bits and k probes, within the peer's limits.")
      .def_static(
          "for_capacity", [wrap](std::uint64_t n, double p) { return wrap(F::for_capacity(n, p)); },
          py::arg("n"), py::arg("p"), "A filter sized for n keys at FPP p as the peer sizes it.");
}

}  // namespace

void bind_compat(py::module_& m) {
  bind_peer<guava::mitz_64_filter>(
      m, "GuavaFilter",
      "Guava's BloomFilter with strategy MURMUR128_MITZ_64 (what BloomFilter.create() makes):\n"
      "answers exactly as mightContain() does. str keys are Funnels.stringFunnel(UTF_8), int keys\n"
      "Funnels.longFunnel() (8 little-endian bytes). for_capacity sizes as create(funnel, n, p).");
  bind_peer<guava::mitz_32_filter>(
      m, "Guava32Filter",
      "Guava's BloomFilter with strategy MURMUR128_MITZ_32 (Guava's older filters).");
  bind_peer<bits_and_blooms::filter>(
      m, "BitsAndBloomsFilter",
      "bits-and-blooms/bloom v3's filter (Go): answers exactly as Test() does; for_capacity\n"
      "sizes as NewWithEstimates(n, p).");
  bind_peer<go_zero::filter>(m, "GoZeroFilter",
                             "go-zero's bloom filter (core/bloom, Go), as a local classic filter.");
  using rb_wrapper = py_filter<redisbloom::chain>;
  bind_filter_class<redisbloom::chain>(
      m, "RedisBloomFilter",
      "RedisBloom's scalable Bloom filter (a BF key), bit for bit: answers, grows and reports\n"
      "as RedisBloom does. add() on a full NONSCALING filter raises TooLargeError.")
      .def(py::init([](std::uint64_t capacity, double error_rate, std::uint32_t expansion,
                       bool non_scaling) {
             return std::make_unique<rb_wrapper>(
                 redisbloom::chain::reserve(capacity, error_rate, expansion, non_scaling));
           }),
           py::arg("capacity"), py::arg("error_rate"), py::arg("expansion") = 2,
           py::arg("non_scaling") = false,
           "What BF.RESERVE key error_rate capacity [EXPANSION e] [NONSCALING] makes.")
      .def_property_readonly(
          "filters", [](const rb_wrapper& w) { return w.filter.filters(); },
          "Links in the chain (BF.INFO Number of filters).")
      .def_property_readonly(
          "expansion",
          [](const rb_wrapper& w) -> py::object {
            const auto e = w.filter.expansion();
            return e ? py::object(py::int_(*e)) : py::object(py::none());
          },
          "BF.INFO Expansion rate: None for a NONSCALING filter.")
      .def_property_readonly(
          "redisbloom_size", [](const rb_wrapper& w) { return w.filter.info_size(); },
          "BF.INFO Size, as RedisBloom computes it.");

  m.def(
      "read_guava",
      [](py::handle data, const std::string& source) {
        const byte_input in(data);
        guava::any_filter f = guava::read(in.bytes(), source);
        return std::visit(
            [](auto&& g) -> py::object {
              compat::any_filter any(std::move(g));
              return to_python(std::move(any), key_type::string, {});
            },
            std::move(f));
      },
      py::arg("data"), py::arg("source") = "<bytes>",
      "Decodes Guava's BloomFilter.writeTo() bytes: a GuavaFilter (MITZ_64) or Guava32Filter.\n"
      "CorruptFileError naming `source` for truncated or inconsistent bytes.");
  m.def(
      "write_guava",
      [](py::handle filter) -> py::bytes {
        if (py::isinstance<py_filter<guava::mitz_64_filter>>(filter)) {
          const auto& w = filter.cast<const py_filter<guava::mitz_64_filter>&>();
          read_lock lock(w.gate, gil::held);
          return to_bytes(guava::write(w.filter));
        }
        const auto& w = filter.cast<const py_filter<guava::mitz_32_filter>&>();
        read_lock lock(w.gate, gil::held);
        return to_bytes(guava::write(w.filter));
      },
      py::arg("filter"),
      "The writeTo() bytes of a GuavaFilter or Guava32Filter, byte for byte what Guava writes "
      "(BloomFilter.readFrom() reads them).");
  m.def(
      "read_bits_and_blooms",
      [](py::handle data, const std::string& source) {
        const byte_input in(data);
        return std::make_unique<py_filter<bits_and_blooms::filter>>(
            bits_and_blooms::read(in.bytes(), source));
      },
      py::arg("data"), py::arg("source") = "<bytes>",
      "Decodes bits-and-blooms' WriteTo() bytes into a BitsAndBloomsFilter.");
  m.def(
      "write_bits_and_blooms",
      [](const py_filter<bits_and_blooms::filter>& w) {
        read_lock lock(w.gate, gil::held);
        return to_bytes(bits_and_blooms::write(w.filter));
      },
      py::arg("filter"), "The WriteTo() bytes of a BitsAndBloomsFilter (ReadFrom() reads them).");
  m.def(
      "read_bits_and_blooms_json",
      [](py::handle text, const std::string& source) {
        std::string owned;
        if (PyUnicode_Check(text.ptr())) {
          owned = text.cast<std::string>();
        } else {
          owned = std::string(byte_input(text).text());
        }
        return std::make_unique<py_filter<bits_and_blooms::filter>>(
            bits_and_blooms::read_json(owned, source));
      },
      py::arg("text"), py::arg("source") = "<json>",
      "Decodes bits-and-blooms' MarshalJSON() text (str or bytes) into a BitsAndBloomsFilter.");
  m.def(
      "write_bits_and_blooms_json",
      [](const py_filter<bits_and_blooms::filter>& w) {
        read_lock lock(w.gate, gil::held);
        return bits_and_blooms::write_json(w.filter);
      },
      py::arg("filter"), "The MarshalJSON() text of a BitsAndBloomsFilter, as Go writes it.");
  m.def(
      "read_redisbloom_dump",
      [](py::handle data, const std::string& source) {
        const byte_input in(data);
        return std::make_unique<py_filter<redisbloom::chain>>(
            redisbloom::read_dump(in.bytes(), source));
      },
      py::arg("data"), py::arg("source") = "<bytes>",
      "Decodes the DUMP payload of a RedisBloom BF key (redis-py's dump()): a RedisBloomFilter.\n"
      "CorruptFileError naming `source` for a damaged payload, UnsupportedError for another\n"
      "type.");
  m.def(
      "write_redisbloom_dump",
      [](const py_filter<redisbloom::chain>& w) -> py::bytes {
        read_lock lock(w.gate, gil::held);
        return to_bytes(redisbloom::write_dump(w.filter));
      },
      py::arg("filter"),
      "The DUMP payload of a RedisBloomFilter: RESTORE key 0 <bytes> makes the BF key (its bit\n"
      "arrays uncompressed).");
}

}  // namespace bloomkit::python
