// SPDX-License-Identifier: Apache-2.0
#pragma once
/// \file Latency of each op of an iteration by its kernel family's predictor (decomposer -> scheduler -> features ->
/// MLP efficiency), memoized: identical ops (every layer's QKV GEMM, every decode step's GEMMs) are predicted once.
///
/// The estimator holds one predictor per family of its list that has a model; an op of a family without one is
/// refused with a clear error naming it — never replaced by a guess. Nothing here names a family: an op carries its
/// family's problem (op.hpp) and the workload builder has made every framework choice.
#include <algorithm>
#include <array>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <unordered_map>
#include <utility>
#include <variant>

#include "synperf/cost/mlp_cost.hpp"
#include "synperf/e2e/op.hpp"
#include "synperf/e2e/workload.hpp"
#include "synperf/error.hpp"
#include "synperf/family/builtin.hpp"
#include "synperf/gpu/numbers.hpp"
#include "synperf/mlp/network.hpp"
#include "synperf/predictor/predictor.hpp"

namespace synperf::e2e {

/// The efficiency model of each family of `List` (null: none available, its ops are refused).
template <class List>
struct basic_family_models {
    std::array<std::shared_ptr<const mlp::network>, List::size> networks{};

    /// The model of family F.
    template <class F>
    [[nodiscard]] std::shared_ptr<const mlp::network>& get() noexcept {
        return networks[List::template index_of<F>];
    }
    template <class F>
    [[nodiscard]] const std::shared_ptr<const mlp::network>& get() const noexcept {
        return networks[List::template index_of<F>];
    }
    /// The model of the family at position `index` of `List`.
    [[nodiscard]] const std::shared_ptr<const mlp::network>& of(std::size_t index) const { return networks.at(index); }
    /// The model slot of the family called `name` (null for a name not in `List`).
    [[nodiscard]] std::shared_ptr<const mlp::network>* slot(std::string_view name) noexcept {
        const std::optional<std::size_t> i = List::find(name);
        return i ? &networks[*i] : nullptr;
    }
};

using family_models = basic_family_models<builtin_families>;

namespace costs_detail {

/// A problem type the memo can hold: equality and a `hash_value` found next to it.
template <class P>
concept memoizable = std::equality_comparable<P> && requires(const P& p) {
    { hash_value(p) } -> std::convertible_to<std::size_t>;
};

struct problem_hash {
    template <class P>
    std::size_t operator()(const P& p) const noexcept {
        return hash_value(p);
    }
};

/// One family's predictor and, when its problems can be hashed, the latencies it has already predicted (keyed by
/// problem and framework level).
template <class F>
struct family_slot {
    using problem_type = typename F::problem_type;
    struct key {
        problem_type problem;
        std::string_view framework;
        friend bool operator==(const key&, const key&) = default;
    };
    struct key_hash {
        std::size_t operator()(const key& k) const noexcept {
            return synperf::detail::hash_fields(problem_hash{}(k.problem), k.framework);
        }
    };
    struct no_memo {};

    std::optional<runtime_predictor<F>> predictor;
    std::conditional_t<memoizable<problem_type>, std::unordered_map<key, double, key_hash>, no_memo> memo;
};

}  // namespace costs_detail

/// Predicts op latencies of families `List` on one GPU, remembering every distinct op it has seen.
template <class List>
class basic_kernel_estimator {
public:
    using op_type = basic_op<List>;
    using iteration_type = basic_iteration<List>;

    /// `g`: the GPU (per-GPU numbers; TP ranks are alike); `models`: the efficiency model of each family.
    basic_kernel_estimator(gpu::gpu_numbers g, basic_family_models<List> models)
        : g_(gpu::validate(g)), models_(std::move(models)) {
        List::for_each([this](auto family) {
            using F = typename decltype(family)::type;
            if (const auto& net = models_.template get<F>()) std::get<slot_of<F>>(slots_).predictor.emplace(g_, cost::mlp_cost(net));
        });
    }

    /// Why the family at position `index` cannot be predicted, or empty when it can.
    [[nodiscard]] std::string missing(std::size_t index) const {
        if (models_.of(index)) return {};
        return "no trained weights for the " + std::string(List::names[index]) + " family were given";
    }

    /// Throws `invalid_argument` naming every family of `it` that cannot be predicted and the ops that need it.
    void require(const iteration_type& it) const {
        std::string problems;
        std::array<bool, List::size> seen{};
        for (const op_type& o : it.ops) {
            const std::size_t f = o.family();
            if (seen[f]) continue;
            seen[f] = true;
            const std::string why = missing(f);
            if (why.empty()) continue;
            std::string users;
            for (const op_type& u : it.ops)
                if (u.family() == f && users.find(std::string(u.name)) == std::string::npos)
                    users += (users.empty() ? "" : ", ") + std::string(u.name);
            problems += (problems.empty() ? "" : "; ") + std::string(List::names[f]) + " (needed by " + users + "): " + why;
        }
        if (!problems.empty()) synperf::detail::report_error("e2e: this run cannot be predicted: " + problems);
    }

    /// Latency of one launch of `o`, in microseconds (memoized). A serving step reads every layer's weights once, far
    /// more than L2 holds, so none is still cached when its layer comes round again: an op is never faster than
    /// reading its weights from DRAM (the families' benchmark loops keep up to one L2 resident; a GPU or shape far
    /// outside their training may read as warm).
    [[nodiscard]] double latency_us(const op_type& o) {
        return List::visit(o.family(), [&](auto family) {
            using F = typename decltype(family)::type;
            const double us = family_us<F>(o);
            return o.weight_bytes > 0 ? std::max(us, o.weight_bytes / (g_.dram_gbps * 1e3)) : us;
        });
    }

    /// Distinct ops predicted so far (family pipeline runs).
    [[nodiscard]] std::size_t evaluations() const noexcept { return evaluations_; }
    /// Ops answered from the memo.
    [[nodiscard]] std::size_t hits() const noexcept { return hits_; }
    [[nodiscard]] const gpu::gpu_numbers& numbers() const noexcept { return g_; }
    [[nodiscard]] const basic_family_models<List>& models() const noexcept { return models_; }

private:
    template <class F>
    static constexpr std::size_t slot_of = List::template index_of<F>;

    template <class F>
    double family_us(const op_type& o) {
        auto& slot = std::get<slot_of<F>>(slots_);
        if (!slot.predictor) synperf::detail::report_error("e2e: cannot predict " + std::string(F::name) + ": " + missing(slot_of<F>));
        const auto& p = o.template as<F>();
        if constexpr (costs_detail::memoizable<typename F::problem_type>) {
            typename costs_detail::family_slot<F>::key key{p, o.framework};
            if (auto it = slot.memo.find(key); it != slot.memo.end()) {
                ++hits_;
                return it->second;
            }
            const double us = slot.predictor->predict(p, o.framework).latency_us;
            slot.memo.emplace(std::move(key), us);
            ++evaluations_;
            return us;
        } else {
            ++evaluations_;
            return slot.predictor->predict(p, o.framework).latency_us;
        }
    }

    template <class... F>
    static std::tuple<costs_detail::family_slot<F>...> slots_for(family::list<F...>);

    gpu::gpu_numbers g_;
    basic_family_models<List> models_;
    decltype(slots_for(List{})) slots_;
    std::size_t evaluations_ = 0;
    std::size_t hits_ = 0;
};

using kernel_estimator = basic_kernel_estimator<builtin_families>;

}  // namespace synperf::e2e
