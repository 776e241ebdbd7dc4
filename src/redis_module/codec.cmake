# bloomkit_module_codec: the module's Redis-free parts (its filters, their image, the RDB value's
# codec and BF.LOADCHUNK's steps), a static library that the module links and the fuzz targets
# test without a server. Included by this directory and, where the module is not built
# (sanitized builds, the libFuzzer project), by tests/fuzz.
include_guard(GLOBAL)
if(NOT TARGET PkgConfig::XXHASH)
  find_package(PkgConfig REQUIRED)
  pkg_check_modules(XXHASH REQUIRED IMPORTED_TARGET libxxhash)
endif()
add_library(bloomkit_module_codec STATIC
  ${CMAKE_CURRENT_LIST_DIR}/module_filter.cpp
  ${CMAKE_CURRENT_LIST_DIR}/filter_image.cpp
  ${CMAKE_CURRENT_LIST_DIR}/value_codec.cpp
  ${CMAKE_CURRENT_LIST_DIR}/chunk_loading.cpp
  ${CMAKE_CURRENT_LIST_DIR}/chunk_iterator.cpp)
set_target_properties(bloomkit_module_codec PROPERTIES
  POSITION_INDEPENDENT_CODE ON
  CXX_VISIBILITY_PRESET hidden
  VISIBILITY_INLINES_HIDDEN ON)
target_include_directories(bloomkit_module_codec PUBLIC ${CMAKE_CURRENT_LIST_DIR})
target_link_libraries(bloomkit_module_codec PUBLIC bloomkit::bloomkit PRIVATE PkgConfig::XXHASH)
if(TARGET bloomkit_warnings)
  target_link_libraries(bloomkit_module_codec PRIVATE bloomkit_warnings)
endif()
