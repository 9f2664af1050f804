// A headless OpenGL 4.3+ core context through EGL, with no window and no X
// server: the EGL device platform first (NVIDIA), then Mesa's surfaceless
// platform (llvmpipe in CI), then the default display.
#pragma once

#include <EGL/egl.h>

#include <string>

namespace rill::gl {

class EglContext {
public:
    explicit EglContext(bool debug);
    ~EglContext();
    EglContext(const EglContext&) = delete;
    EglContext& operator=(const EglContext&) = delete;

    /// Makes the context current on the calling thread (cheap when it already is).
    void make_current();
    /// Releases it from the calling thread, so that another thread may use it.
    void release();

    const std::string& platform() const { return platform_; }

private:
    EGLDisplay display_ = EGL_NO_DISPLAY;
    EGLContext context_ = EGL_NO_CONTEXT;
    std::string platform_;
};

}  // namespace rill::gl
