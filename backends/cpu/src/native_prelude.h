// What every generated kernel includes first, as one header so that GCC
// precompiles it once per cache directory (native.cpp): parsing these headers
// was most of a kernel's build time.
#pragma once

#include <cstdint>

#include "native_abi.h"
#include "rill/core/semantics.h"
