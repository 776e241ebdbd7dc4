# bloomkit_warnings: the warning flags of bloomkit's own code, as an INTERFACE target that every
# target of the project links privately (target_link_libraries(t PRIVATE bloomkit_warnings)).
# Nothing outside the build sees it: the installed targets carry no warning flags.
#
# BLOOMKIT_WERROR (ON in the presets, so in the test command) makes every warning an error.
add_library(bloomkit_warnings INTERFACE)
target_compile_options(bloomkit_warnings INTERFACE -Wall -Wextra -Wpedantic)
if(BLOOMKIT_WERROR)
  target_compile_options(bloomkit_warnings INTERFACE -Werror)
  # GCC 12's -Wmaybe-uninitialized gives false positives inside libstdc++ (std::regex,
  # std::function) under sanitizer instrumentation at -O1; the release build keeps it.
  if(BLOOMKIT_SANITIZE AND CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
    target_compile_options(bloomkit_warnings INTERFACE -Wno-maybe-uninitialized)
  endif()
endif()
