# Writes the model `prowl init` makes of an OpenAPI document and compares it byte for byte with
# its approved golden file; on a difference, shows it (diff -u) and how to approve the new text.
#
#   cmake -DPROWL=<prowl> -DSPEC=<document> -DGOLDEN=<golden.yaml> -DOUT=<file> -P golden.cmake
foreach(var PROWL SPEC GOLDEN OUT)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "golden.cmake: -D${var}=... is required")
  endif()
endforeach()
get_filename_component(out_dir "${OUT}" DIRECTORY)
file(MAKE_DIRECTORY "${out_dir}")
execute_process(COMMAND "${PROWL}" init --openapi "${SPEC}" -o "${OUT}" --force
  RESULT_VARIABLE code OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT code EQUAL 0)
  message(FATAL_ERROR "prowl init exited with ${code}\n--- stdout\n${out}--- stderr\n${err}")
endif()
execute_process(COMMAND ${CMAKE_COMMAND} -E compare_files "${OUT}" "${GOLDEN}"
  RESULT_VARIABLE different)
if(different)
  execute_process(COMMAND diff -u "${GOLDEN}" "${OUT}" OUTPUT_VARIABLE diff ERROR_VARIABLE diff)
  message(FATAL_ERROR "${OUT} differs from ${GOLDEN}:\n${diff}\n"
    "If the new text is right, approve it: cp ${OUT} ${GOLDEN}")
endif()
