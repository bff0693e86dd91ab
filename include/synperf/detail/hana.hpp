// SPDX-License-Identifier: Apache-2.0
#pragma once
/// \file The only place synperf includes Boost.Hana: targeted headers, never <boost/hana.hpp>.
// IWYU pragma: begin_exports
#include <boost/hana/append.hpp>
#include <boost/hana/concat.hpp>
#include <boost/hana/equal.hpp>  // without it `hana::length(x) == 1u` fails to deduce
#include <boost/hana/for_each.hpp>
#include <boost/hana/length.hpp>
#include <boost/hana/tuple.hpp>
#include <boost/hana/type.hpp>
// IWYU pragma: end_exports

namespace synperf {
/// Short alias used throughout synperf.
namespace hana = boost::hana;
}  // namespace synperf
