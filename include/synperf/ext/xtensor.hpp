// SPDX-License-Identifier: Apache-2.0
#pragma once
/// \file The only header that includes xtensor and xtensor-blas; everything else includes this one.
///
/// Debian 12 ships xtensor 0.24 with flat headers (`<xtensor/xtensor.hpp>`); upstream 0.26 moved them into
/// subfolders (`<xtensor/containers/xtensor.hpp>`), so the paths are chosen here, once.
#if __has_include(<xtensor/containers/xtensor.hpp>)
#include <xtensor/containers/xadapt.hpp>
#include <xtensor/containers/xtensor.hpp>
#else
#include <xtensor/xadapt.hpp>
#include <xtensor/xtensor.hpp>
#endif
#include <xtensor-blas/xblas.hpp>
#include <xtensor-blas/xlinalg.hpp>
