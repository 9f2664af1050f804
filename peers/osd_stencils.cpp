#include "osd_stencils.h"

#include <EGL/egl.h>
#include <EGL/eglext.h>
#include <dlfcn.h>
#include <elf.h>
#include <link.h>
#include <opensubdiv/far/stencilTableFactory.h>
#include <opensubdiv/osd/glComputeEvaluator.h>
#include <opensubdiv/osd/ompEvaluator.h>

#include <cctype>
#include <cstring>
#include <fstream>
#include <iterator>
#include <stdexcept>

#include "osd_refiner.h"

namespace OpenSubdiv::internal::GLLoader {
void libraryInitializeGL();  // libosdGPU's loader of its GL entry points (not in the installed headers)
}

namespace rill::peers {

namespace {

using namespace OpenSubdiv;

struct Library {
    std::string path;
    ElfW(Addr) base = 0;
};

Library loaded_osd_gpu() {
    Library lib;
    dl_iterate_phdr(
        [](dl_phdr_info* info, std::size_t, void* out) {
            if (!info->dlpi_name || !std::strstr(info->dlpi_name, "libosdGPU")) return 0;
            *static_cast<Library*>(out) = {info->dlpi_name, info->dlpi_addr};
            return 1;
        },
        &lib);
    return lib;
}

/// Points libosdGPU's GL function pointers (OpenSubdiv::internal::GLApi::gl*,
/// exported data) at the current EGL context's entry points. OpenSubdiv
/// loads them once, through libGL's glXGetProcAddressARB; those GLVND stubs
/// did nothing on NVIDIA where no other API had loaded the driver first
/// (rill's OpenGL backend loads its own through eglGetProcAddress for that
/// reason: backends/opengl/src/egl_context.cpp). The names come from the
/// library's dynamic symbol table.
void point_osd_gl_at_egl() {
    ::OpenSubdiv::internal::GLLoader::libraryInitializeGL();  // loads once; the evaluator's own calls return at once after
    const Library lib = loaded_osd_gpu();
    if (lib.path.empty()) throw std::runtime_error("libosdGPU is not loaded");
    std::ifstream file(lib.path, std::ios::binary);
    const std::vector<char> elf{std::istreambuf_iterator<char>(file), std::istreambuf_iterator<char>()};
    const auto* header = reinterpret_cast<const ElfW(Ehdr)*>(elf.data());
    if (elf.size() < sizeof(ElfW(Ehdr)) || std::memcmp(header->e_ident, ELFMAG, SELFMAG) != 0)
        throw std::runtime_error("cannot read " + lib.path);
    const auto* sections = reinterpret_cast<const ElfW(Shdr)*>(elf.data() + header->e_shoff);
    const std::string prefix = "_ZN10OpenSubdiv8internal5GLApi";
    int pointed = 0;
    for (int s = 0; s < header->e_shnum; ++s) {
        if (sections[s].sh_type != SHT_DYNSYM) continue;
        const auto* symbols = reinterpret_cast<const ElfW(Sym)*>(elf.data() + sections[s].sh_offset);
        const char* names = elf.data() + sections[sections[s].sh_link].sh_offset;
        for (std::size_t i = 0; i < sections[s].sh_size / sizeof(ElfW(Sym)); ++i) {
            const ElfW(Sym)& sym = symbols[i];
            const std::string name = names + sym.st_name;
            if (ELF64_ST_TYPE(sym.st_info) != STT_OBJECT || sym.st_shndx == SHN_UNDEF || name.rfind(prefix, 0) != 0) continue;
            std::size_t at = prefix.size(), length = 0;
            while (at < name.size() && std::isdigit(static_cast<unsigned char>(name[at]))) length = length * 10 + (name[at++] - '0');
            const std::string function = name.substr(at, length);
            if (function.size() < 3 || function.rfind("gl", 0) != 0 || !std::isupper(static_cast<unsigned char>(function[2])))
                continue;
            if (void* p = reinterpret_cast<void*>(eglGetProcAddress(function.c_str()))) {
                *reinterpret_cast<void**>(lib.base + sym.st_value) = p;
                ++pointed;
            }
        }
    }
    if (pointed == 0) throw std::runtime_error("found no GL function pointers in " + lib.path);
}

template <class F>
F gl_function(const char* name) {
    auto f = reinterpret_cast<F>(eglGetProcAddress(name));
    if (!f) throw std::runtime_error(std::string("the driver lacks ") + name);
    return f;
}

}  // namespace

struct OsdStencils::Impl {
    std::vector<float> cage;  // x, y, z per control vertex
    std::unique_ptr<const Far::StencilTable> stencils;

