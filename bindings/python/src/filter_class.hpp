#pragma once
// The Python class of one filter type: the surface every kind shares (filter_like, filter.hpp),
// bound once as a template. Each kind's own constructors and extras are added by its binder
// (filters.cpp, compat.cpp) to the class this returns.

#include <Python.h>

#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <span>
#include <sstream>
#include <string>
#include <string_view>
#include <typeinfo>
#include <utility>

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>
#include <pybind11/stl/filesystem.h>

#include "bloomkit/detail/answered_inserts.hpp"
#include "bloomkit/file.hpp"
#include "bloomkit/integer_keys.hpp"
#include "bloomkit/kinds.hpp"
#include "dict_report.hpp"
#include "fast_methods.hpp"
#include "key_batch.hpp"
#include "keys.hpp"
#include "py_filter.hpp"

namespace bloomkit::python {

namespace py = pybind11;

template <class F>
using filter_class = py::class_<py_filter<F>>;

template <class F>
py::dict info_of(const py_filter<F>& w) {
  read_lock lock(w.gate, gil::held);
  const F& f = w.filter;
  dict_report r;
  if (!w.path.empty()) r.add("file", w.path);
  r.add("format_version", file_format_version)
      .add("kind", to_string(kind_traits<F>::kind))
      .add("hash_scheme", to_string(scheme_of(f)));
  if (w.keys == key_type::int64) r.add("key_type", "long");
  report_figures(f, r);
  kind_traits<F>::check_source(f);  // the figures were read from a mapping, if it is one
  return r.dict();
}

// A filter of integer keys (key_type 'long', integer_keys.hpp): its keys are ints and integer
// arrays, hashed by its integer scheme.
template <class F>
bool integer_keyed(const F& f) noexcept {
  return keys_of(f) == key_type::int64;
}

template <class F>
std::size_t add_many(py_filter<F>& w, py::handle keys, py::handle out) {
  if constexpr (takes_integer_keys<F>) {
    if (integer_keyed(w.filter)) {
      if (!out.is_none()) {
        return answered_integer_batch(
            keys, out, [&](std::span<const std::uint64_t> chunk, std::span<bool> answers) {
              write_lock lock(w.gate, gil::released);
              std::size_t fresh = 0;
              for (std::size_t i = 0; i < chunk.size(); ++i) {
                answers[i] = w.filter.insert_integer(chunk[i]);
                fresh += answers[i] ? 1 : 0;
              }
              return fresh;
            });
      }
      key_batch batch(keys, true);
      std::size_t added = 0;
      batch.run_integers([&](std::span<const std::uint64_t> chunk, std::size_t) {
        write_lock lock(w.gate, gil::released);
        added += w.filter.insert_integers(chunk);
      });
      return added;
    }
  }
  if (!out.is_none()) {
    return answered_batch(keys, out,
                          [&](std::span<const std::string_view> chunk, std::span<bool> answers) {
                            write_lock lock(w.gate, gil::released);
                            return detail::insert_many_answering(w.filter, chunk, answers);
                          });
  }
  key_batch batch(keys);
  std::size_t added = 0;
  batch.run([&](std::span<const std::string_view> chunk, std::size_t) {
    write_lock lock(w.gate, gil::released);
    added += w.filter.insert_many(chunk);
  });
  return added;
}

template <class F>
std::size_t contains_many(const py_filter<F>& w, py::handle keys, py::handle out) {
  if constexpr (takes_integer_keys<F>) {
    if (integer_keyed(w.filter)) {
      return answered_integer_batch(
          keys, out, [&](std::span<const std::uint64_t> chunk, std::span<bool> answers) {
            read_lock lock(w.gate, gil::released);
            return w.filter.contains_integers(chunk, answers);
          });
    }
  }
  return answered_batch(keys, out,
                        [&](std::span<const std::string_view> chunk, std::span<bool> answers) {
                          read_lock lock(w.gate, gil::released);
                          return w.filter.contains_many(chunk, answers);
                        });
}

// f.merge(g) / f.intersect(g): g is read while f is written; the gates are taken in address
// order so that two threads combining the same two filters both ways cannot deadlock.
template <class F, class Op>
void combine(py_filter<F>& into, const py_filter<F>& other, Op op) {
  if (&into == &other) {
    write_lock lock(into.gate, gil::held);
    op(into.filter, other.filter);
    return;
  }
  if (static_cast<const void*>(&into) < static_cast<const void*>(&other)) {
    write_lock a(into.gate, gil::held);
    read_lock b(other.gate, gil::held);
    op(into.filter, other.filter);
  } else {
    read_lock b(other.gate, gil::held);
    write_lock a(into.gate, gil::held);
    op(into.filter, other.filter);
  }
}

// `key in w`: an int by the integer scheme of a filter of integer keys, else the key's bytes.
template <class F>
bool contains_key(const py_filter<F>& w, PyObject* key) {
  if constexpr (takes_integer_keys<F>) {
    if (integer_keyed(w.filter)) {
      const std::uint64_t k = integer_key(key);
      read_lock lock(w.gate, gil::held);
      return w.filter.contains_integer(k);
    }
  }
  const key_view k(key);
  read_lock lock(w.gate, gil::held);
  return w.filter.contains(k.view());
}

// The METH_O functions and the sq_contains slot of F's class.
template <class F>
struct single_key {
  static int contains_slot(PyObject* self, PyObject* key) {
    auto* w = cpp_object<py_filter<F>>(self);
    if (w == nullptr) return -1;
    return call_guarded(-1, [&] { return contains_key(*w, key) ? 1 : 0; });
  }
  static PyObject* contains(PyObject* self, PyObject* key) {
    const int present = contains_slot(self, key);
    if (present < 0) return nullptr;
    return PyBool_FromLong(present);
  }
  static PyObject* add(PyObject* self, PyObject* key) {
    auto* w = cpp_object<py_filter<F>>(self);
    if (w == nullptr) return nullptr;
    return call_guarded<PyObject*>(nullptr, [&] {
      if constexpr (takes_integer_keys<F>) {
        if (integer_keyed(w->filter)) {
          const std::uint64_t k = integer_key(key);
          write_lock lock(w->gate, gil::held);
          return PyBool_FromLong(w->filter.insert_integer(k));
        }
      }
      const key_view k(key);
      write_lock lock(w->gate, gil::held);
      return PyBool_FromLong(w->filter.insert(k.view()));
    });
  }
  static PyObject* test_and_add(PyObject* self, PyObject* key) {
    PyObject* added = add(self, key);
    if (added == nullptr) return nullptr;
    const bool was_new = added == Py_True;
    Py_DECREF(added);
    return PyBool_FromLong(!was_new);
  }

