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

# Sets `out` to every target defined in `directory` and the directories below it.
function(bloomkit_targets_below directory out)
  get_property(targets DIRECTORY ${directory} PROPERTY BUILDSYSTEM_TARGETS)
  get_property(subdirectories DIRECTORY ${directory} PROPERTY SUBDIRECTORIES)
  foreach(subdirectory IN LISTS subdirectories)
    bloomkit_targets_below(${subdirectory} below)
    list(APPEND targets ${below})
  endforeach()
  set(${out} ${targets} PARENT_SCOPE)
endfunction()

# Fails the configure when a target of ours (a library or executable under `directory`) does not
# link bloomkit_warnings: a new target must not build without the project's warnings.
function(bloomkit_check_warnings directory)
  bloomkit_targets_below(${directory} targets)
  foreach(target IN LISTS targets)
    get_target_property(type ${target} TYPE)
    if(type MATCHES "^(EXECUTABLE|STATIC_LIBRARY|SHARED_LIBRARY|MODULE_LIBRARY|OBJECT_LIBRARY)$")
      get_target_property(libraries ${target} LINK_LIBRARIES)
      if(NOT libraries MATCHES "bloomkit_warnings|bloomkit_bench_support")
        message(FATAL_ERROR "${target} does not link bloomkit_warnings: add "
          "target_link_libraries(${target} PRIVATE bloomkit_warnings)")
      endif()
    endif()
  endforeach()
endfunction()
