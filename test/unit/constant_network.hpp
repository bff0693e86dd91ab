// SPDX-License-Identifier: Apache-2.0
#pragma once
// A network of family F whose efficiency is the same for every input: predictions are the decompositions' bounds over
// it, so that a test can check a layer above the kernel layer without trained weights.
#include <cmath>
#include <memory>
#include <string>
#include <utility>

#include "synperf/mlp/network.hpp"

namespace synperf::test {

/// One sigmoid layer with zero weights and the bias that gives `efficiency`.
template <class F>
std::shared_ptr<const mlp::network> constant_network(double efficiency) {
    mlp::network n;
    n.family = std::string(F::name);
    for (auto f : F::feature_names) n.feature_names.emplace_back(f);
    mlp::categorical_input c;
    c.name = "framework";
    for (auto l : F::framework_levels) c.levels.emplace_back(l);
    n.categoricals.push_back(c);
    mlp::dense_layer l;
    l.in = n.input_width();
    l.out = 1;
    l.act = mlp::activation::sigmoid;
    l.weights.assign(l.in, 0.0f);
    l.bias.assign(1, float(std::log(efficiency / (1.0 - efficiency))));
    n.layers.push_back(l);
    return std::make_shared<const mlp::network>(std::move(n));
}

}  // namespace synperf::test
