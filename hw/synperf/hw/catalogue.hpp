// SPDX-License-Identifier: Apache-2.0
#pragma once
/// \file The built-in GPU catalogue: every policy in hw/, as a type list and as a Hana tuple.
#include <tuple>

#include "synperf/detail/hana.hpp"
#include "synperf/hw/a100_sxm.hpp"
#include "synperf/hw/a100_pcie_40gb.hpp"
#include "synperf/hw/a40.hpp"
#include "synperf/hw/a10.hpp"
#include "synperf/hw/rtx_a6000.hpp"
#include "synperf/hw/l4.hpp"
#include "synperf/hw/l20.hpp"
#include "synperf/hw/l40.hpp"
#include "synperf/hw/l40s.hpp"
#include "synperf/hw/rtx_6000_ada.hpp"
#include "synperf/hw/rtx_4090.hpp"
#include "synperf/hw/h100_sxm.hpp"
#include "synperf/hw/h100_pcie.hpp"
#include "synperf/hw/h800.hpp"
#include "synperf/hw/h20.hpp"
#include "synperf/hw/h200_sxm.hpp"
#include "synperf/hw/b200_sxm.hpp"
#include "synperf/hw/gb200.hpp"
#include "synperf/hw/b300_sxm.hpp"
#include "synperf/hw/gb300.hpp"
#include "synperf/hw/rtx_5090.hpp"
#include "synperf/hw/rtx_pro_6000_server.hpp"

namespace synperf::hw {

/// A plain type list of GPU policies; a `std::tuple` so doctest's TEST_CASE_TEMPLATE_APPLY accepts it.
template <class... G>
using gpu_list = std::tuple<G...>;

/// Every built-in GPU, in catalogue order (Ampere, Ada, Hopper, Blackwell).
using all_gpus = gpu_list<a100_sxm, a100_pcie_40gb, a40, a10, rtx_a6000,         // Ampere
                          l4, l20, l40, l40s, rtx_6000_ada, rtx_4090,             // Ada
                          h100_sxm, h100_pcie, h800, h20, h200_sxm,               // Hopper
                          b200_sxm, gb200, b300_sxm, gb300,                       // Blackwell
                          rtx_5090, rtx_pro_6000_server>;                         // Blackwell GB202

namespace detail {
template <class... G>
constexpr auto to_hana_types(std::tuple<G...>*) {
    return hana::tuple_t<G...>;
}
}  // namespace detail

/// The built-in GPUs as a `hana::tuple` of `hana::type`s. Extend it in your own code with
/// `hana::append(builtin_gpus, hana::type_c<my_gpu>)`; there is no global registry to edit.
inline constexpr auto builtin_gpus = detail::to_hana_types(static_cast<all_gpus*>(nullptr));

}  // namespace synperf::hw
