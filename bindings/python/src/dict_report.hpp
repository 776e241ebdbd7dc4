#pragma once
// info() as a dict: the same fields, in the same order and under the same names as the CLI's
// `bloomkit info --json` (tools/bloomkit/info.cpp). It is the Report that the kinds' describe()
// (kinds.hpp) fill, so every kind's own fields come from the one place the CLI takes them from.

#include <cmath>
#include <cstdint>
#include <string>
#include <string_view>

#include <pybind11/pybind11.h>

namespace bloomkit::python {

class dict_report {
 public:
  dict_report& add(std::string_view name, std::string_view text) {
    return set(name, pybind11::str(text.data(), text.size()));
  }
  dict_report& add(std::string_view name, const char* text) {
    return add(name, std::string_view(text));
  }
  dict_report& add(std::string_view name, const std::string& text) {
    return add(name, std::string_view(text));
  }
  dict_report& add(std::string_view name, std::uint64_t value) {
    return set(name, pybind11::int_(value));
  }
  dict_report& add(std::string_view name, std::uint32_t value) {
    return add(name, static_cast<std::uint64_t>(value));
  }
  dict_report& add(std::string_view name, std::int64_t value) {
    return set(name, pybind11::int_(value));
  }
  // As the CLI's JSON: null (None) for a value that is not finite.
  dict_report& add(std::string_view name, double value) {
    if (!std::isfinite(value)) return set(name, pybind11::none());
    return set(name, pybind11::float_(value));
  }

  pybind11::dict dict() const { return fields_; }

 private:
  dict_report& set(std::string_view name, pybind11::object value) {
    fields_[pybind11::str(name.data(), name.size())] = std::move(value);
    return *this;
  }
  pybind11::dict fields_;
};

}  // namespace bloomkit::python
