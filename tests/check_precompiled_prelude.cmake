# With GCC, the first compiled kernel leaves the precompiled prelude in the
# cache (native.cpp), which every later kernel build reads instead of parsing
# the headers again.
file(REMOVE_RECURSE "${CACHE_DIR}")
execute_process(COMMAND ${CMAKE_COMMAND} -E env RILL_CACHE_DIR=${CACHE_DIR} RILL_CPU_COMPILE=always RILL_CXX=${CXX}
                        ${TESTS} --gtest_filter=Backends/GroupKernels.IdsCoverEveryInvocation/cpu
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "the compiled group kernel failed (exit ${rc}):\n${out}${err}")
endif()
file(GLOB pch "${CACHE_DIR}/cpu-native/include-*/native_prelude.h.gch")
if(NOT pch)
  message(FATAL_ERROR "no native_prelude.h.gch under ${CACHE_DIR}/cpu-native: kernels parse every header again")
endif()