    EGLDisplay display = EGL_NO_DISPLAY;
    EGLContext context = EGL_NO_CONTEXT;
    PFNGLCREATEBUFFERSPROC create_buffers = nullptr;
    PFNGLNAMEDBUFFERSTORAGEPROC buffer_storage = nullptr;
    PFNGLGETNAMEDBUFFERSUBDATAPROC read_buffer = nullptr;
    PFNGLDELETEBUFFERSPROC delete_buffers = nullptr;
    void (*finish)() = nullptr;
    GLuint source = 0, destination = 0;
    std::unique_ptr<Osd::GLStencilTableSSBO> gl_stencils;
    std::unique_ptr<Osd::GLComputeEvaluator> evaluator;

    void make_current() const {
        if (eglMakeCurrent(display, EGL_NO_SURFACE, EGL_NO_SURFACE, context) != EGL_TRUE)
            throw std::runtime_error("OsdStencils: cannot make its EGL context current");
    }
    int count() const { return stencils->GetNumStencils(); }

    ~Impl() {
        if (context == EGL_NO_CONTEXT) return;
        make_current();
        evaluator.reset();
        gl_stencils.reset();
        const GLuint buffers[2] = {source, destination};
        if (delete_buffers) delete_buffers(2, buffers);
        eglMakeCurrent(display, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
        eglDestroyContext(display, context);
    }
};

OsdStencils::OsdStencils(const std::vector<std::array<float, 4>>& vertices,
                         const std::vector<std::array<std::int32_t, 4>>& faces, int level)
    : impl_(std::make_unique<Impl>()) {
    for (const auto& v : vertices) impl_->cage.insert(impl_->cage.end(), {v[0], v[1], v[2]});
    const std::unique_ptr<Far::TopologyRefiner> refiner = loop_refiner(vertices.size(), faces);
    refiner->RefineUniform(Far::TopologyRefiner::UniformOptions(level));
    Far::StencilTableFactory::Options options;
    options.generateIntermediateLevels = false;  // the last level only, each stencil from the cage
    options.factorizeIntermediateLevels = true;
    options.generateOffsets = true;
    impl_->stencils.reset(Far::StencilTableFactory::Create(*refiner, options));
}

OsdStencils::~OsdStencils() = default;

std::size_t OsdStencils::vertex_count() const { return static_cast<std::size_t>(impl_->count()); }
std::size_t OsdStencils::weight_count() const { return impl_->stencils->GetWeights().size(); }

std::vector<std::array<float, 3>> OsdStencils::evaluate_cpu() {
    const Far::StencilTable& t = *impl_->stencils;
    std::vector<std::array<float, 3>> out(vertex_count());
    const Osd::BufferDescriptor desc(0, 3, 3);
    Osd::OmpEvaluator::EvalStencils(impl_->cage.data(), desc, out.data()->data(), desc, t.GetSizes().data(), t.GetOffsets().data(),
                                    t.GetControlIndices().data(), t.GetWeights().data(), 0, impl_->count());
    return out;
}

bool OsdStencils::open_gl(std::string& why) {
    Impl& m = *impl_;
    auto query_devices = reinterpret_cast<PFNEGLQUERYDEVICESEXTPROC>(eglGetProcAddress("eglQueryDevicesEXT"));
    auto platform_display = reinterpret_cast<PFNEGLGETPLATFORMDISPLAYEXTPROC>(eglGetProcAddress("eglGetPlatformDisplayEXT"));
    if (!platform_display) {
        why = "no eglGetPlatformDisplayEXT";
        return false;
    }
    EGLDeviceEXT devices[16];
    EGLint n = 0;
    if (query_devices && query_devices(16, devices, &n) == EGL_TRUE)
        for (EGLint i = 0; i < n && m.display == EGL_NO_DISPLAY; ++i) {
            EGLDisplay d = platform_display(EGL_PLATFORM_DEVICE_EXT, devices[i], nullptr);
            if (d != EGL_NO_DISPLAY && eglInitialize(d, nullptr, nullptr) == EGL_TRUE) m.display = d;
        }
    if (m.display == EGL_NO_DISPLAY) {
        EGLDisplay d = platform_display(EGL_PLATFORM_SURFACELESS_MESA, EGL_DEFAULT_DISPLAY, nullptr);
        if (d != EGL_NO_DISPLAY && eglInitialize(d, nullptr, nullptr) == EGL_TRUE) m.display = d;
    }
    if (m.display == EGL_NO_DISPLAY || eglBindAPI(EGL_OPENGL_API) != EGL_TRUE) {
        why = "no EGL display with desktop OpenGL";
        return false;
    }
    const EGLint attributes[] = {EGL_CONTEXT_MAJOR_VERSION, 4, EGL_CONTEXT_MINOR_VERSION, 3, EGL_CONTEXT_OPENGL_PROFILE_MASK,
                                 EGL_CONTEXT_OPENGL_CORE_PROFILE_BIT, EGL_NONE};
    m.context = eglCreateContext(m.display, EGL_NO_CONFIG_KHR, EGL_NO_CONTEXT, attributes);
    if (m.context == EGL_NO_CONTEXT) {
        why = "no OpenGL 4.3 core context";
        return false;
    }
    try {
        m.make_current();
        point_osd_gl_at_egl();
        m.create_buffers = gl_function<PFNGLCREATEBUFFERSPROC>("glCreateBuffers");
        m.buffer_storage = gl_function<PFNGLNAMEDBUFFERSTORAGEPROC>("glNamedBufferStorage");
        m.read_buffer = gl_function<PFNGLGETNAMEDBUFFERSUBDATAPROC>("glGetNamedBufferSubData");
        m.delete_buffers = gl_function<PFNGLDELETEBUFFERSPROC>("glDeleteBuffers");
        m.finish = gl_function<void (*)()>("glFinish");
        m.create_buffers(1, &m.source);
        m.buffer_storage(m.source, static_cast<GLsizeiptr>(m.cage.size() * sizeof(float)), m.cage.data(), 0);
        m.create_buffers(1, &m.destination);
        m.buffer_storage(m.destination, static_cast<GLsizeiptr>(vertex_count() * 3 * sizeof(float)), nullptr, 0);
        m.gl_stencils.reset(Osd::GLStencilTableSSBO::Create(m.stencils.get()));
        const Osd::BufferDescriptor desc(0, 3, 3);
        m.evaluator.reset(Osd::GLComputeEvaluator::Create(desc, desc, Osd::BufferDescriptor(), Osd::BufferDescriptor()));
        if (!m.evaluator) {
            why = "OpenSubdiv's compute shader did not compile";
            return false;
        }
        m.finish();
    } catch (const std::exception& e) {
        why = e.what();
        return false;
    }
    return true;
}

void OsdStencils::evaluate_gl() {
    Impl& m = *impl_;
    m.make_current();
    const Osd::BufferDescriptor desc(0, 3, 3), none;
    const Osd::GLStencilTableSSBO& t = *m.gl_stencils;
    if (!m.evaluator->EvalStencils(m.source, desc, m.destination, desc, 0, none, 0, none, t.GetSizesBuffer(), t.GetOffsetsBuffer(),
                                   t.GetIndicesBuffer(), t.GetWeightsBuffer(), 0, 0, 0, m.count()))
        throw std::runtime_error("Osd::GLComputeEvaluator::EvalStencils failed");
    m.finish();
}

std::vector<std::array<float, 3>> OsdStencils::gl_positions() {
    Impl& m = *impl_;
    m.make_current();
    std::vector<std::array<float, 3>> out(vertex_count());
    m.read_buffer(m.destination, 0, static_cast<GLsizeiptr>(out.size() * 3 * sizeof(float)), out.data()->data());
    return out;
}

}  // namespace rill::peers
