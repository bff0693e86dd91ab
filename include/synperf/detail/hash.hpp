// SPDX-License-Identifier: Apache-2.0
#pragma once
/// \file `hash_fields`: one hash of a problem's fields, so that callers who predict the same problem many times (the
/// end-to-end estimator's memo) can find it again. A problem type opts in with a `hash_value(const P&)` friend next
/// to its defaulted `operator==`.
#include <bit>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <string_view>
#include <type_traits>

namespace synperf::detail {

/// Mixes one field into a running FNV-1a hash.
[[nodiscard]] constexpr std::uint64_t hash_mix(std::uint64_t h, std::uint64_t x) noexcept {
    return (h ^ x) * 1099511628211ull;
}

template <class T>
[[nodiscard]] constexpr std::uint64_t hash_word(const T& x) noexcept {
    if constexpr (std::is_enum_v<T>) {
        return static_cast<std::uint64_t>(x);
    } else if constexpr (std::same_as<T, double>) {
        return x == 0.0 ? 0 : std::bit_cast<std::uint64_t>(x);  // +0 and -0 compare equal, so they hash alike
    } else if constexpr (std::convertible_to<const T&, std::string_view> && !std::is_arithmetic_v<T>) {
        std::uint64_t h = 1469598103934665603ull;
        for (char c : std::string_view(x)) h = hash_mix(h, static_cast<unsigned char>(c));
        return h;
    } else {
        static_assert(std::is_integral_v<T>, "hash_fields: hash integers, enums, doubles or strings");
        return static_cast<std::uint64_t>(x);
    }
}

/// A hash of the given fields, in order.
template <class... T>
[[nodiscard]] constexpr std::size_t hash_fields(const T&... fields) noexcept {
    std::uint64_t h = 1469598103934665603ull;
    ((h = hash_mix(h, hash_word(fields))), ...);
    return static_cast<std::size_t>(h);
}

}  // namespace synperf::detail
