// SPDX-License-Identifier: Apache-2.0
#pragma once
/// \file Measured data: CSV reader, protocol splits, GEMM and memory-bound rows (with their families' training
/// sources). Where the data lives is the program's choice: the library holds no default path.

#include "synperf/data/csv.hpp"
#include "synperf/data/protocol.hpp"
#include "synperf/data/gemm_rows.hpp"
#include "synperf/data/elementwise_rows.hpp"
#include "synperf/data/rmsnorm_rows.hpp"
#include "synperf/data/silu_mul_rows.hpp"
#include "synperf/data/vidur_rows.hpp"
