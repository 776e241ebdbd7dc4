# Finds what the Python module needs (included by the top-level CMakeLists.txt before its
# BLOOMKIT_BUILD_PYTHON option): the interpreter that will import the module and pybind11.
# Sets BLOOMKIT_PYTHON_FOUND, the option's default.
set(BLOOMKIT_PYTHON_FOUND OFF)
if(NOT BLOOMKIT_SANITIZE STREQUAL "")
  return()  # a sanitized module cannot be imported by a plain python
endif()

# `python3` on PATH may be a pyenv shim: build for the interpreter it runs (sys.executable), so
# the module matches whatever `python3 -c 'import bloomkit'` starts. -DPython_EXECUTABLE=...
# chooses another.
if(NOT DEFINED Python_EXECUTABLE)
  find_program(BLOOMKIT_PYTHON3_ON_PATH python3)
  if(BLOOMKIT_PYTHON3_ON_PATH)
    execute_process(COMMAND ${BLOOMKIT_PYTHON3_ON_PATH} -c "import sys; print(sys.executable)"
      OUTPUT_VARIABLE _bloomkit_python OUTPUT_STRIP_TRAILING_WHITESPACE
      RESULT_VARIABLE _bloomkit_python_rc ERROR_QUIET)
    if(_bloomkit_python_rc EQUAL 0 AND EXISTS "${_bloomkit_python}")
      set(Python_EXECUTABLE "${_bloomkit_python}" CACHE FILEPATH
        "The Python interpreter the bloomkit module is built for")
    endif()
  endif()
endif()

find_package(Python 3.8 COMPONENTS Interpreter Development.Module QUIET)
if(Python_FOUND)
  find_package(pybind11 2.6 CONFIG QUIET)
  if(pybind11_FOUND)
    set(BLOOMKIT_PYTHON_FOUND ON)
  endif()
endif()
