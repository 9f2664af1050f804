# Compiles each program in compile/ and checks that it fails with the words in
# its "// expect:" line: type errors in kernels must be C++ compile errors.
file(GLOB sources "${SOURCE_DIR}/compile/*.cpp")
set(failures 0)
foreach(src IN LISTS sources)
  file(STRINGS "${src}" expect_line REGEX "^// expect: ")
  string(REGEX REPLACE "^// expect: " "" expect "${expect_line}")
  # -include PCH: rill.h, from its precompiled form where the build made one
  # (GCC reads PCH.gch in its place), else parsed as text.
  execute_process(COMMAND ${CXX} -std=c++20 -fsyntax-only ${FLAGS} -include ${PCH} "${src}"
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  get_filename_component(name "${src}" NAME)
  if(rc EQUAL 0)
    message(SEND_ERROR "${name}: compiled, but must fail with \"${expect}\"")
    math(EXPR failures "${failures} + 1")
  else()
    string(FIND "${err}" "${expect}" at)
    if(at EQUAL -1)
      message(SEND_ERROR "${name}: failed without \"${expect}\":\n${err}")
      math(EXPR failures "${failures} + 1")
    else()
      message(STATUS "${name}: fails as expected")
    endif()
  endif()
endforeach()
if(failures GREATER 0)
  message(FATAL_ERROR "${failures} compile-error check(s) failed")
endif()
