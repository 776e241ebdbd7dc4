#pragma once
// The bytes of a bytes-like argument (held for the call), and bytes back to Python: what the
// readers and writers of the peers' formats take and give (compat.cpp, spark.cpp).

#include <Python.h>

#include <span>
#include <string_view>
#include <vector>

#include <pybind11/pybind11.h>

namespace bloomkit::python {

class byte_input {
 public:
  explicit byte_input(pybind11::handle data) {
    if (PyObject_GetBuffer(data.ptr(), &buffer_, PyBUF_SIMPLE) != 0) {
      throw pybind11::error_already_set();
    }
  }
  ~byte_input() { PyBuffer_Release(&buffer_); }
  byte_input(const byte_input&) = delete;
  byte_input& operator=(const byte_input&) = delete;
  std::span<const unsigned char> bytes() const {
    return {static_cast<const unsigned char*>(buffer_.buf), static_cast<std::size_t>(buffer_.len)};
  }
  std::string_view text() const {
    return {static_cast<const char*>(buffer_.buf), static_cast<std::size_t>(buffer_.len)};
  }

 private:
  Py_buffer buffer_{};
};

inline pybind11::bytes to_bytes(const std::vector<unsigned char>& v) {
  return pybind11::bytes(reinterpret_cast<const char*>(v.data()), v.size());
}

}  // namespace bloomkit::python
