// SPDX-License-Identifier: Apache-2.0
// A family of one's own in one header (examples/layernorm/layernorm_family.hpp) plus one line, the list that holds it,
// seen by every layer written over a family list: training sources, the end-to-end estimator and its iterations.
#include <doctest/doctest.h>

#if SYNPERF_HAVE_XTENSOR
#include <cmath>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <synperf/e2e.hpp>
#include <synperf/gpu/registry.hpp>
#include <synperf/predictor/analyze.hpp>
#include <synperf/system/catalogue.hpp>
#include <synperf/train/builtin_sources.hpp>
#include <synperf/train/source.hpp>

#include "constant_network.hpp"
#include "layernorm/layernorm_family.hpp"

namespace {

using namespace synperf;

/// The one line: the built-in families and LayerNorm.
using with_layernorm = builtin_families::append<my::layernorm>;

template <class List>
e2e::basic_family_models<List> half_efficiency_models() {
    e2e::basic_family_models<List> m;
    List::for_each([&m](auto f) {
        using F = typename decltype(f)::type;
        m.template get<F>() = synperf::test::constant_network<F>(0.5);
    });
    return m;
}

/// Every RMSNorm of an iteration run as a LayerNorm of the same shape (a model with LayerNorm layers).
void norms_as_layernorm(e2e::basic_iteration<with_layernorm>& it) {
    for (auto& o : it.ops)
        if (o.is<family::rmsnorm>()) {
            const auto& p = o.as<family::rmsnorm>();
            o = e2e::make_op<my::layernorm, with_layernorm>(o.name, my::layernorm_problem{p.tokens, p.hidden}, o.count, "torch");
        }
}

}  // namespace

TEST_CASE("own family: the extended list names it and finds its training source from its type") {
    static_assert(with_layernorm::size == builtin_families::size + 1);
    static_assert(with_layernorm::index_of<my::layernorm> == builtin_families::size);
    CHECK(with_layernorm::find("layernorm") == builtin_families::size);
    const std::vector<train::family_source> sources = train::sources_of<with_layernorm>();
    REQUIRE(sources.size() == with_layernorm::size);
    CHECK(sources.back().name == "layernorm");
    CHECK(sources.back().leave_one_out);
    CHECK(sources.back().feature_names.size() == my::layernorm::feature_names.size());
}

TEST_CASE("own family: mapped to an op, it is priced in every iteration of an end-to-end run") {
    const auto g = gpu::find_gpu("h100_sxm").numbers;
    e2e::run_request r;
    r.model = e2e::find_model("llama-3.1-8b");
    r.deploy.tp = 2;
    r.deploy.node = system::builtin_system("h100_sxm");
    r.prompt_lens = {512, 900};
    r.decode_steps = 3;

    // The extended list alone changes nothing: the same run, bit for bit.
    e2e::kernel_estimator builtin(g, half_efficiency_models<builtin_families>());
    e2e::basic_kernel_estimator<with_layernorm> extended(g, half_efficiency_models<with_layernorm>());
    CHECK(e2e::run(r, extended).total_ms == e2e::run(r, builtin).total_ms);

    e2e::basic_kernel_estimator<with_layernorm> est(g, half_efficiency_models<with_layernorm>());
    const e2e::run_result res = e2e::run(r, est, norms_as_layernorm);
    constexpr std::size_t layernorm = with_layernorm::index_of<my::layernorm>;
    constexpr std::size_t rmsnorm = with_layernorm::index_of<family::rmsnorm>;
    for (const e2e::iteration_time* t : {&res.prefill, &res.first_decode, &res.last_decode}) {
        CHECK(t->launches_of(layernorm) == 2 * r.model.layers + 1);  // input, post-attention and final norms
        CHECK(t->launches_of(rmsnorm) == 0);
        CHECK(t->family_us[layernorm] > 0);
    }
    // Each launch is the family's own prediction: its bound over the 0.5 efficiency of the model given.
    const e2e::op_time* input_norm = nullptr;
    for (const auto& o : res.prefill.ops)
        if (o.name == "input_norm") input_norm = &o;
    REQUIRE(input_norm != nullptr);
    CHECK(input_norm->family_name == "layernorm");
    const double bound = synperf::analyze<my::layernorm>(my::layernorm_problem{1412, r.model.hidden}, g).theoretical_us;
    CHECK(input_norm->latency_us == doctest::Approx(2.0 * bound));

    // Without a model for it, the run is refused naming the family and its ops.
    auto no_layernorm = half_efficiency_models<with_layernorm>();
    no_layernorm.get<my::layernorm>().reset();
    e2e::basic_kernel_estimator<with_layernorm> refusing(g, no_layernorm);
    CHECK_THROWS_WITH_AS((void)e2e::run(r, refusing, norms_as_layernorm), doctest::Contains("layernorm (needed by input_norm"),
                         invalid_argument);
}
#endif
