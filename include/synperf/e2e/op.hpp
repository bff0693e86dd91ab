// SPDX-License-Identifier: Apache-2.0
#pragma once
/// \file An op of an inference iteration: one kernel family's problem, as that family takes it, with the number of
/// times the iteration launches it. The family is the problem's position in a `family::list`, so any family of the
/// list (a program's own included) can stand in an iteration; nothing here names one.
#include <cstddef>
#include <cstdint>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include "synperf/family/builtin.hpp"

namespace synperf::e2e {

/// One op of an iteration of families `List`.
template <class List>
struct basic_op {
    using families = List;

    std::string_view name;                     ///< role in the model: "qkv_proj", "attention", ...
    typename List::problem_variant problem;    ///< the family's problem; its index is the family's position in `List`
    std::int64_t count = 1;                    ///< launches per iteration (e.g. once per layer)
    std::string_view framework;                ///< the framework level the family's model is asked for
    double weight_bytes = 0;                   ///< weights read per launch: a serving step reads them cold from DRAM

    /// Position of the op's family in `List`.
    [[nodiscard]] std::size_t family() const noexcept { return problem.index(); }
    [[nodiscard]] std::string_view family_name() const noexcept { return List::names[problem.index()]; }
    /// Whether the op belongs to family F.
    template <class F>
    [[nodiscard]] bool is() const noexcept {
        return problem.index() == List::template index_of<F>;
    }
    /// The op's problem as family F's (throws `std::bad_variant_access` for another family's op).
    template <class F>
    [[nodiscard]] const typename F::problem_type& as() const {
        return std::get<List::template index_of<F>>(problem);
    }
};

/// An op of family F in list `List`.
template <class F, class List = builtin_families>
[[nodiscard]] basic_op<List> make_op(std::string_view name, typename F::problem_type problem, std::int64_t count,
                                     std::string_view framework, double weight_bytes = 0) {
    return basic_op<List>{name, typename List::problem_variant(std::in_place_index<List::template index_of<F>>, std::move(problem)),
                          count, framework, weight_bytes};
}

/// The ops of one iteration on one GPU.
template <class List>
struct basic_iteration {
    using families = List;

    std::vector<basic_op<List>> ops;
    std::int64_t tokens = 0;    ///< new tokens processed (prefill: prompt tokens; decode: batch)
    std::int64_t requests = 0;  ///< batch size
    bool decode = false;
    /// Kernel launches of the iteration (sum of counts).
    [[nodiscard]] std::int64_t launches() const noexcept {
        std::int64_t n = 0;
        for (const auto& o : ops) n += o.count;
        return n;
    }
};

using op = basic_op<builtin_families>;
using iteration = basic_iteration<builtin_families>;

}  // namespace synperf::e2e
