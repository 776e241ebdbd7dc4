#pragma once
// The object behind every Python filter class: a C++ filter of the registry (kinds.hpp; the
// peers' filters of bloomkit::compat too), the key type its file records, the file it came from
// (info()'s "file") and the gate that keeps its threads apart (access_gate.hpp).

#include <filesystem>
#include <string>
#include <utility>

#include <pybind11/pybind11.h>

#include "access_gate.hpp"
#include "bloomkit/compat/any_filter.hpp"
#include "bloomkit/file_header.hpp"

namespace bloomkit::python {

template <class F>
struct py_filter {
  explicit py_filter(F f, key_type k = key_type::string, std::string from = {})
      : filter(std::move(f)), keys(k), path(std::move(from)) {}

  F filter;
  key_type keys;
  std::string path;
  mutable access_gate gate;
};

// The Python object of whichever filter `filter` holds (files.cpp).
pybind11::object to_python(compat::any_filter&& filter, key_type keys, std::string path);

// "string" / "long" (the CLI's --key-type names) and back; other names raise
// InvalidArgumentError.
key_type parse_key_type(const std::string& name);
const char* key_type_name(key_type keys) noexcept;

}  // namespace bloomkit::python