  static inline PyMethodDef add_def{
      "add", &add, METH_O,
      "add(self, key: str | bytes | int) -> bool\n\n"
      "Adds a key; returns whether it was new (at least one of its cells was 0). str keys are\n"
      "their UTF-8 bytes, bytes-like keys their bytes, int keys their 8 little-endian bytes\n"
      "(-2**63 .. 2**64-1), as the C++ integral overloads hash them."};
  static inline PyMethodDef contains_def{
      "contains", &contains, METH_O,
      "contains(self, key: str | bytes | int) -> bool\n\n"
      "False: the key was never added. True: it probably was. Same as `key in f`."};
  static inline PyMethodDef test_and_add_def{
      "test_and_add", &test_and_add, METH_O,
      "test_and_add(self, key: str | bytes | int) -> bool\n\n"
      "Adds a key; returns whether it was (probably) present before: not add(key)."};
};

template <class F>
std::string repr_of(const py_filter<F>& w, std::string_view class_name) {
  read_lock lock(w.gate, gil::held);
  const F& f = w.filter;
  std::ostringstream out;
  out << "<bloomkit." << class_name << " " << to_string(kind_traits<F>::kind) << " "
      << to_string(scheme_of(f)) << ": " << f.cells() << " cells, " << kind_traits<F>::hashes(f)
      << " hashes, capacity " << f.capacity() << ", target_fpp " << f.target_fpp() << ", inserted "
      << f.inserted() << (f.read_only() ? ", mapped read-only>" : ">");
  return out.str();
}

template <class F>
filter_class<F> bind_filter_class(py::module_& m, const char* name, const char* doc) {
  using W = py_filter<F>;
  filter_class<F> cls(m, name, doc);
  const std::string class_name = name;

  cls.def(
      "__contains__", [](const W& w, py::handle key) { return contains_key(w, key.ptr()); },
      py::arg("key"), "key in f: False if the key was never added, True if it probably was.");
  set_contains_slot(cls, &single_key<F>::contains_slot);
  add_fast_method(cls, &single_key<F>::add_def);
  add_fast_method(cls, &single_key<F>::contains_def);
  add_fast_method(cls, &single_key<F>::test_and_add_def);

  cls.def("add_many", &add_many<F>, py::arg("keys"), py::arg("out") = py::none(),
          "Adds a batch of keys (a list or iterable of str / bytes / int, a NumPy integer array,\n"
          "or bytes of newline-separated keys) with the C++ batched path, the GIL released;\n"
          "returns how many were new. out, a writable buffer of 1-byte items with one item per\n"
          "key, receives whether each key was new, as add(key) in order would answer (a key\n"
          "repeated within the batch is new once).")
      .def("contains_many", &contains_many<F>, py::arg("keys"), py::arg("out") = py::none(),
           "Looks up a batch of keys (as add_many takes them) with the C++ batched path, the GIL\n"
           "released; returns how many are (probably) present. out, a writable buffer of 1-byte\n"
           "items with one item per key (a NumPy bool array, a bytearray), receives each answer.")
      .def(
          "merge",
          [](W& w, const W& other) { combine(w, other, [](F& a, const F& b) { a.merge(b); }); },
          py::arg("other"),
          "Union with another filter of the same parameters (set filters: bitwise or; counting:\n"
          "saturating addition). IncompatibleError unless both have the same cells and hashes.")
      .def(
          "intersect",
          [](W& w, const W& other) { combine(w, other, [](F& a, const F& b) { a.intersect(b); }); },
          py::arg("other"),
          "Intersection with another filter of the same parameters (bitwise and; counting: the\n"
          "smaller counter).")
      .def(
          "clear",
          [](W& w) {
            write_lock lock(w.gate, gil::held);
            w.filter.clear();
          },
          "Removes every key.")
      .def(
          "estimated_count",
          [](const W& w) {
            read_lock lock(w.gate, gil::held);
            const double v = w.filter.estimated_count();
            kind_traits<F>::check_source(w.filter);
            return v;
          },
          "Distinct keys estimated from the fraction of non-zero cells: -m/k ln(1 - X/m).")
      .def(
          "estimated_fpp",
          [](const W& w) {
            read_lock lock(w.gate, gil::held);
            const double v = w.filter.estimated_fpp();
            kind_traits<F>::check_source(w.filter);
            return v;
          },
          "The false-positive probability the cells give now (follows the cells, not inserted).")
      .def(
          "fill_ratio",
          [](const W& w) {
            read_lock lock(w.gate, gil::held);
            const double v = w.filter.fill_ratio();
            kind_traits<F>::check_source(w.filter);
            return v;
          },
          "Fraction of non-zero cells.")
      .def_property_readonly(
          "cells", [](const W& w) { return w.filter.cells(); },
          "m: the cells (bits, or counters of a counting filter).")
      .def_property_readonly(
          "bits", [](const W& w) { return w.filter.cells(); },
          "The `bits` field of info(): the cells (counters of a counting filter).")
      .def_property_readonly(
          "hashes", [](const W& w) { return kind_traits<F>::hashes(w.filter); },
          "k: cells per key (a scalable filter: of its first sub-filter).")
      .def_property_readonly(
          "capacity", [](const W& w) { return w.filter.capacity(); }, "n the filter was sized for.")
      .def_property_readonly(
          "target_fpp", [](const W& w) { return w.filter.target_fpp(); },
          "p the filter was sized for.")
      .def_property_readonly(
          "inserted",
          [](const W& w) {
            read_lock lock(w.gate, gil::held);
            return w.filter.inserted();
          },
          "Inserts that changed the filter (see the C++ inserted()).")
      .def_property_readonly(
          "byte_size", [](const W& w) { return static_cast<std::uint64_t>(w.filter.byte_size()); },
          "Bytes of the cells.")
      .def_property_readonly(
          "read_only", [](const W& w) { return w.filter.read_only(); },
          "True for a filter that maps a file (open_mapped): every write raises ReadOnlyError.")
      .def_property_readonly(
          "kind", [](const W&) { return std::string(to_string(kind_traits<F>::kind)); },
          "The kind in files: classic, blocked, counting, scalable, window or static.")
      .def_property_readonly(
          "hash_scheme", [](const W& w) { return std::string(to_string(scheme_of(w.filter))); },
          "The hash scheme in files (xxh3-128, guava-murmur128-mitz-64, ...).")
      .def_property_readonly(
          "key_type", [](const W& w) { return std::string(key_type_name(w.keys)); },
          "The key type save() records: 'string', or 'long' for 64-bit integer keys (peers).")
      .def("info", &info_of<F>,
           "A dict with the fields of `bloomkit info --json` (docs/CLI.md), under its names.")
      .def(
          "save",
          [](const W& w, const std::filesystem::path& path, std::optional<std::string> keys) {
            const key_type k = keys ? parse_key_type(*keys) : w.keys;
            py::gil_scoped_release unlocked;
            read_lock lock(w.gate, gil::released);
            bloomkit::save(w.filter, path, k);
          },
          py::arg("path"), py::arg("key_type") = py::none(),
          "Writes the filter file (docs/FORMAT.md) atomically: a temp file renamed over `path`\n"
          "after fsync, under the target's lock. key_type 'long' records 64-bit integer keys\n"
          "(peers' filters only); default: the filter's own key_type.")
      .def_static(
          "load",
          [](const std::filesystem::path& path) {
            py::gil_scoped_release unlocked;
            auto [filter, header] = open_filter<F>(path, open_mode::load);
            return std::make_unique<W>(std::move(filter), header.keys(), path.string());
          },
          py::arg("path"),
          "Reads a filter file of this class's kind and scheme into memory (UnsupportedError\n"
          "naming what the file holds otherwise; bloomkit.load takes any).")
      .def_static(
          "open_mapped",
          [](const std::filesystem::path& path, bool verify_payload) {
            py::gil_scoped_release unlocked;
            auto [filter, header] = open_filter<F>(path, open_mode::map,
                                                   verify_payload ? verify::full : verify::header);
            return std::make_unique<W>(std::move(filter), header.keys(), path.string());
          },
          py::arg("path"), py::arg("verify") = true,
          "A read-only filter over the mapped file (zero-copy, shared through the page cache by\n"
          "every process that maps it). verify=False checks the header only (constant time).")
      .def(
          "copy",
          [](const W& w) {
            read_lock lock(w.gate, gil::held);
            return std::make_unique<W>(w.filter, w.keys, w.path);
          },
          "An independent copy (a mapped filter's copy reads the same mapping).")
      .def("__copy__",
           [](const W& w) {
             read_lock lock(w.gate, gil::held);
             return std::make_unique<W>(w.filter, w.keys, w.path);
           })
      .def(
          "__eq__",
          [](const W& a, const W& b) {
            read_lock la(a.gate, gil::held);
            if (&a == &b) return true;
            read_lock lb(b.gate, gil::held);
            return a.filter == b.filter;
          },
          py::is_operator())
      .def("__repr__", [class_name](const W& w) { return repr_of(w, class_name); });
  cls.attr("__hash__") = py::none();  // mutable: not hashable
  return cls;
}

}  // namespace bloomkit::python
