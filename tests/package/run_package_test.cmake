# Builds and runs a consumer project in WORK_DIR (with GENERATOR when given). Fails on the first
# step that fails.
# - With BLOOMKIT_BUILD_DIR: installs that (already built) bloomkit into WORK_DIR/prefix and builds
#   CONSUMER_SOURCE_DIR against it through find_package(bloomkit).
# - With BLOOMKIT_SOURCE_DIR: builds CONSUMER_SOURCE_DIR, which adds bloomkit's sources with
#   add_subdirectory (a unity build with UNITY_BUILD).
file(REMOVE_RECURSE ${WORK_DIR})

function(run)
  execute_process(COMMAND ${ARGV} RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "failed (${rc}): ${ARGV}")
  endif()
endfunction()

if(BLOOMKIT_BUILD_DIR)
  run(${CMAKE_COMMAND} --install ${BLOOMKIT_BUILD_DIR} --prefix ${WORK_DIR}/prefix)
  set(bloomkit_location -DCMAKE_PREFIX_PATH=${WORK_DIR}/prefix)
else()
  set(bloomkit_location -DBLOOMKIT_SOURCE_DIR=${BLOOMKIT_SOURCE_DIR})
  if(UNITY_BUILD)
    # One unity source per library (batch size 0): at -O0 parsing the headers is most of the
    # work, and two libraries keep two cores busy (48 against 72 CPU-s in batches of 8).
    list(APPEND bloomkit_location -DCMAKE_UNITY_BUILD=ON -DCMAKE_UNITY_BUILD_BATCH_SIZE=0)
  endif()
endif()
if(GENERATOR)
  set(generator -G ${GENERATOR})
endif()
run(${CMAKE_COMMAND} -S ${CONSUMER_SOURCE_DIR} -B ${WORK_DIR}/build ${generator}
  ${bloomkit_location}
  -DCMAKE_CXX_COMPILER=${CXX_COMPILER}
  "-DCMAKE_CXX_FLAGS=${CXX_FLAGS}")
run(${CMAKE_COMMAND} --build ${WORK_DIR}/build)
run(${WORK_DIR}/build/consumer ${WORK_DIR}/consumer.bloom)
run(${WORK_DIR}/build/compat_consumer ${WORK_DIR}/compat_consumer.bloom)
if(EXISTS ${WORK_DIR}/build/redis_consumer)
  run(${WORK_DIR}/build/redis_consumer)
endif()
