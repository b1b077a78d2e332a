#pragma once

// The heat map's colours: a cell's count on a log scale, in at most
// kMaxLevels steps, each step a range of counts [Low(l), High(l)] with a
// colour from light yellow (few) through orange and red to dark purple
// (most).  Empty cells are not coloured: they show kBackground.

#include <cstdint>
#include <string>

namespace biosnoop::report {

struct Rgb {
  uint8_t r = 0, g = 0, b = 0;
  bool operator==(const Rgb&) const = default;
};

// "#rrggbb".
std::string HexColor(Rgb c);

// The grid behind the cells: an empty cell.
inline constexpr Rgb kBackground = {0xf2, 0xf2, 0xf2};

class ColorScale {
 public:
  static constexpr int kMaxLevels = 10;

  // For counts from 1 to `max_count` (>= 1).  Level l holds the counts in
  // [2^(l*step), 2^((l+1)*step) - 1], step being the smallest power count
  // that needs at most kMaxLevels levels.
  explicit ColorScale(uint64_t max_count);

  int levels() const { return levels_; }
  // The level of a count >= 1.
  int Level(uint64_t count) const;
  uint64_t Low(int level) const;
  uint64_t High(int level) const;  // the last level's is max_count
  // The colour of a level: the ramp from its first to its last colour,
  // evenly over the levels (one level: the last colour).
  Rgb Color(int level) const;

 private:
  uint64_t max_count_;
  int step_;
  int levels_;
};

}  // namespace biosnoop::report
