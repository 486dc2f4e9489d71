#pragma once
// A Y4M reader for throughput: each frame's samples are read with several pread() calls in
// parallel, straight into the caller's Picture (pinned host memory when the CUDA backend reads).
// Same accepted inputs and messages as open_y4m (it parses the header through it).
#include <memory>
#include <string>

#include "io/readers.h"

namespace vqx {

// `threads` concurrent reads per frame (1 reads in the calling thread only). Regular files only.
std::unique_ptr<FrameSource> open_y4m_parallel(const std::string& path, const std::string& name,
                                               unsigned threads);

}  // namespace vqx
