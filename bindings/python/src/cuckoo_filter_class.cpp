// bloomkit.CuckooFilter: the cuckoo kind (C++ bloomkit::cuckoo_filter), a filter that removes
// keys at about a third of the counting filter's memory. The shared surface (filter_class.hpp)
// gives it lookups, files and info; here its constructor, remove / count and their batches, and
// the writes whose answers differ from a Bloom filter's: add stores one more copy of a key's
// fingerprint (never "was it new"), and a full filter raises TooLargeError naming it.

#include <cstdint>
#include <memory>
#include <string>

#include "bloomkit/cuckoo_filter.hpp"
#include "errors.hpp"
#include "filter_class.hpp"
#include "key_batch.hpp"

namespace bloomkit::python {

namespace {

using cuckoo_w = py_filter<cuckoo_filter>;

constexpr const char* cuckoo_class_doc =
    R"(The cuckoo filter (Fan et al. 2014): one f-bit fingerprint per key in one of its two
candidate buckets of b slots, so keys can be removed at about a third of the counting filter's
memory (C++ bloomkit::cuckoo_filter). At p = 0.01: b = 4, f = 10, about 10.6 bits per key.

    f = bloomkit.CuckooFilter(1_000_000, 0.01)
    f.add("session-42")         # True: stored (TooLargeError when the filter is full)
    "session-42" in f           # True
    f.remove("session-42")      # True: one copy of its fingerprint removed
    f.remove("never-added")     # False (almost always): its fingerprint is absent, no change

Every add stores one more copy (a key added twice is present until removed twice; count(key)
says how many copies its buckets hold). Only remove keys you added: removing a key that was
never added but whose fingerprint is present (a false positive) removes another key's
fingerprint, a false negative for that key (docs/VARIANTS.md, "Only delete what you added").

A full filter (both buckets full and max_kicks moves failed) raises TooLargeError naming it and
keeps every key stored before; with expansion E > 0 it grows instead by a table of E times the
keys (the FPP bound kept as the scalable filter keeps it). merge / intersect are not defined
(InvalidArgumentError). Thread safety as the other classes: lookups share, writes run alone.)";

// Whether the filter is full, told as the error a full insert raises.
[[noreturn]] void raise_cuckoo_full(const cuckoo_w& w, std::size_t stored_of_batch, bool batch) {
  const cuckoo_filter& f = w.filter;
  std::string what = "cuckoo filter";
  if (!w.path.empty()) what += " '" + w.path + "'";
  std::string msg = what + " is full: " + std::to_string(f.items()) + " fingerprints in " +
                    std::to_string(f.slot_count()) + " slots (capacity " +
                    std::to_string(f.capacity()) + ", expansion " + std::to_string(f.expansion()) +
                    ")";
  msg += batch ? "; add_many stored the first " + std::to_string(stored_of_batch) +
                     " keys of the batch, the rest are not in the filter"
               : "; the key was not stored";
  msg += ". Create it with a larger capacity or an expansion (nothing stored was lost)";
  raise_error(errc::too_large, msg);
}

std::unique_ptr<cuckoo_w> make_cuckoo(std::uint64_t capacity, double fpp, std::uint32_t bucket_size,
                                      std::uint32_t expansion, std::uint32_t max_kicks) {
  cuckoo_options o;
  o.capacity = capacity;
  o.target_fpp = fpp;
  o.bucket_size = bucket_size;
  o.expansion = expansion;
  o.max_kicks = max_kicks;
  return std::make_unique<cuckoo_w>(cuckoo_filter(o));
}

// add as a METH_O method (fast_methods.hpp): True, or TooLargeError when it does not fit.
PyObject* cuckoo_add(PyObject* self, PyObject* key) {
  auto* w = cpp_object<cuckoo_w>(self);
  if (w == nullptr) return nullptr;
  return call_guarded<PyObject*>(nullptr, [&] {
    const key_view k(key);
    write_lock lock(w->gate, gil::held);
    if (!w->filter.insert(k.view())) raise_cuckoo_full(*w, 0, false);
    return PyBool_FromLong(1);
  });
}

// Whether the key was (probably) present before, then add.
PyObject* cuckoo_test_and_add(PyObject* self, PyObject* key) {
  auto* w = cpp_object<cuckoo_w>(self);
  if (w == nullptr) return nullptr;
  return call_guarded<PyObject*>(nullptr, [&] {
    const key_view k(key);
    write_lock lock(w->gate, gil::held);
    const bool present = w->filter.contains(k.view());
    if (!w->filter.insert(k.view())) raise_cuckoo_full(*w, 0, false);
    return PyBool_FromLong(present);
  });
}

PyMethodDef cuckoo_add_def{
    "add", &cuckoo_add, METH_O,
    "add(self, key: str | bytes | int) -> bool\n\n"
    "Stores one more copy of the key's fingerprint and returns True; raises\n"
    "TooLargeError (nothing changed) when the filter is full. Keys as the other\n"
    "classes take them (str as UTF-8, bytes-like, int as 8 little-endian bytes)."};
PyMethodDef cuckoo_test_and_add_def{
    "test_and_add", &cuckoo_test_and_add, METH_O,
    "test_and_add(self, key: str | bytes | int) -> bool\n\n"
    "Whether the key was (probably) present before; then adds it (one "
    "more copy)."};

std::size_t cuckoo_add_many(cuckoo_w& w, py::handle keys) {
  key_batch batch(keys);
  std::size_t stored = 0;
  bool full = false;
  batch.run([&](std::span<const std::string_view> chunk, std::size_t) {
    if (full) return;
    write_lock lock(w.gate, gil::released);
    const std::size_t n = w.filter.insert_many(chunk);
    stored += n;
    full = n < chunk.size();
  });
  if (full) raise_cuckoo_full(w, stored, true);
  return stored;
}

std::size_t cuckoo_remove_many(cuckoo_w& w, py::handle keys, py::handle out) {
  return answered_batch(keys, out,
                        [&](std::span<const std::string_view> chunk, std::span<bool> answers) {
                          write_lock lock(w.gate, gil::released);
                          return w.filter.remove_many(chunk, answers);
                        });
}

// A figure read under the gate, checked against a changed mapping.
template <class Fn>
auto cuckoo_figure(const cuckoo_w& w, Fn fn) {
  read_lock lock(w.gate, gil::held);
  const auto v = fn(w.filter);
  w.filter.check_source();
  return v;
}

}  // namespace

