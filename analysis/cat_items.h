// Which items of a `torch.cat` a pick of its result reads: a detection head joins its branches
// along the channels, `torch.cat([reg, obj.sigmoid(), cls.sigmoid()], 1)`, flattens and permutes
// them, and reads the objectness at `out[..., 4]`. That channel is the objectness branch's alone,
// not a part of every branch (YOLOX).
#pragma once

#include <optional>
#include <vector>

#include "ir/ir.h"

namespace qlint::analysis {

struct CatItemRead {
  const ir::Value* item = nullptr;
  bool whole = false;  // the pick reads all of the item along the joined dimension
};

// The items of the `aten::cat` that `picked` is a pick of, through selects and slices of one
// dimension and the ops that only move dimensions (permute, transpose, flatten of other
// dimensions, unsqueeze, contiguous, casts and elementwise functions), each with whether the
// pick reads all of it. nullopt when the chain leads to no cat, or an index or an item's size
// along the joined dimension is not known (a scripted model's tensors have no sizes). Sizes come
// from the front end, or from the ops that made an item where they fix them (C++ code has no
// sizes: `x.select(1, k).unsqueeze(1)`, `std::get<0>(torch::max(x, 1, true))` and
// `x.slice(1, 0, 4)` are 1, 1 and 4 wide along dimension 1), also through a function of the
// file that returns a value of such a size (`to_corners(x.slice(1, 0, 4))`).
std::optional<std::vector<CatItemRead>> cat_items_read(const ir::Model& model, const ir::Value* picked);

// The same items, when they are all the pick holds: nothing writes into the cat's result in
// place (`det.select(1, 5).fill_(0)`, `out[..., :2] = xy`), which could put other values there.
std::optional<std::vector<CatItemRead>> cat_items_holding(const ir::Model& model, const ir::Value* picked);

}  // namespace qlint::analysis
