# SPDX-License-Identifier: Apache-2.0
# synperf::train: the MLP trainer and baselines in include/synperf/train/ (header-only), on xtensor,
# xtensor-blas and a BLAS/LAPACK (Debian: libxtensor-dev libxtensor-blas-dev libopenblas-dev).
# Defined only when all of them are found; SYNPERF_HAVE_TRAIN tells the rest of the build.
find_package(xtensor QUIET)
find_package(xtensor-blas QUIET)
find_package(BLAS QUIET)
find_package(LAPACK QUIET)
find_package(Threads QUIET)
set(SYNPERF_HAVE_TRAIN OFF)
if(xtensor_FOUND AND xtensor-blas_FOUND AND BLAS_FOUND AND LAPACK_FOUND AND Threads_FOUND)
  add_library(synperf_train INTERFACE)
  add_library(synperf::train ALIAS synperf_train)
  # dl: the trainer pins OpenBLAS to one thread through dlsym, so any BLAS links.
  target_link_libraries(synperf_train INTERFACE
    synperf xtensor xtensor-blas BLAS::BLAS LAPACK::LAPACK Threads::Threads ${CMAKE_DL_LIBS})
  set(SYNPERF_HAVE_TRAIN ON)
else()
  message(STATUS "synperf: xtensor, xtensor-blas or BLAS/LAPACK not found; synperf::train is not defined")
endif()
