// The colour ramp: a few anchor colours, linear in RGB between them, in
// integer arithmetic so that the same count gives the same bytes anywhere.

#include "color_scale.h"

#include <algorithm>
#include <bit>

#include "absl/strings/str_format.h"

namespace biosnoop::report {
namespace {

// Light yellow, orange, red, dark purple: dark for the most, as on a
// light background the eye reads darker as more.
constexpr Rgb kRamp[] = {{0xff, 0xe6, 0x8c},
                         {0xf5, 0x9a, 0x2f},
                         {0xd0, 0x2a, 0x1e},
                         {0x4a, 0x06, 0x3c}};
constexpr int kRampSteps = static_cast<int>(std::size(kRamp)) - 1;

int FloorLog2(uint64_t v) { return 63 - std::countl_zero(v | 1); }

}  // namespace

std::string HexColor(Rgb c) {
  return absl::StrFormat("#%02x%02x%02x", c.r, c.g, c.b);
}

ColorScale::ColorScale(uint64_t max_count)
    : max_count_(std::max<uint64_t>(1, max_count)) {
  const int bits = FloorLog2(max_count_) + 1;  // levels with step 1
  step_ = (bits + kMaxLevels - 1) / kMaxLevels;
  levels_ = (bits + step_ - 1) / step_;
}

int ColorScale::Level(uint64_t count) const {
  return std::min(levels_ - 1, FloorLog2(std::max<uint64_t>(1, count)) / step_);
}

uint64_t ColorScale::Low(int level) const {
  const int shift = level * step_;
  return shift >= 64 ? UINT64_MAX : uint64_t{1} << shift;
}

uint64_t ColorScale::High(int level) const {
  if (level >= levels_ - 1) return max_count_;
  return Low(level + 1) - 1;
}

Rgb ColorScale::Color(int level) const {
  if (levels_ <= 1) return kRamp[kRampSteps];
  // Position on the ramp in 1/(levels-1) units, times kRampSteps.
  const int den = levels_ - 1;
  const int pos = level * kRampSteps;  // / den
  const int seg = std::min(kRampSteps - 1, pos / den);
  const int num = pos - seg * den;  // 0..den within segment seg
  const Rgb& a = kRamp[seg];
  const Rgb& b = kRamp[seg + 1];
  auto mix = [&](uint8_t x, uint8_t y) {
    return static_cast<uint8_t>((x * (den - num) + y * num + den / 2) / den);
  };
  return {mix(a.r, b.r), mix(a.g, b.g), mix(a.b, b.b)};
}

}  // namespace biosnoop::report
