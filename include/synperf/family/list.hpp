// SPDX-License-Identifier: Apache-2.0
#pragma once
/// \file `family::list<F...>`: a compile-time list of kernel families that every layer above the kernel layer
/// (the CLI's commands, the end-to-end estimator, the shipped-weights registry) iterates over.
///
/// A family is found by type (`index_of<F>`), by position (`at<I>`) or by its run-time name (`visit`); nothing
/// above the kernel layer names a family outside the list it is given.
#include <array>
#include <concepts>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <utility>
#include <variant>

#include "synperf/detail/hana.hpp"
#include "synperf/error.hpp"
#include "synperf/family/concept.hpp"

namespace synperf::family {

/// An ordered list of kernel families, each named once.
template <KernelFamily... F>
struct list {
    static constexpr std::size_t size = sizeof...(F);
    /// The families' names (`F::name`), in list order.
    static constexpr std::array<std::string_view, size> names{F::name...};
    /// The families as a `hana::tuple` of `hana::type`s.
    static constexpr auto types = hana::tuple_t<F...>;
    /// One problem of any family of the list; its `index()` is the family's position (two families may share a
    /// problem type, so alternatives are addressed by position: `std::in_place_index<index_of<G>>`).
    using problem_variant = std::variant<typename F::problem_type...>;

    /// The family at position I.
    template <std::size_t I>
    using at = std::tuple_element_t<I, std::tuple<F...>>;
    /// This list with G added at the end: how a program adds its own family to the built-in ones.
    template <KernelFamily G>
    using append = list<F..., G>;
    /// Whether G is in the list.
    template <class G>
    static constexpr bool contains = (std::same_as<G, F> || ...);

    /// Position of G in the list (a compile error when G is not in it).
    template <class G>
    static constexpr std::size_t index_of = [] {
        static_assert(contains<G>, "synperf: this family is not in the family list");
        std::size_t i = 0;
        ((std::same_as<G, F> ? false : (++i, true)) && ...);
        return i;
    }();

    /// Calls `fn(hana::type_c<F>)` for every family, in list order.
    template <class Fn>
    static constexpr void for_each(Fn&& fn) {
        (fn(hana::type_c<F>), ...);
    }

    /// Position of the family called `name`, or nullopt.
    [[nodiscard]] static constexpr std::optional<std::size_t> find(std::string_view name) noexcept {
        for (std::size_t i = 0; i < size; ++i)
            if (names[i] == name) return i;
        return std::nullopt;
    }

    /// The list's names joined by ", " (for error messages).
    [[nodiscard]] static std::string known_names() {
        std::string out;
        for (std::string_view n : names) out += (out.empty() ? "" : ", ") + std::string(n);
        return out;
    }

    /// Calls `fn(hana::type_c<F>)` for the family at position `index` and returns its result (the same type for
    /// every family). Throws `invalid_argument` for a position past the end.
    template <class Fn>
    static decltype(auto) visit(std::size_t index, Fn&& fn) {
        if (index >= size) synperf::detail::report_error("family list: no family at position " + std::to_string(index));
        return visit_from<0>(index, fn);
    }
    /// Calls `fn(hana::type_c<F>)` for the family called `name`; throws `invalid_argument` naming the known ones.
    template <class Fn>
    static decltype(auto) visit(std::string_view name, Fn&& fn) {
        const std::optional<std::size_t> i = find(name);
        if (!i) synperf::detail::report_error("unknown family '" + std::string(name) + "'; known: " + known_names());
        return visit_from<0>(*i, fn);
    }

private:
    template <std::size_t I, class Fn>
    static decltype(auto) visit_from(std::size_t index, Fn& fn) {
        if constexpr (I + 1 == size) {
            return fn(hana::type_c<at<I>>);
        } else {
            if (index == I) return fn(hana::type_c<at<I>>);
            return visit_from<I + 1>(index, fn);
        }
    }
};

}  // namespace synperf::family
