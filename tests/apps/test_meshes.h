// Where the app tests find the test meshes: $RILL_TEST_MESHES when set (a GPU machine
// whose checkout has no ../shared), else ../shared/data/meshes beside the source tree.
// The meshes stay outside the repository; tests that need them skip, saying where they looked.
#pragma once

#include <cstdlib>
#include <filesystem>

namespace test_meshes {

inline std::filesystem::path dir() {
    if (const char* d = std::getenv("RILL_TEST_MESHES"); d && *d) return d;
    return RILL_TEST_MESHES;
}

}  // namespace test_meshes
