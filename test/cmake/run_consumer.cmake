# SPDX-License-Identifier: Apache-2.0
# Builds and runs one consumer project against a synperf checkout; fails with the step's output on any error.
#
#   cmake -DMODE=<find_package|add_subdirectory|fetch_content> -DSYNPERF_SOURCE_DIR=<checkout>
#         -DWORK_DIR=<scratch dir> [-DGENERATOR=...] [-DCXX_COMPILER=...] [-DBUILD_TYPE=...] -P run_consumer.cmake
cmake_minimum_required(VERSION 3.25)

foreach(var MODE SYNPERF_SOURCE_DIR WORK_DIR)
  if("${${var}}" STREQUAL "")
    message(FATAL_ERROR "run_consumer.cmake: ${var} is not set")
  endif()
endforeach()
set(consumer_dir ${CMAKE_CURRENT_LIST_DIR}/${MODE})
if(NOT EXISTS ${consumer_dir}/CMakeLists.txt)
  message(FATAL_ERROR "run_consumer.cmake: no consumer project ${consumer_dir}")
endif()
if(NOT BUILD_TYPE)
  set(BUILD_TYPE Release)
endif()

# Options every configure step gets: same generator and compiler as the outer build, and synperf's
# own tests, tools and examples off so each step takes seconds.
set(common_args -DCMAKE_BUILD_TYPE=${BUILD_TYPE}
                -DSYNPERF_BUILD_TESTS=OFF -DSYNPERF_BUILD_TOOLS=OFF -DSYNPERF_BUILD_EXAMPLES=OFF)
if(GENERATOR)
  list(PREPEND common_args -G ${GENERATOR})
endif()
if(CXX_COMPILER)
  list(APPEND common_args -DCMAKE_CXX_COMPILER=${CXX_COMPILER})
endif()

# run(<step> <command>...): runs a command, stores its output in step_output, stops on failure.
function(run step)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${MODE}: ${step} failed (${rc}):\n${ARGN}\n${out}")
  endif()
  set(step_output "${out}" PARENT_SCOPE)
endfunction()

file(REMOVE_RECURSE ${WORK_DIR})
set(consumer_args)

if(MODE STREQUAL "find_package")
  set(prefix ${WORK_DIR}/prefix)
  run("configure synperf" ${CMAKE_COMMAND} -S ${SYNPERF_SOURCE_DIR} -B ${WORK_DIR}/synperf-build ${common_args}
      -DSYNPERF_INSTALL=ON -DSYNPERF_INSTALL_MODELS=ON -DCMAKE_INSTALL_PREFIX=${prefix})
  run("build synperf" ${CMAKE_COMMAND} --build ${WORK_DIR}/synperf-build --config ${BUILD_TYPE})
  run("install synperf" ${CMAKE_COMMAND} --install ${WORK_DIR}/synperf-build --config ${BUILD_TYPE})
  # Every public header must be installed, hw/ policies included, under <prefix>/include.
  file(GLOB_RECURSE headers RELATIVE ${SYNPERF_SOURCE_DIR}/include ${SYNPERF_SOURCE_DIR}/include/*.hpp)
  file(GLOB_RECURSE hw_headers RELATIVE ${SYNPERF_SOURCE_DIR}/hw ${SYNPERF_SOURCE_DIR}/hw/*.hpp)
  foreach(h IN LISTS headers hw_headers)
    if(NOT EXISTS ${prefix}/include/${h})
      message(FATAL_ERROR "${MODE}: ${h} was not installed into ${prefix}/include")
    endif()
  endforeach()
  list(APPEND consumer_args -DCMAKE_PREFIX_PATH=${prefix})
else()
  list(APPEND consumer_args -DSYNPERF_SOURCE_DIR=${SYNPERF_SOURCE_DIR})
endif()

run("configure consumer" ${CMAKE_COMMAND} -S ${consumer_dir} -B ${WORK_DIR}/consumer-build ${common_args} ${consumer_args})
if(MODE STREQUAL "find_package")
  string(FIND "${step_output}" "from ${prefix}/" found_at)
  if(found_at EQUAL -1)
    message(FATAL_ERROR "${MODE}: synperf was not found in ${prefix}:\n${step_output}")
  endif()
endif()
run("build consumer" ${CMAKE_COMMAND} --build ${WORK_DIR}/consumer-build --config ${BUILD_TYPE})

find_program(consumer_exe consumer PATHS ${WORK_DIR}/consumer-build ${WORK_DIR}/consumer-build/${BUILD_TYPE} NO_DEFAULT_PATH)
if(NOT consumer_exe)
  message(FATAL_ERROR "${MODE}: the consumer executable was not built")
endif()
run("run consumer" ${consumer_exe})
if(NOT step_output MATCHES "bf16 dense peak 989 TFLOPS" OR NOT step_output MATCHES "gemm 4096\\^3 predicted in [0-9]"
   OR NOT step_output MATCHES "config.json of 32 layers read")
  message(FATAL_ERROR "${MODE}: unexpected consumer output:\n${step_output}")
endif()
string(STRIP "${step_output}" step_output)
message(STATUS "${MODE}: ${step_output}")
