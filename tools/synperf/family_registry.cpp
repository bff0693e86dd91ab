// SPDX-License-Identifier: Apache-2.0
// The families `synperf train` and `synperf eval` know: one registration line per family.
#include <algorithm>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include <synperf/error.hpp>

#include "synperf/family_tool.hpp"

namespace synperf::cli {

// Each family's `<name>_family_tool()` lives in its <name>_tool.cpp; listing the name here registers it.
#define SYNPERF_CLI_FAMILIES(REGISTER) \
    REGISTER(gemm)                     \
    REGISTER(attention_prefill)        \
    REGISTER(attention_decode)         \
    REGISTER(allreduce)                \
    REGISTER(gemm_fp8)                 \
    REGISTER(fp8_linear)               \
    REGISTER(moe)                      \
    REGISTER(moe_kernel)               \
    REGISTER(rmsnorm)                  \
    REGISTER(silu_mul)                 \
    REGISTER(elementwise)

#define SYNPERF_CLI_DECLARE_FAMILY(name) family_tool name##_family_tool();
#define SYNPERF_CLI_MAKE_FAMILY(name) name##_family_tool(),
SYNPERF_CLI_FAMILIES(SYNPERF_CLI_DECLARE_FAMILY)

const std::vector<family_tool>& family_tools() {
    static const std::vector<family_tool> tools{SYNPERF_CLI_FAMILIES(SYNPERF_CLI_MAKE_FAMILY)};
    return tools;
}
#undef SYNPERF_CLI_MAKE_FAMILY
#undef SYNPERF_CLI_DECLARE_FAMILY
#undef SYNPERF_CLI_FAMILIES

const family_tool& find_family_tool(std::string_view name) {
    std::string known;
    for (const auto& t : family_tools()) {
        if (t.name == name) return t;
        known += (known.empty() ? "" : ", ") + t.name;
    }
    throw invalid_argument("synperf: unknown family '" + std::string(name) + "'; known: " + known);
}

void parallel_for(std::size_t count, const std::function<void(std::size_t)>& analyze_one) {
    constexpr std::size_t workers = 2;  // the reference machine has two cores
    if (count < 1000) {
        for (std::size_t i = 0; i < count; ++i) analyze_one(i);
        return;
    }
    std::exception_ptr failure;
    std::mutex failure_lock;
    std::vector<std::thread> threads;
    for (std::size_t w = 0; w < workers; ++w)
        threads.emplace_back([&, w] {
            try {
                for (std::size_t i = w; i < count; i += workers) analyze_one(i);
            } catch (...) {
                const std::lock_guard<std::mutex> hold(failure_lock);
                if (!failure) failure = std::current_exception();
            }
        });
    for (auto& t : threads) t.join();
    if (failure) std::rethrow_exception(failure);
}

}  // namespace synperf::cli
