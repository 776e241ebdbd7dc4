#pragma once
// bloomkit.Error and its subclasses: one Python exception class per bloomkit::errc, each also
// deriving from the built-in a Python caller would catch for that problem (ValueError for bad
// parameters, OSError for files, ConnectionError for an unreachable Redis, ...). Every
// bloomkit::error thrown by the library reaches Python as the class of its code, with its message
// and its code in `.code`.

#include <string>

#include <pybind11/pybind11.h>

#include "bloomkit/error.hpp"

namespace bloomkit::python {

// Adds ErrorCode, Error and the subclasses to the module and registers the translator.
void bind_errors(pybind11::module_& m);

// Throws the Python exception of `code` (as the library would have thrown bloomkit::error): for
// the binding's own checks, so they raise what the library's would.
[[noreturn]] void raise_error(errc code, const std::string& message);

// Sets the Python error of `e` (for C functions called by Python directly, outside pybind11's
// translation).
void set_python_error(const error& e);

}  // namespace bloomkit::python
