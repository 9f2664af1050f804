# The second process starts warm: it compiles no shader. A corrupt or
# truncated cache file is ignored and rewritten, never a crash.
file(REMOVE_RECURSE "${CACHE_DIR}")
function(probe mode)
  execute_process(COMMAND ${CMAKE_COMMAND} -E env RILL_CACHE_DIR=${CACHE_DIR} ${PROBE} ${mode}
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  message(STATUS "${mode}: ${out}${err}")
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "cache probe '${mode}' failed (exit ${rc})")
  endif()
endfunction()
probe(cold)
probe(warm)
file(GLOB entries LIST_DIRECTORIES false "${CACHE_DIR}/*")
list(LENGTH entries count)
if(count EQUAL 0)
  message(FATAL_ERROR "nothing was written to ${CACHE_DIR}")
endif()
set(i 0)
foreach(f IN LISTS entries)
  math(EXPR i "${i} + 1")
  math(EXPR odd "${i} % 2")
  if(odd)
    file(WRITE "${f}" "garbage that is not a cache entry")   # corrupt
  else()
    file(READ "${f}" head LIMIT 20 HEX)
    file(WRITE "${f}" "RILLCAC1")                             # truncated after the magic
  endif()
endforeach()
probe(cold)   # every damaged entry is ignored and recompiled
probe(warm)   # ... and was rewritten
