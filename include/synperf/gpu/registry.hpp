// SPDX-License-Identifier: Apache-2.0
#pragma once
/// \file Run-time lookup of the built-in GPU catalogue by name.
///
/// Name matching ignores case and treats '-', '_' and ' ' alike, so "NVIDIA_H100_80GB_HBM3",
/// "nvidia h100 80gb hbm3" and "H100" all find `hw::h100_sxm`. Everything here except
/// `visit_gpu` is a plain function over one constexpr table, instantiated once per program
/// rather than once per kernel family.
#include <array>
#include <cstddef>
#include <initializer_list>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "synperf/detail/hana.hpp"
#include "synperf/error.hpp"
#include "synperf/gpu/concept.hpp"
#include "synperf/gpu/numbers.hpp"
#include "synperf/gpu/runtime_gpu.hpp"
#include "synperf/hw/catalogue.hpp"

namespace synperf::gpu {

namespace detail {

/// One catalogue row, pointing into a policy's static members.
struct catalogue_entry {
    std::string_view name;
    std::string_view display_name;
    std::span<const std::string_view> aliases;
    const gpu_numbers* numbers;
};

template <class... G>
constexpr std::array<catalogue_entry, sizeof...(G)> make_catalogue(std::tuple<G...>*) {
    return {catalogue_entry{G::name, G::display_name, std::span<const std::string_view>(G::aliases), &G::numbers}...};
}

/// The built-in catalogue as a table, in `hw::all_gpus` order.
inline constexpr auto catalogue = make_catalogue(static_cast<hw::all_gpus*>(nullptr));

/// Concatenates pieces into one string. Messages are built this way rather than with
/// `"literal" + std::string`, which trips a false -Wrestrict in g++ 12 at -O2 (GCC PR 105651).
inline std::string str_cat(std::initializer_list<std::string_view> parts) {
    std::size_t size = 0;
    for (std::string_view p : parts) size += p.size();
    std::string out;
    out.reserve(size);
    for (std::string_view p : parts) out.append(p);
    return out;
}

constexpr char fold_name_char(char c) noexcept {
    if (c >= 'A' && c <= 'Z') return static_cast<char>(c - 'A' + 'a');
    if (c == '-' || c == ' ') return '_';
    return c;
}

/// True if two GPU names match: case-insensitive, with '-', '_' and ' ' treated alike.
constexpr bool same_gpu_name(std::string_view a, std::string_view b) noexcept {
    if (a.size() != b.size()) return false;
    for (std::size_t i = 0; i < a.size(); ++i)
        if (fold_name_char(a[i]) != fold_name_char(b[i])) return false;
    return true;
}

/// "a100_sxm, a100_pcie_40gb, ..." for error messages.
inline std::string known_gpu_list() {
    std::string s;
    for (const auto& e : catalogue) {
        if (!s.empty()) s += ", ";
        s += e.name;
    }
    return s;
}

/// Index of the GPU a name denotes, if any.
constexpr std::optional<std::size_t> find_gpu_index(std::string_view name) noexcept {
    for (std::size_t i = 0; i < catalogue.size(); ++i) {
        const auto& e = catalogue[i];
        if (same_gpu_name(name, e.name) || same_gpu_name(name, e.display_name)) return i;
        for (std::string_view a : e.aliases)
            if (same_gpu_name(name, a)) return i;
    }
    return std::nullopt;
}

/// Index of the GPU a name denotes; throws `invalid_argument` listing the known ids otherwise.
inline std::size_t gpu_index(std::string_view name) {
    if (const auto i = find_gpu_index(name)) return *i;
    synperf::detail::report_error(str_cat({"unknown GPU '", name, "'; known: ", known_gpu_list()}));
}

template <class F, class... G>
constexpr bool same_visit_result(std::tuple<G...>*) {
    using first = std::invoke_result_t<F&, hana::type<std::tuple_element_t<0, std::tuple<G...>>>>;
    return (std::is_same_v<first, std::invoke_result_t<F&, hana::type<G>>> && ...);
}

}  // namespace detail

/// The catalogue GPU a name denotes (canonical id, CUDA device string or alias).
/// Throws `invalid_argument` "synperf: unknown GPU 'X'; known: a100_sxm, ..." otherwise.
[[nodiscard]] inline runtime_gpu find_gpu(std::string_view name) {
    const auto& e = detail::catalogue[detail::gpu_index(name)];
    return runtime_gpu{std::string(e.name), std::string(e.display_name), *e.numbers};
}

/// The canonical id of the catalogue GPU a name denotes (id, CUDA device string or alias), or nullopt.
[[nodiscard]] constexpr std::optional<std::string_view> catalogue_id_of(std::string_view name) noexcept {
    if (const auto i = detail::find_gpu_index(name)) return detail::catalogue[*i].name;
    return std::nullopt;
}

/// Canonical ids of the built-in GPUs, in catalogue order.
[[nodiscard]] inline std::vector<std::string_view> known_gpu_names() {
    std::vector<std::string_view> out;
    out.reserve(detail::catalogue.size());
    for (const auto& e : detail::catalogue) out.push_back(e.name);
    return out;
}

/// Every built-in GPU as a `runtime_gpu`, in catalogue order.
[[nodiscard]] inline std::vector<runtime_gpu> all_gpus() {
    std::vector<runtime_gpu> out;
    out.reserve(detail::catalogue.size());
    for (const auto& e : detail::catalogue)
        out.push_back(runtime_gpu{std::string(e.name), std::string(e.display_name), *e.numbers});
    return out;
}

/// Calls `f(hana::type_c<G>)` for the built-in policy `G` a run-time name denotes and returns its
/// result; `f` must return the same type for every GPU. Throws like `find_gpu` for unknown names.
template <class F>
decltype(auto) visit_gpu(std::string_view name, F&& f) {
    static_assert(detail::same_visit_result<F>(static_cast<hw::all_gpus*>(nullptr)),
                  "synperf: visit_gpu: f must return the same type for every GPU in the catalogue");
    using result = std::invoke_result_t<F&, hana::type<std::tuple_element_t<0, hw::all_gpus>>>;
    const std::size_t index = detail::gpu_index(name);
    std::size_t i = 0;
    if constexpr (std::is_void_v<result>) {
        hana::for_each(hw::builtin_gpus, [&](auto t) {
            if (i++ == index) f(t);
        });
    } else if constexpr (std::is_reference_v<result>) {
        std::remove_reference_t<result>* out = nullptr;
        hana::for_each(hw::builtin_gpus, [&](auto t) {
            if (i++ == index) {
                auto&& r = f(t);
                out = &r;
            }
        });
        return static_cast<result>(*out);
    } else {
        std::optional<result> out;
        hana::for_each(hw::builtin_gpus, [&](auto t) {
            if (i++ == index) out.emplace(f(t));
        });
        return result(std::move(*out));
    }
}

}  // namespace synperf::gpu
