// SPDX-License-Identifier: Apache-2.0
#pragma once
/// \file The shipped (embedded) efficiency model of every family this build has weights for; opt-in, not
/// included by synperf/e2e.hpp (the embedded weights are large to compile).
///
/// A family whose embedded header (synperf/models/<family>.hpp, generated from models/<family>.mlp) is
/// absent stays null, and the end-to-end model refuses runs that need it.
#include <memory>

#include "synperf/e2e/kernel_costs.hpp"
#include "synperf/mlp/network.hpp"

#if __has_include("synperf/models/gemm.hpp")
#include "synperf/models/gemm.hpp"
#define SYNPERF_E2E_HAS_GEMM 1
#endif
#if __has_include("synperf/models/gemm_fp8.hpp")
#include "synperf/models/gemm_fp8.hpp"
#define SYNPERF_E2E_HAS_GEMM_FP8 1
#endif
#if __has_include("synperf/models/attention_prefill.hpp")
#include "synperf/models/attention_prefill.hpp"
#define SYNPERF_E2E_HAS_ATTENTION_PREFILL 1
#endif
#if __has_include("synperf/models/attention_decode.hpp")
#include "synperf/models/attention_decode.hpp"
#define SYNPERF_E2E_HAS_ATTENTION_DECODE 1
#endif
#if __has_include("synperf/models/rmsnorm.hpp")
#include "synperf/models/rmsnorm.hpp"
#define SYNPERF_E2E_HAS_RMSNORM 1
#endif
#if __has_include("synperf/models/silu_mul.hpp")
#include "synperf/models/silu_mul.hpp"
#define SYNPERF_E2E_HAS_SILU_MUL 1
#endif
#if __has_include("synperf/models/elementwise.hpp")
#include "synperf/models/elementwise.hpp"
#define SYNPERF_E2E_HAS_ELEMENTWISE 1
#endif
#if __has_include("synperf/models/allreduce.hpp")
#include "synperf/models/allreduce.hpp"
#define SYNPERF_E2E_HAS_ALLREDUCE 1
#endif
#if __has_include("synperf/models/fp8_linear.hpp")
#include "synperf/models/fp8_linear.hpp"
#define SYNPERF_E2E_HAS_FP8_LINEAR 1
#endif
#if __has_include("synperf/models/moe.hpp")
#include "synperf/models/moe.hpp"
#define SYNPERF_E2E_HAS_MOE 1
#endif

namespace synperf::e2e {

namespace shipped_detail {
/// A non-owning handle on an embedded network (they live for the whole program).
inline std::shared_ptr<const mlp::network> borrow(const mlp::network& n) {
    return std::shared_ptr<const mlp::network>(&n, [](const mlp::network*) {});
}
}  // namespace shipped_detail

/// Every embedded model of this build; families without one are null.
[[nodiscard]] inline family_models shipped_models() {
    family_models m;
#ifdef SYNPERF_E2E_HAS_GEMM
    m.gemm = shipped_detail::borrow(models::gemm());
#endif
#ifdef SYNPERF_E2E_HAS_GEMM_FP8
    m.gemm_fp8 = shipped_detail::borrow(models::gemm_fp8());
#endif
#ifdef SYNPERF_E2E_HAS_FP8_LINEAR
    m.fp8_linear = shipped_detail::borrow(models::fp8_linear());
#endif
#ifdef SYNPERF_E2E_HAS_ATTENTION_PREFILL
    m.attention_prefill = shipped_detail::borrow(models::attention_prefill());
#endif
#ifdef SYNPERF_E2E_HAS_ATTENTION_DECODE
    m.attention_decode = shipped_detail::borrow(models::attention_decode());
#endif
#ifdef SYNPERF_E2E_HAS_RMSNORM
    m.rmsnorm = shipped_detail::borrow(models::rmsnorm());
#endif
#ifdef SYNPERF_E2E_HAS_SILU_MUL
    m.silu_mul = shipped_detail::borrow(models::silu_mul());
#endif
#ifdef SYNPERF_E2E_HAS_ELEMENTWISE
    m.elementwise = shipped_detail::borrow(models::elementwise());
#endif
#ifdef SYNPERF_E2E_HAS_ALLREDUCE
    m.allreduce = shipped_detail::borrow(models::allreduce());
#endif
#ifdef SYNPERF_E2E_HAS_MOE
    m.moe = shipped_detail::borrow(models::moe());
#endif
    return m;
}

}  // namespace synperf::e2e
