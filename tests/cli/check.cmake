# Runs one command and checks its exit code and output; the black-box CLI tests are built on it.
#
#   cmake -DEXIT=<code> [-DSTDOUT=<regex>] [-DSTDERR=<regex>] [-DNOT_STDOUT=<regex>]
#         [-DWORKDIR=<dir>] [-DJSON_FILE=<file> [-DJSON_VERSION=<v>] [-DJSON_MODEL=<m>]]
#         [-DABSENT_FILE=<file>] [-DFILE=<file> [-DFILE_MATCHES=<regex>]] [-DCOPY=<file>]
#         -P check.cmake -- <command> [args...]
#
# STDOUT/STDERR must match (CMake regular expressions, where '.' also matches a newline);
# NOT_STDOUT must not. WORKDIR is emptied and created first, and the command runs in it.
# JSON_FILE is deleted before the run and must afterwards hold a JSON document (parsed with
# string(JSON)) whose "version" and "model" fields equal JSON_VERSION and JSON_MODEL when given.
# ABSENT_FILE must not exist after the run. FILE is deleted before the run and must exist after
# it, its text matching FILE_MATCHES when given. COPY is copied into WORKDIR before the run.

set(command)
set(collect OFF)
foreach(i RANGE ${CMAKE_ARGC})
  if(collect AND DEFINED CMAKE_ARGV${i})
    list(APPEND command "${CMAKE_ARGV${i}}")
  elseif("${CMAKE_ARGV${i}}" STREQUAL "--")
    set(collect ON)
  endif()
endforeach()
if(NOT command)
  message(FATAL_ERROR "check.cmake: no command after --")
endif()
if(NOT DEFINED EXIT)
  message(FATAL_ERROR "check.cmake: -DEXIT=<code> is required")
endif()

set(workdir_args)
if(DEFINED WORKDIR)
  file(REMOVE_RECURSE "${WORKDIR}")
  file(MAKE_DIRECTORY "${WORKDIR}")
  set(workdir_args WORKING_DIRECTORY "${WORKDIR}")
  if(DEFINED COPY)
    file(COPY "${COPY}" DESTINATION "${WORKDIR}")
  endif()
endif()
if(DEFINED JSON_FILE)
  file(REMOVE "${JSON_FILE}")
endif()
if(DEFINED FILE)
  file(REMOVE "${FILE}")
endif()

execute_process(COMMAND ${command} ${workdir_args}
  RESULT_VARIABLE code OUTPUT_VARIABLE out ERROR_VARIABLE err)

set(failures)
if(NOT "${code}" STREQUAL "${EXIT}")
  list(APPEND failures "exit code ${code}, expected ${EXIT}")
endif()
if(DEFINED STDOUT AND NOT out MATCHES "${STDOUT}")
  list(APPEND failures "stdout does not match: ${STDOUT}")
endif()
if(DEFINED NOT_STDOUT AND out MATCHES "${NOT_STDOUT}")
  list(APPEND failures "stdout matches what it must not: ${NOT_STDOUT}")
endif()
if(DEFINED STDERR AND NOT err MATCHES "${STDERR}")
  list(APPEND failures "stderr does not match: ${STDERR}")
endif()
if(DEFINED JSON_FILE)
  if(NOT EXISTS "${JSON_FILE}")
    list(APPEND failures "no JSON report at ${JSON_FILE}")
  else()
    file(READ "${JSON_FILE}" json)
    string(JSON version ERROR_VARIABLE json_error GET "${json}" version)
    if(json_error)
      list(APPEND failures "${JSON_FILE} is not a JSON report: ${json_error}")
    else()
      string(JSON model GET "${json}" model)
      if(DEFINED JSON_VERSION AND NOT version STREQUAL JSON_VERSION)
        list(APPEND failures "JSON version '${version}', expected '${JSON_VERSION}'")
      endif()
      if(DEFINED JSON_MODEL AND NOT model STREQUAL JSON_MODEL)
        list(APPEND failures "JSON model '${model}', expected '${JSON_MODEL}'")
      endif()
    endif()
  endif()
endif()

if(DEFINED FILE)
  if(NOT EXISTS "${FILE}")
    list(APPEND failures "no file at ${FILE}")
  elseif(DEFINED FILE_MATCHES)
    file(READ "${FILE}" text)
    if(NOT text MATCHES "${FILE_MATCHES}")
      list(APPEND failures "${FILE} does not match: ${FILE_MATCHES}\n--- ${FILE}\n${text}")
    endif()
  endif()
endif()

if(DEFINED ABSENT_FILE AND EXISTS "${ABSENT_FILE}")
  list(APPEND failures "${ABSENT_FILE} exists, but it must not")
endif()

if(failures)
  string(REPLACE ";" "\n  " failures "${failures}")
  message(FATAL_ERROR "${command}\n  ${failures}\n--- stdout\n${out}--- stderr\n${err}")
endif()
