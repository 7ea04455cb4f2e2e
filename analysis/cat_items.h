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
// pick reads all of it. nullopt when the chain leads to no cat, or a rank, an index or an item's
// size along the joined dimension is not known (a scripted model's tensors have no sizes).
std::optional<std::vector<CatItemRead>> cat_items_read(const ir::Value* picked);

}  // namespace qlint::analysis
