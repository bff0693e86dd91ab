// SPDX-License-Identifier: Apache-2.0
#pragma once
/// \file Measured data: CSV reader, protocol splits and every built-in family's rows (with its training source).
/// Where the data lives is the program's choice: the library holds no default path.

#include "synperf/data/csv.hpp"
#include "synperf/data/protocol.hpp"
#include "synperf/data/vidur_rows.hpp"
#include "synperf/train/builtin_sources.hpp"  // every family's data reader
