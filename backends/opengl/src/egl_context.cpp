#include "egl_context.h"

#include <GL/glew.h>
#include <EGL/eglext.h>

#include <vector>

#include "rill/core/error.h"

namespace rill::gl {

namespace {

bool try_initialize(EGLDisplay d) {
    if (d == EGL_NO_DISPLAY) return false;
    EGLint major = 0, minor = 0;
    return eglInitialize(d, &major, &minor) == EGL_TRUE;
}

// Every GL function beyond 1.1 that rill calls, by name without the gl prefix.
#define RILL_GL_FUNCTIONS(X) \
    X(AttachShader) \
    X(BeginQuery) \
    X(BindBufferBase) \
    X(BlendFuncSeparate) \
    X(ClearNamedBufferData) \
    X(CompileShader) \
    X(CopyNamedBufferSubData) \
    X(CreateBuffers) \
    X(CreateProgram) \
    X(CreateShader) \
    X(DebugMessageCallback) \
    X(DeleteBuffers) \
    X(DeleteProgram) \
    X(DeleteQueries) \
    X(DeleteShader) \
    X(DispatchCompute) \
    X(EndQuery) \
    X(GenQueries) \
    X(GetInteger64v) \
    X(GetIntegeri_v) \
    X(GetNamedBufferSubData) \
    X(GetProgramBinary) \
    X(GetProgramInfoLog) \
    X(GetProgramiv) \
    X(GetQueryObjectui64v) \
    X(GetShaderInfoLog) \
    X(GetShaderiv) \
    X(GetStringi) \
    X(LinkProgram) \
    X(MemoryBarrier) \
    X(NamedBufferStorage) \
    X(NamedBufferSubData) \
    X(ProgramBinary) \
    X(ProgramParameteri) \
    X(ProgramUniform1i) \
    X(ProgramUniform1ui) \
    X(QueryCounter) \
    X(ShaderSource) \
    X(UseProgram) \
    X(CreateFramebuffers) \
    X(CreateRenderbuffers) \
    X(NamedRenderbufferStorage) \
    X(NamedFramebufferRenderbuffer) \
    X(CheckNamedFramebufferStatus) \
    X(BindFramebuffer) \
    X(ClearNamedFramebufferfv) \
    X(CreateVertexArrays) \
    X(BindVertexArray) \
    X(VertexArrayVertexBuffer) \
    X(EnableVertexArrayAttrib) \
    X(VertexArrayAttribFormat) \
    X(VertexArrayAttribBinding) \
    X(ProgramUniform1f) \
    X(ProgramUniform4f) \
    X(DeleteFramebuffers) \
    X(DeleteRenderbuffers) \
    X(DeleteVertexArrays)

/// Points GLEW's function pointers at the EGL context's own entry points.
/// Debian's GLEW is a GLX build: glewInit() fetches pointers through
/// glXGetProcAddressARB, and in a process that has not loaded the NVIDIA
/// driver through another API first (Vulkan), those GLVND stubs silently did
/// nothing on the H100 (kernels wrote no data). eglGetProcAddress returns the
/// real entry points for the current EGL context.
void load_gl_functions_through_egl() {
    std::string missing;
#define RILL_GL_LOAD(name)                                                              \
    if (void* p = reinterpret_cast<void*>(eglGetProcAddress("gl" #name)))               \
        reinterpret_cast<void*&>(__glew##name) = p;                                     \
    else                                                                                \
        missing += " gl" #name;
    RILL_GL_FUNCTIONS(RILL_GL_LOAD)
#undef RILL_GL_LOAD
    if (!missing.empty())
        throw Error("opengl backend: the driver lacks OpenGL 4.5 functions rill needs:" + missing +
                    "; use another backend");
}

}  // namespace

EglContext::EglContext(bool debug) {
    auto query_devices = reinterpret_cast<PFNEGLQUERYDEVICESEXTPROC>(eglGetProcAddress("eglQueryDevicesEXT"));
    auto platform_display = reinterpret_cast<PFNEGLGETPLATFORMDISPLAYEXTPROC>(eglGetProcAddress("eglGetPlatformDisplayEXT"));
    if (query_devices && platform_display) {
        EGLDeviceEXT devices[16];
        EGLint n = 0;
        if (query_devices(16, devices, &n) == EGL_TRUE) {
            for (EGLint i = 0; i < n && display_ == EGL_NO_DISPLAY; ++i) {
                EGLDisplay d = platform_display(EGL_PLATFORM_DEVICE_EXT, devices[i], nullptr);
                if (try_initialize(d)) {
                    display_ = d;
                    platform_ = "EGL device platform, device " + std::to_string(i);
                }
            }
        }
    }
    if (display_ == EGL_NO_DISPLAY && platform_display) {
        EGLDisplay d = platform_display(EGL_PLATFORM_SURFACELESS_MESA, EGL_DEFAULT_DISPLAY, nullptr);
        if (try_initialize(d)) {
            display_ = d;
            platform_ = "EGL surfaceless platform (Mesa)";
        }
    }
    if (display_ == EGL_NO_DISPLAY) {
        EGLDisplay d = eglGetDisplay(EGL_DEFAULT_DISPLAY);
        if (try_initialize(d)) {
            display_ = d;
            platform_ = "EGL default display";
        }
    }
    if (display_ == EGL_NO_DISPLAY)
        throw Error("opengl backend: no EGL display could be initialized (tried the device platform, Mesa's "
                    "surfaceless platform and the default display); install an EGL driver (Debian: libegl-mesa0 "
                    "libgl1-mesa-dri) or use another backend");
    if (eglBindAPI(EGL_OPENGL_API) != EGL_TRUE)
        throw Error("opengl backend: the EGL display does not offer desktop OpenGL");

    const EGLint config_attribs[] = {EGL_RENDERABLE_TYPE, EGL_OPENGL_BIT, EGL_NONE};
    EGLConfig config = nullptr;
    EGLint nconfig = 0;
    eglChooseConfig(display_, config_attribs, &config, 1, &nconfig);
    for (int minor : {6, 5, 4, 3}) {
        const EGLint ctx_attribs[] = {EGL_CONTEXT_MAJOR_VERSION, 4,
                                      EGL_CONTEXT_MINOR_VERSION, minor,
                                      EGL_CONTEXT_OPENGL_PROFILE_MASK, EGL_CONTEXT_OPENGL_CORE_PROFILE_BIT,
                                      EGL_CONTEXT_OPENGL_DEBUG, debug ? EGL_TRUE : EGL_FALSE,
                                      EGL_NONE};
        context_ = eglCreateContext(display_, nconfig > 0 ? config : EGL_NO_CONFIG_KHR, EGL_NO_CONTEXT, ctx_attribs);
        if (context_ != EGL_NO_CONTEXT) break;
    }
    if (context_ == EGL_NO_CONTEXT)
        throw Error("opengl backend: the driver offers no OpenGL 4.3+ core context (compute shaders need 4.3) on " +
                    platform_);
    if (eglMakeCurrent(display_, EGL_NO_SURFACE, EGL_NO_SURFACE, context_) != EGL_TRUE)
        throw Error("opengl backend: cannot make a surfaceless context current (EGL_KHR_surfaceless_context missing?)");
    glewExperimental = GL_TRUE;
    const GLenum glew = glewInit();
    // Debian's GLEW is built for GLX: with an EGL context it loads every GL entry
    // point and then reports GLEW_ERROR_NO_GLX_DISPLAY (4), which is harmless here.
    if (glew != GLEW_OK && glew != 4u)
        throw Error("opengl backend: GLEW could not load the OpenGL functions (error " + std::to_string(glew) + ")");
    load_gl_functions_through_egl();
    if (!glDispatchCompute)
        throw Error("opengl backend: the OpenGL driver has no compute shaders (glDispatchCompute missing)");
}

EglContext::~EglContext() {
    if (display_ != EGL_NO_DISPLAY) {
        eglMakeCurrent(display_, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
        if (context_ != EGL_NO_CONTEXT) eglDestroyContext(display_, context_);
        // The display is not terminated: other contexts of the process may share it.
    }
}

void EglContext::make_current() {
    if (eglGetCurrentContext() == context_) return;
    if (eglMakeCurrent(display_, EGL_NO_SURFACE, EGL_NO_SURFACE, context_) != EGL_TRUE)
        throw Error("opengl backend: cannot make the context current on this thread; it is current on another "
                    "thread: call finish() there first (a GL runtime is used by one thread at a time)");
}

void EglContext::release() {
    if (eglGetCurrentContext() == context_) eglMakeCurrent(display_, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
}

}  // namespace rill::gl
