#include "keys.hpp"

#include <climits>
#include <cstdint>
#include <string_view>

#include <pybind11/pybind11.h>

namespace py = pybind11;

namespace bloomkit::python {

std::array<char, 8> int_key_bytes(PyObject* key) {
  std::uint64_t bits = int_key_value(key);
  std::array<char, 8> bytes{};
  for (char& c : bytes) {
    c = static_cast<char>(bits & 0xff);
    bits >>= 8;
  }
  return bytes;
}

std::uint64_t integer_key(PyObject* key) {
  if (!PyLong_Check(key)) {
    PyErr_Format(PyExc_TypeError,
                 "a filter of integer keys (key_type 'long') takes int keys, not %.200s",
                 Py_TYPE(key)->tp_name);
    throw py::error_already_set();
  }
  return int_key_value(key);
}

std::uint64_t int_key_value(PyObject* key) {
  int overflow = 0;
  const long long value = PyLong_AsLongLongAndOverflow(key, &overflow);
  std::uint64_t bits = 0;
  if (overflow == 0) {
    if (value == -1 && PyErr_Occurred()) throw py::error_already_set();
    bits = static_cast<std::uint64_t>(value);  // two's complement: std::int64_t's bytes
  } else {
    // Past INT64_MAX: the bytes of an std::uint64_t, up to 2**64 - 1.
    const unsigned long long u = overflow > 0 ? PyLong_AsUnsignedLongLong(key) : 0;
    if (overflow < 0 || (u == static_cast<unsigned long long>(-1) && PyErr_Occurred())) {
      PyErr_Clear();
      PyErr_SetString(PyExc_OverflowError,
                      "an int key is hashed as a 64-bit integer: it must be in -2**63 .. 2**64-1");
      throw py::error_already_set();
    }
    bits = u;
  }
  return bits;
}

namespace {

// Whether a buffer's items are floating-point or complex numbers ('d', '<f', 'e', 'Zd', ...).
bool is_floating_format(const char* format) {
  if (format == nullptr) return false;
  std::string_view f(format);
  if (!f.empty() && std::string_view("@=<>!").find(f.front()) != std::string_view::npos) {
    f.remove_prefix(1);
  }
  return (f.size() == 1 && std::string_view("efdg").find(f.front()) != std::string_view::npos) ||
         (f.size() == 2 && f.front() == 'Z');
}

}  // namespace

void refuse_key(PyObject* key) {
  if (PyFloat_Check(key) || PyComplex_Check(key) || PyObject_CheckBuffer(key)) {
    PyErr_Format(PyExc_TypeError,
                 "a key is str, bytes-like or int, not %.200s: a floating-point number is not a "
                 "key (1.5 and 1.5000000001 would be two keys); pass str(x), or int(x) for a "
                 "whole number",
                 Py_TYPE(key)->tp_name);
  } else {
    PyErr_Format(PyExc_TypeError, "a key is str, bytes-like or int, not %.200s",
                 Py_TYPE(key)->tp_name);
  }
  throw py::error_already_set();
}

bool key_buffer(PyObject* key, Py_buffer& buffer) {
  if (PyFloat_Check(key) || PyComplex_Check(key)) refuse_key(key);  // np.float64 is a float
  if (!PyObject_CheckBuffer(key)) return false;
  if (PyObject_GetBuffer(key, &buffer, PyBUF_FORMAT | PyBUF_ND) != 0) throw py::error_already_set();
  if (is_floating_format(buffer.format)) {
    PyBuffer_Release(&buffer);
    refuse_key(key);
  }
  return true;
}

bool simple_key_bytes(PyObject* key, std::string_view& out) {
  if (PyUnicode_Check(key)) {
    Py_ssize_t size = 0;
    const char* data = PyUnicode_AsUTF8AndSize(key, &size);  // cached in the str object
    if (data == nullptr) throw py::error_already_set();      // lone surrogates
    out = std::string_view(data, static_cast<std::size_t>(size));
    return true;
  }
  if (PyBytes_Check(key)) {
    out = std::string_view(PyBytes_AS_STRING(key), static_cast<std::size_t>(PyBytes_GET_SIZE(key)));
    return true;
  }
  return false;
}

key_view::key_view(PyObject* key) {
  if (simple_key_bytes(key, view_)) return;
  if (PyLong_Check(key)) {
    int_bytes_ = int_key_bytes(key);
    view_ = std::string_view(int_bytes_.data(), int_bytes_.size());
    return;
  }
  if (key_buffer(key, buffer_)) {
    holds_buffer_ = true;
    view_ = std::string_view(static_cast<const char*>(buffer_.buf),
                             static_cast<std::size_t>(buffer_.len));
    return;
  }
  refuse_key(key);
}

key_view::~key_view() {
  if (holds_buffer_) PyBuffer_Release(&buffer_);
}

}  // namespace bloomkit::python
