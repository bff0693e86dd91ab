// SPDX-License-Identifier: Apache-2.0
// CHECK(call): a failed CUDA runtime call prints file:line and the error, then exits (the measure programs' error path).
#pragma once
#include <cstdio>
#include <cstdlib>

#include <cuda_runtime.h>

#define CHECK(x)                                                                                        \
    do {                                                                                                \
        cudaError_t e_ = (x);                                                                           \
        if (e_ != cudaSuccess) {                                                                        \
            std::fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(e_));            \
            std::exit(1);                                                                               \
        }                                                                                               \
    } while (0)
