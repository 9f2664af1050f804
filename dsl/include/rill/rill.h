// rill: a portable stream runtime. Include this one header.
//
//   #include <rill/rill.h>
//
// See README.md for an overview and docs/ for the semantics and performance.
#pragma once

#include "rill/core/runtime.h"
#include "rill/dsl/control.h"
#include "rill/dsl/kernel.h"
#include "rill/dsl/builtin_reductions.h"
#include "rill/dsl/reduce.h"
#include "rill/core/stream_ops.h"
