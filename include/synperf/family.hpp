// SPDX-License-Identifier: Apache-2.0
#pragma once
/// \file Kernel families: the KernelFamily concept, family lists and the built-in families.

#include "synperf/family/builtin.hpp"
#include "synperf/family/concept.hpp"
#include "synperf/family/list.hpp"
