#include "errors.hpp"

#include <array>
#include <exception>

namespace py = pybind11;

namespace bloomkit::python {

namespace {

// errc values run from 1 to conflict; index 0 is the base class Error.
constexpr std::size_t class_count = static_cast<std::size_t>(errc::conflict) + 1;
std::array<PyObject*, class_count> classes{};  // owned by the module (which never unloads)

PyObject* class_of(errc code) {
  const auto i = static_cast<std::size_t>(code);
  return i < class_count && classes[i] != nullptr ? classes[i] : classes[0];
}

// Raises the exception of `code` with `message` (not UTF-8-checked: a file name may hold any
// bytes, shown with backslash escapes) and `.code` set.
void set_error(errc code, const std::string& message) {
  py::object text = py::reinterpret_steal<py::object>(PyUnicode_DecodeUTF8(
      message.data(), static_cast<Py_ssize_t>(message.size()), "backslashreplace"));
  if (!text) return;  // the decode's error is set
  py::handle type = class_of(code);
  py::object instance = type(text);
  instance.attr("code") = py::cast(code);
  PyErr_SetObject(type.ptr(), instance.ptr());
}

struct error_class {
  errc code;
  const char* name;
  PyObject* builtin;  // the second base, nullptr for none
  bool redis;         // a subclass of RedisError
  const char* doc;
};

}  // namespace

void set_python_error(const error& e) {
  set_error(e.code(), e.what());
}

void raise_error(errc code, const std::string& message) {
  set_error(code, message);
  throw py::error_already_set();
}

void bind_errors(py::module_& m) {
  py::enum_<errc>(m, "ErrorCode", "The C++ library's bloomkit::errc: what went wrong.")
      .value("invalid_argument", errc::invalid_argument)
      .value("too_large", errc::too_large)
      .value("incompatible", errc::incompatible)
      .value("read_only", errc::read_only)
      .value("io_error", errc::io_error)
      .value("corrupt_file", errc::corrupt_file)
      .value("unsupported", errc::unsupported)
      .value("unreachable", errc::unreachable)
      .value("auth_failed", errc::auth_failed)
      .value("timeout", errc::timeout)
      .value("server_error", errc::server_error)
      .value("wrong_type", errc::wrong_type)
      .value("not_found", errc::not_found)
      .value("already_exists", errc::already_exists)
      .value("conflict", errc::conflict);

  PyObject* base = PyErr_NewExceptionWithDoc(
      "bloomkit.Error",
      "Base of every bloomkit exception. `code` is the C++ bloomkit::errc (bloomkit.ErrorCode) "
      "and str(e) the C++ message, which names the input (file, parameter, filter, server) and "
      "the problem.",
      PyExc_Exception, nullptr);
  if (base == nullptr) throw py::error_already_set();
  classes[0] = base;
  py::handle(base).attr("code") = py::none();
  m.attr("Error") = py::handle(base);

  PyObject* redis_base = PyErr_NewExceptionWithDoc(
      "bloomkit.RedisError", "Base of the errors of a Redis server or connection.", base, nullptr);
  if (redis_base == nullptr) throw py::error_already_set();
  m.attr("RedisError") = py::handle(redis_base);

  const error_class table[] = {
      {errc::invalid_argument, "InvalidArgumentError", PyExc_ValueError, false,
       "A parameter out of range (n, p, m, k, ...)."},
      {errc::too_large, "TooLargeError", PyExc_ValueError, false,
       "A size that cannot be represented or allocated."},
      {errc::incompatible, "IncompatibleError", PyExc_ValueError, false,
       "merge / intersect of filters with different parameters or schemes."},
      {errc::read_only, "ReadOnlyError", PyExc_PermissionError, false,
       "A write to a filter that maps a file read-only (open_mapped)."},
      {errc::io_error, "FileError", PyExc_OSError, false,
       "Opening, reading, writing, syncing, renaming or mapping a file failed."},
      {errc::corrupt_file, "CorruptFileError", PyExc_OSError, false,
       "A file with a bad magic, truncation, a checksum mismatch or inconsistent fields."},
      {errc::unsupported, "UnsupportedError", PyExc_NotImplementedError, false,
       "A valid input of a version, kind or scheme this build does not handle, or an operation "
       "the filter kind does not have (merge of a scalable filter)."},
      {errc::unreachable, "UnreachableError", PyExc_ConnectionError, true,
       "Cannot connect to a server, or the connection was lost and retries ran out."},
      {errc::auth_failed, "AuthError", PyExc_PermissionError, true,
       "AUTH refused, or the server demands one."},
      {errc::timeout, "RedisTimeoutError", PyExc_TimeoutError, true,
       "A command got no reply within the command timeout."},
      {errc::server_error, "ServerError", nullptr, true,
       "The server answered with an error the client cannot handle."},
      {errc::wrong_type, "WrongTypeError", PyExc_TypeError, true,
       "A key holds another type than the filter expects (WRONGTYPE)."},
      {errc::not_found, "NotFoundError", PyExc_LookupError, false,
       "A filter that does not exist (or a shard of it that is gone)."},
      {errc::already_exists, "AlreadyExistsError", PyExc_ValueError, false,
       "A filter that exists already with other parameters."},
      {errc::conflict, "ConflictError", nullptr, true,
       "Other clients kept changing the filter (a rebuild's generation, its meta) under the call "
       "past its retries; retry it later."},
  };
  for (const error_class& c : table) {
    PyObject* first = c.redis ? redis_base : base;
    py::tuple bases = c.builtin != nullptr
                          ? py::make_tuple(py::handle(first), py::handle(c.builtin))
                          : py::make_tuple(py::handle(first));
    const std::string qualified = std::string("bloomkit.") + c.name;
    PyObject* cls = PyErr_NewExceptionWithDoc(qualified.c_str(), c.doc, bases.ptr(), nullptr);
    if (cls == nullptr) throw py::error_already_set();
    classes[static_cast<std::size_t>(c.code)] = cls;
    m.attr(c.name) = py::handle(cls);
  }

  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const bloomkit::error& e) {
      set_error(e.code(), e.what());
    }
  });
}

}  // namespace bloomkit::python
