// The extension module bloomkit._bloomkit, re-exported by the package bloomkit (__init__.py).
// One binder per concern: errors, filter classes, files, the peers' formats, Redis (native,
// window and peer filters).

#include <pybind11/pybind11.h>

#include "bloomkit/version.hpp"
#include "errors.hpp"

namespace py = pybind11;

namespace bloomkit::python {
void bind_filters(py::module_& m);
void bind_static(py::module_& m);
void bind_cuckoo(py::module_& m);
void bind_files(py::module_& m);
void bind_compat(py::module_& m);
void bind_spark(py::module_& m);
#ifdef BLOOMKIT_PYTHON_REDIS
void bind_redis(py::module_& m);
void bind_redis_window(py::module_& m);
void bind_redis_peers(py::module_& m);
void bind_redis_module_keys(py::module_& m);
#endif
}  // namespace bloomkit::python

PYBIND11_MODULE(_bloomkit, m) {
  m.doc() = "bloomkit's C++ filters, files, peer formats and Redis filter (see package bloomkit)";
  m.attr("__version__") = bloomkit::version_string;
  bloomkit::python::bind_errors(m);
  bloomkit::python::bind_filters(m);
  bloomkit::python::bind_static(m);
  bloomkit::python::bind_cuckoo(m);
  bloomkit::python::bind_files(m);
  bloomkit::python::bind_compat(m);
  bloomkit::python::bind_spark(m);
#ifdef BLOOMKIT_PYTHON_REDIS
  bloomkit::python::bind_redis(m);
  bloomkit::python::bind_redis_window(m);
  bloomkit::python::bind_redis_peers(m);
  bloomkit::python::bind_redis_module_keys(m);
  m.attr("has_redis") = true;
#else
  m.attr("has_redis") = false;
#endif
}
