// Images as float planes, read from and written to PNG files: what the apps
// that take an image (rill-fft, rill-segment) share.
#pragma once

#include <string>
#include <vector>

namespace app_images {

/// channels x height x width floats, row-major, values about 0 .. 1.
struct Image {
    int channels = 0, width = 0, height = 0;
    std::vector<float> pixels;
};

/// Reads an 8- or 16-bit grey or RGB(A) PNG (alpha dropped) as floats 0 .. 1.
/// `program` names the caller in the rill::Error an unreadable file raises.
Image read_png(const std::string& program, const std::string& path);
/// Writes channels 1 or 3 of floats 0 .. 1 (clamped) as an 8-bit PNG.
void write_png(const std::string& program, const std::string& path, const Image& image);

}  // namespace app_images
