// SPDX-License-Identifier: Apache-2.0
// Compile-time checks of the predict commands (`family::predict_command`): every built-in family is predicted by
// one, its own or one that names it among its families, so `synperf predict` covers the whole family list.
// Compiling this file is the test; nothing here runs.
#include <type_traits>

#include "synperf/family/builtin.hpp"
#include "synperf/family/command.hpp"
#include "synperf/family/list.hpp"

namespace predict_commands_static {

using synperf::builtin_families;
using synperf::family::HasPredictCommand;
using synperf::family::predict_command;

/// Whether a command of `builtin_families` predicts family F.
template <class F>
constexpr bool predicted_by_a_command() {
    bool found = false;
    builtin_families::for_each([&found](auto type) {
        using G = typename decltype(type)::type;
        if constexpr (HasPredictCommand<G>) {
            if constexpr (requires { typename predict_command<G>::families; })
                found = found || predict_command<G>::families::template contains<F>;
            else
                found = found || std::is_same_v<F, G>;
        }
    });
    return found;
}

template <class... F>
constexpr bool all_predicted(synperf::family::list<F...>*) {
    return (predicted_by_a_command<F>() && ...);
}
static_assert(all_predicted(static_cast<builtin_families*>(nullptr)), "every built-in family has a `synperf predict` command");

static_assert(HasPredictCommand<synperf::family::silu_mul>);
static_assert(!HasPredictCommand<synperf::family::attention_decode>, "attention's command predicts both phases");

}  // namespace predict_commands_static
