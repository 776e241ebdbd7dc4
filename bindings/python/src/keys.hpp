#pragma once
// What a Python key means to a filter: the bytes the C++ library hashes.
//   str                      its UTF-8 bytes (as the CLI reads a text line)
//   bytes, bytearray, any    its bytes
//   C-contiguous buffer
//   int                      its 8 little-endian bytes, as the C++ integral overloads hash an
//                            std::int64_t or std::uint64_t (detail/key_bytes.hpp) and Guava's
//                            longFunnel does: -2**63 .. 2**64 - 1 (OverflowError outside)
// Anything else is a TypeError, floating-point numbers included: a float, a NumPy floating
// scalar (np.float64 is a float; np.float32 and others export a buffer of format 'f', ...), a
// complex, or any buffer of floating-point items. A float key is a footgun (1.5 and 1.5000000001
// are two keys, and float(x) of one value may differ between producers); the message says to
// pass str(x) or int(x).

#include <Python.h>

#include <array>
#include <cstdint>
#include <string_view>

namespace bloomkit::python {

// The 8 little-endian bytes of an int key; throws py::error_already_set (OverflowError) out of
// range. `key` must be an int.
std::array<char, 8> int_key_bytes(PyObject* key);
// The 64-bit value of an int key (-2**63 .. 2**64 - 1 taken modulo 2**64, as widen_key takes
// C++ integers); the same errors.
std::uint64_t int_key_value(PyObject* key);
// The key of a filter of integer keys (key_type 'long'): an int's value (int_key_value); any
// other key is a TypeError.
std::uint64_t integer_key(PyObject* key);

// Raises the TypeError of a key of an unsupported type (naming it; for a floating-point number,
// saying why it is refused).
[[noreturn]] void refuse_key(PyObject* key);

// The buffer of a bytes-like key (PyBUF_FORMAT | PyBUF_ND: C-contiguous), which the caller
// releases; false when `key` has no buffer. A float or complex, or a buffer of floating-point
// items, is refused (refuse_key).
bool key_buffer(PyObject* key, Py_buffer& buffer);

// The bytes of one key, valid while `key` lives and this object does (it holds a buffer export
// for buffer keys).
class key_view {
 public:
  explicit key_view(PyObject* key);
  ~key_view();
  key_view(const key_view&) = delete;
  key_view& operator=(const key_view&) = delete;

  std::string_view view() const noexcept { return view_; }

 private:
  std::string_view view_;
  std::array<char, 8> int_bytes_{};
  Py_buffer buffer_{};
  bool holds_buffer_ = false;
};

// The bytes of a str or bytes key without the buffer protocol, or nullopt-like false for other
// types: the fast path of batches, which hold their keys alive themselves.
bool simple_key_bytes(PyObject* key, std::string_view& out);

}  // namespace bloomkit::python
