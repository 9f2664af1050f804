#include "images.h"

#include <algorithm>
#include <cmath>

#include <rill/rill.h>

// Private copies (static): other libraries of a program may link stb too.
#define STB_IMAGE_STATIC
#define STB_IMAGE_IMPLEMENTATION
#include <stb/stb_image.h>
#define STB_IMAGE_WRITE_STATIC
#define STB_IMAGE_WRITE_IMPLEMENTATION
#include <stb/stb_image_write.h>

namespace app_images {

Image read_png(const std::string& program, const std::string& path) {
    int w = 0, h = 0, n = 0;
    stbi_us* data = stbi_load_16(path.c_str(), &w, &h, &n, 0);  // 8-bit files are widened to 16
    if (!data)
        throw rill::Error(program + ": cannot read '" + path + "' as a PNG (" + stbi_failure_reason() +
                          "); pass an 8- or 16-bit grey or RGB PNG, or no file for the procedural image");
    const int channels = n >= 3 ? 3 : 1;
    Image img{channels, w, h, std::vector<float>(static_cast<std::size_t>(channels) * w * h)};
    for (int c = 0; c < channels; ++c)
        for (std::size_t i = 0; i < static_cast<std::size_t>(w) * h; ++i)
            img.pixels[c * static_cast<std::size_t>(w) * h + i] = data[i * n + c] / 65535.0f;
    stbi_image_free(data);
    return img;
}

void write_png(const std::string& program, const std::string& path, const Image& image) {
    const std::size_t plane = static_cast<std::size_t>(image.width) * image.height;
    const int comp = image.channels >= 3 ? 3 : 1;
    std::vector<unsigned char> bytes(plane * comp);
    for (std::size_t i = 0; i < plane; ++i)
        for (int c = 0; c < comp; ++c)
            bytes[i * comp + c] = static_cast<unsigned char>(std::lround(255.0f * std::clamp(image.pixels[c * plane + i], 0.0f, 1.0f)));
    if (!stbi_write_png(path.c_str(), image.width, image.height, comp, bytes.data(), image.width * comp))
        throw rill::Error(program + ": cannot write '" + path + "'; check that the directory exists and is writable");
}

}  // namespace app_images
