// SPDX-License-Identifier: Apache-2.0
#pragma once
/// \file Kernel families: the KernelFamily concept and the built-in families.

#include "synperf/family/allreduce.hpp"
#include "synperf/family/attention.hpp"
#include "synperf/family/concept.hpp"
#include "synperf/family/elementwise.hpp"
#include "synperf/family/gemm.hpp"
#include "synperf/family/gemm_fp8.hpp"
#include "synperf/family/fp8_linear.hpp"
#include "synperf/family/memory_bound.hpp"
#include "synperf/family/moe.hpp"
#include "synperf/family/moe_kernel.hpp"
#include "synperf/family/rmsnorm.hpp"
#include "synperf/family/silu_mul.hpp"
