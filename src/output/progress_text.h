#pragma once
// The progress line vqx keeps on a terminal while it scores:
//   "120/480 frames (25.0%), 35.21 FPS, ETA 0:10"   when the total is known,
//   "120 frames, 35.21 FPS"                           when it is not (a pipe, or more frames than
//                                                     the estimate said).
// The ETA is the frames left at the rate so far, as m:ss, or h:mm:ss from an hour on.
#include <cstdint>
#include <optional>
#include <string>

namespace vqx {

std::string progress_text(uint64_t done, std::optional<uint64_t> total, double seconds);

// The frames a run scores: the shorter input's count after its skip, at most `frame_cnt` (0: no
// limit), which stands in when neither input's count is known; else nullopt. Either count may be
// an estimate.
std::optional<uint64_t> frames_to_score(std::optional<uint64_t> reference, uint64_t skip_reference,
                                        std::optional<uint64_t> distorted, uint64_t skip_distorted,
                                        uint64_t frame_cnt);

}  // namespace vqx
