#pragma once
// Writing a results file so that nobody ever finds a partial one under its name: the bytes go to a
// temporary file beside the destination (hidden, named after it, ending in .tmp), which replaces
// the destination only once every byte is written and the file is closed. A failed write (a full
// disk, a file-size limit) leaves the destination as it was and removes the temporary file.
// Destinations that are not regular files (a FIFO, /dev/stdout, /dev/full) are written in place.
#include <functional>
#include <ostream>
#include <string>

namespace vqx {

// Throws RuntimeFailure naming the path and the system's reason.
void write_output_file(const std::string& path, const std::function<void(std::ostream&)>& write);

}  // namespace vqx
