# SPDX-License-Identifier: Apache-2.0
# Regenerates each embedded-model header into WORK_DIR and compares it with the committed one.
#
#   cmake -DSYNPERF_SOURCE_DIR=<checkout> -DWORK_DIR=<scratch dir> -P check_embedded_models.cmake
cmake_minimum_required(VERSION 3.25)

set(embed ${SYNPERF_SOURCE_DIR}/cmake/embed_model.cmake)
file(GLOB models RELATIVE ${SYNPERF_SOURCE_DIR} ${SYNPERF_SOURCE_DIR}/models/*.mlp)

# Each entry: <input>|<committed header>|<name>|<chunk size>, paths relative to the checkout.
set(entries)
foreach(model IN LISTS models)
  get_filename_component(name ${model} NAME_WE)
  list(APPEND entries "${model}|include/synperf/models/${name}.hpp|${name}|60000")
endforeach()
list(APPEND entries "test/data/mlp/tiny.mlp|test/data/mlp/tiny_embedded.hpp|tiny|200")

file(MAKE_DIRECTORY ${WORK_DIR})
set(problems)
foreach(entry IN LISTS entries)
  string(REPLACE "|" ";" fields "${entry}")
  list(GET fields 0 input)
  list(GET fields 1 header)
  list(GET fields 2 name)
  list(GET fields 3 chunk_size)
  set(fresh ${WORK_DIR}/${name}.hpp)
  execute_process(
    COMMAND ${CMAKE_COMMAND} -DINPUT=${SYNPERF_SOURCE_DIR}/${input} -DOUTPUT=${fresh} -DNAME=${name}
            -DCHUNK_SIZE=${chunk_size} -P ${embed}
    RESULT_VARIABLE rc ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    list(APPEND problems "${input}: cmake/embed_model.cmake failed:\n${err}")
    continue()
  endif()
  if(NOT EXISTS ${SYNPERF_SOURCE_DIR}/${header})
    list(APPEND problems "${input}: ${header} is missing")
    continue()
  endif()
  execute_process(COMMAND ${CMAKE_COMMAND} -E compare_files ${fresh} ${SYNPERF_SOURCE_DIR}/${header}
    RESULT_VARIABLE differs)
  if(NOT differs EQUAL 0)
    list(APPEND problems "${input}: ${header} is out of date (it does not embed the current weights)")
  else()
    message(STATUS "${header}: up to date with ${input}")
  endif()
endforeach()

if(problems)
  list(JOIN problems "\n  " report)
  message(FATAL_ERROR "embedded models out of date:\n  ${report}\n"
    "Regenerate them from the source root with: scripts/embed-models.sh\n"
    "(one model: cmake -DINPUT=models/<family>.mlp -DOUTPUT=include/synperf/models/<family>.hpp "
    "-DNAME=<family> -P cmake/embed_model.cmake)")
endif()
