#pragma once
// Single-key calls from Python straight into C++: `key in f` through the type's sq_contains slot
// and add / contains / test_and_add as METH_O methods, skipping pybind11's generic dispatch
// (argument vectors, overload resolution), which costs more than the lookup itself.

#include <Python.h>

#include <exception>
#include <new>
#include <typeinfo>

#include <pybind11/pybind11.h>

#include "bloomkit/error.hpp"
#include "errors.hpp"

namespace bloomkit::python {

// The C++ object of a pybind11 instance of T (or of a Python subclass of it); nullptr with
// TypeError set when its __init__ never ran.
template <class T>
T* cpp_object(PyObject* self) {
  auto* inst = reinterpret_cast<pybind11::detail::instance*>(self);
  auto vh = inst->get_value_and_holder();
  T* p = vh.value_ptr<T>();
  if (p == nullptr || !vh.holder_constructed()) {
    PyErr_SetString(PyExc_TypeError, "the filter was not initialized (__init__ did not run)");
    return nullptr;
  }
  return p;
}

// Runs fn, turning C++ exceptions into the Python error; returns fn's result or `failed`.
template <class R, class Fn>
R call_guarded(R failed, Fn fn) noexcept {
  try {
    return fn();
  } catch (pybind11::error_already_set& e) {
    e.restore();
  } catch (const error& e) {
    set_python_error(e);
  } catch (const std::bad_alloc&) {
    PyErr_NoMemory();
  } catch (const std::exception& e) {
    PyErr_SetString(PyExc_RuntimeError, e.what());
  }
  return failed;
}

// Adds the METH_O method `def` (of static storage) to the class.
inline void add_fast_method(pybind11::handle cls, PyMethodDef* def) {
  PyObject* descr = PyDescr_NewMethod(reinterpret_cast<PyTypeObject*>(cls.ptr()), def);
  if (descr == nullptr) throw pybind11::error_already_set();
  pybind11::setattr(cls, def->ml_name, pybind11::reinterpret_steal<pybind11::object>(descr));
}

// Points the class's `in` at `slot` (after __contains__ was defined, which set the generic one).
inline void set_contains_slot(pybind11::handle cls, int (*slot)(PyObject*, PyObject*)) {
  auto* type = reinterpret_cast<PyTypeObject*>(cls.ptr());
  type->tp_as_sequence->sq_contains = slot;
  PyType_Modified(type);
}

}  // namespace bloomkit::python
