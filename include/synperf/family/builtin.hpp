// SPDX-License-Identifier: Apache-2.0
#pragma once
/// \file The built-in kernel families: the one list the CLI, the end-to-end estimator and the shipped weights
/// iterate over. A new family is its header, its predict command beside it (`family::predict_command`, which
/// `synperf predict` builds itself from), and one line here (or `builtin_families::append<F>` in a program).
#include "synperf/family/allreduce.hpp"
#include "synperf/family/allreduce_command.hpp"
#include "synperf/family/attention.hpp"
#include "synperf/family/attention_command.hpp"
#include "synperf/family/elementwise.hpp"
#include "synperf/family/elementwise_command.hpp"
#include "synperf/family/fp8_linear.hpp"
#include "synperf/family/fp8_linear_command.hpp"
#include "synperf/family/gemm.hpp"
#include "synperf/family/gemm_command.hpp"
#include "synperf/family/gemm_fp8.hpp"
#include "synperf/family/gemm_fp8_command.hpp"
#include "synperf/family/list.hpp"
#include "synperf/family/moe.hpp"
#include "synperf/family/moe_command.hpp"
#include "synperf/family/moe_kernel.hpp"
#include "synperf/family/moe_kernel_command.hpp"
#include "synperf/family/rmsnorm.hpp"
#include "synperf/family/rmsnorm_command.hpp"
#include "synperf/family/silu_mul.hpp"
#include "synperf/family/silu_mul_command.hpp"

namespace synperf {

/// Every built-in family, in the order the CLI lists them.
using builtin_families = family::list<family::gemm,               //
                                      family::attention_prefill,  //
                                      family::attention_decode,   //
                                      family::allreduce,          //
                                      family::gemm_fp8,           //
                                      family::fp8_linear,         //
                                      family::moe,                //
                                      family::moe_kernel,         //
                                      family::rmsnorm,            //
                                      family::silu_mul,           //
                                      family::elementwise>;

}  // namespace synperf
