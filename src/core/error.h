#pragma once
// Errors that reach the user. Every message is one line and says what was wrong and where.
#include <stdexcept>
#include <string>

namespace vqx {

// A malformed command line or option string: the CLI prints it with a usage hint, exit status 1.
class UsageError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Input that cannot be scored (unreadable, malformed, mismatched, too small...): exit status 2.
class InputError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// A failure of the machine rather than the input (device unavailable, out of memory): exit status 3.
class RuntimeFailure : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace vqx
