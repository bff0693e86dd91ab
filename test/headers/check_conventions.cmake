# SPDX-License-Identifier: Apache-2.0
# Checks every public header: it starts with the SPDX line and has `#pragma once`; a core header (all but the
# add-ons e2e/, data/, train/, ext/, testing/ and their umbrellas) includes no third-party library but Boost.Hana,
# Hana only through synperf/detail/hana.hpp, and no add-on header (the generated synperf/models/ ones included).
#
#   cmake -DSYNPERF_SOURCE_DIR=<checkout> -P check_conventions.cmake
cmake_minimum_required(VERSION 3.25)

set(include_dir ${SYNPERF_SOURCE_DIR}/include)
file(GLOB_RECURSE headers ${include_dir}/*.hpp ${SYNPERF_SOURCE_DIR}/hw/*.hpp)
set(problems)
foreach(path IN LISTS headers)
  file(RELATIVE_PATH name ${SYNPERF_SOURCE_DIR} ${path})
  # Split into lines by hand: file(STRINGS) would also split at every ';'.
  file(READ ${path} text)
  string(REPLACE ";" "<semicolon>" text "${text}")
  string(REPLACE "\n" ";" lines "${text}")
  set(first "")
  if(lines)
    list(GET lines 0 first)
  endif()
  if(NOT first STREQUAL "// SPDX-License-Identifier: Apache-2.0")
    list(APPEND problems "${name}:1: expected '// SPDX-License-Identifier: Apache-2.0', got '${first}'")
  endif()
  if(NOT "#pragma once" IN_LIST lines)
    list(APPEND problems "${name}: no '#pragma once'")
  endif()
  if(path MATCHES "^${include_dir}/synperf/(e2e|data|train|ext|testing)/" OR
     path MATCHES "^${include_dir}/synperf/(e2e|data|train)\\.hpp$")
    continue()
  endif()
  set(line_no 0)
  foreach(line IN LISTS lines)
    math(EXPR line_no "${line_no} + 1")
    if(NOT line MATCHES "^[ \t]*#[ \t]*include[ \t]*[<\"]([^>\"]+)")
      continue()
    endif()
    set(inc ${CMAKE_MATCH_1})
    if(inc MATCHES "^boost/hana" AND NOT name STREQUAL "include/synperf/detail/hana.hpp")
      list(APPEND problems "${name}:${line_no}: core headers include Hana through synperf/detail/hana.hpp, got <${inc}>")
    elseif(inc MATCHES "^(fmt|xtensor|xtensor-blas|xtl|CLI|nlohmann|doctest|benchmark)/")
      list(APPEND problems "${name}:${line_no}: core headers use only the standard library and Boost.Hana, got <${inc}>")
    elseif(inc MATCHES "^synperf/(e2e|data|train|models|ext|testing)[/.]")
      list(APPEND problems "${name}:${line_no}: a core header includes the add-on header <${inc}>")
    endif()
  endforeach()
endforeach()

list(LENGTH headers count)
if(problems)
  list(JOIN problems "\n" report)
  message(FATAL_ERROR "header conventions:\n${report}")
endif()
message(STATUS "header conventions: ${count} headers checked")
