# Writes OUTPUT: one CTest test per GoogleTest suite of EXECUTABLE (its --gtest_list_tests), run
# as `EXECUTABLE --gtest_filter=<suite>.*` in WORKING_DIRECTORY with TIMEOUT seconds. Run after
# each build of the executable (bloomkit_discover_suites in tests/CMakeLists.txt), whose build
# fails when listing does. A suite whose tests all skip passes (its output says which skipped):
# no output pattern tells that from one whose tests all fail.
#   cmake -DEXECUTABLE=... -DOUTPUT=... -DWORKING_DIRECTORY=... -DTIMEOUT=... -P gtest_suites.cmake
foreach(variable EXECUTABLE OUTPUT WORKING_DIRECTORY TIMEOUT)
  if(NOT DEFINED ${variable})
    message(FATAL_ERROR "gtest_suites.cmake: ${variable} is not set")
  endif()
endforeach()

execute_process(COMMAND ${EXECUTABLE} --gtest_list_tests
  WORKING_DIRECTORY ${WORKING_DIRECTORY} RESULT_VARIABLE result OUTPUT_VARIABLE listing
  ERROR_VARIABLE errors TIMEOUT 60)
if(NOT result EQUAL 0)
  message(FATAL_ERROR "${EXECUTABLE} --gtest_list_tests failed (${result}): ${errors}")
endif()

# Suite lines start in the first column and end with a dot, before any "# TypeParam = ..."
# comment; test lines are indented.
set(tests "")
string(REPLACE "\n" ";" lines "${listing}")
foreach(line IN LISTS lines)
  if(line MATCHES "^([^ #][^ ]*)\\.( |$)")
    set(suite "${CMAKE_MATCH_1}")
    string(APPEND tests
      "add_test([=[${suite}]=] [=[${EXECUTABLE}]=] [=[--gtest_filter=${suite}.*]=])\n"
      "set_tests_properties([=[${suite}]=] PROPERTIES WORKING_DIRECTORY [=[${WORKING_DIRECTORY}]=]"
      " TIMEOUT ${TIMEOUT})\n")
  endif()
endforeach()
file(WRITE ${OUTPUT} "${tests}")
