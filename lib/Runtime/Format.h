// Message formatting for the runtime's error paths (never on the hot path).
#ifndef FUSION_LIB_RUNTIME_FORMAT_H
#define FUSION_LIB_RUNTIME_FORMAT_H

#include <sstream>
#include <string>

namespace fusion::runtime {

/// Streams every argument into one string: concat("dim ", 1, " expected").
template <typename... Ts> std::string concat(const Ts &...parts) {
  std::ostringstream os;
  (os << ... << parts);
  return os.str();
}

} // namespace fusion::runtime

#endif // FUSION_LIB_RUNTIME_FORMAT_H
