// SPDX-License-Identifier: Apache-2.0
#pragma once
/// \file Kernel families: the KernelFamily concept and the built-in families.

#include "synperf/family/attention.hpp"
#include "synperf/family/concept.hpp"
#include "synperf/family/gemm.hpp"
