# bloomkit_module_transfer: module keys to and from filter files over bloomkit::redis's client
# (key_transfer.hpp) and their adds, lookups and info (key_commands.hpp), for the CLI (`bloomkit
# redis pull`, `redis push --module`, `redis add | query | info` of a module key) and the Python
# binding. Apart from the module (which never links a client) and from the codec (Redis-free);
# needs BLOOMKIT_BUILD_REDIS, not the module's option. Included where it is linked.
include_guard(GLOBAL)
include(${CMAKE_CURRENT_LIST_DIR}/codec.cmake)
add_library(bloomkit_module_transfer STATIC ${CMAKE_CURRENT_LIST_DIR}/key_transfer.cpp
  ${CMAKE_CURRENT_LIST_DIR}/key_commands.cpp)
set_target_properties(bloomkit_module_transfer PROPERTIES
  POSITION_INDEPENDENT_CODE ON
  CXX_VISIBILITY_PRESET hidden
  VISIBILITY_INLINES_HIDDEN ON)
target_include_directories(bloomkit_module_transfer PUBLIC ${CMAKE_CURRENT_LIST_DIR})
target_link_libraries(bloomkit_module_transfer PUBLIC bloomkit::redis PRIVATE bloomkit_module_codec)
if(TARGET bloomkit_warnings)
  target_link_libraries(bloomkit_module_transfer PRIVATE bloomkit_warnings)
endif()