void bind_cuckoo(py::module_& m) {
  auto cls = bind_filter_class<cuckoo_filter>(m, "CuckooFilter", cuckoo_class_doc);
  add_fast_method(cls, &cuckoo_add_def);
  add_fast_method(cls, &cuckoo_test_and_add_def);
  py::delattr(cls, "add_many");  // the shared one answers "was it new" (filter_class.hpp)
  cls.def(py::init(&make_cuckoo), py::arg("capacity"), py::arg("fpp") = 0.01, py::kw_only(),
          py::arg("bucket_size") = 0, py::arg("expansion") = 0, py::arg("max_kicks") = 500,
          "A filter for `capacity` keys at false-positive probability fpp. bucket_size b in 1..8\n"
          "(0: the b of least memory for fpp); expansion E (0: a full filter refuses keys; else\n"
          "it grows by a table of E times the last one's keys, RedisBloom's EXPANSION);\n"
          "max_kicks: moves an add tries before the filter counts as full (1..65536).")
      .def_static(
          "for_capacity",
          [](std::uint64_t n, double p) {
            return std::make_unique<cuckoo_w>(cuckoo_filter::for_capacity(n, p));
          },
          py::arg("n"), py::arg("p"), "A filter of one table for n keys at FPP p, never growing.")
      .def("add_many", &cuckoo_add_many, py::arg("keys"),
           "Adds a batch of keys (a list or iterable of str / bytes / int, a NumPy integer array,\n"
           "or bytes of newline-separated keys) in order with the C++ batched path, the GIL\n"
           "released; returns how many were stored (all of them). A full filter raises\n"
           "TooLargeError saying how many of the batch were stored (those stay in it).")
      .def(
          "remove",
          [](cuckoo_w& w, py::handle key) {
            const key_view k(key.ptr());
            write_lock lock(w.gate, gil::held);
            return w.filter.remove(k.view());
          },
          py::arg("key"),
          "Removes one copy of an added key's fingerprint: True; False (nothing changed) when its\n"
          "fingerprint is absent. Only remove keys you added (see the class doc).")
      .def("remove_many", &cuckoo_remove_many, py::arg("keys"), py::arg("out") = py::none(),
           "Removes a batch of keys (as add_many takes them), each as remove() does; returns how\n"
           "many were removed. out, a writable buffer of 1-byte items with one item per key,\n"
           "receives whether each was.")
      .def(
          "count",
          [](const cuckoo_w& w, py::handle key) {
            const key_view k(key.ptr());
            return cuckoo_figure(w, [&](const cuckoo_filter& f) { return f.count(k.view()); });
          },
          py::arg("key"),
          "Copies of the key's fingerprint in its buckets: the times it was added (less removes),\n"
          "plus any other key's equal fingerprint there (so at least the true count).")
      .def("__len__",
           [](const cuckoo_w& w) {
             return cuckoo_figure(w, [](const cuckoo_filter& f) { return f.items(); });
           })
      .def_property_readonly(
          "items",
          [](const cuckoo_w& w) {
            return cuckoo_figure(w, [](const cuckoo_filter& f) { return f.items(); });
          },
          "Fingerprints stored over all tables (adds less removes); len(f).")
      .def_property_readonly(
          "slots",
          [](const cuckoo_w& w) {
            return cuckoo_figure(w, [](const cuckoo_filter& f) { return f.slot_count(); });
          },
          "Slots over all tables.")
      .def_property_readonly(
          "load_factor",
          [](const cuckoo_w& w) {
            return cuckoo_figure(w, [](const cuckoo_filter& f) { return f.load_factor(); });
          },
          "items / slots.")
      .def_property_readonly(
          "bucket_size", [](const cuckoo_w& w) { return w.filter.bucket_size(); },
          "b: slots per bucket.")
      .def_property_readonly(
          "fingerprint_bits", [](const cuckoo_w& w) { return w.filter.fingerprint_bits(); },
          "f of the first table (each further table has one bit more).")
      .def_property_readonly(
          "expansion", [](const cuckoo_w& w) { return w.filter.expansion(); },
          "E: 0 (never grows) or the capacity factor of each new table.")
      .def_property_readonly(
          "max_kicks", [](const cuckoo_w& w) { return w.filter.max_kicks(); },
          "Moves an add tries before the filter counts as full.")
      .def_property_readonly(
          "tables",
          [](const cuckoo_w& w) {
            return cuckoo_figure(w, [](const cuckoo_filter& f) { return f.tables().size(); });
          },
          "Tables in the chain (1 unless it grew).")
      .def_property_readonly(
          "size_in_bytes",
          [](const cuckoo_w& w) {
            return cuckoo_figure(w, [](const cuckoo_filter& f) {
              return static_cast<std::uint64_t>(f.byte_size());
            });
          },
          "Bytes of the tables (byte_size).");
}

}  // namespace bloomkit::python
