#pragma once

// Never worse (README): whether the simulation of a fixed model is worse than the original's,
// and what a rewrite did better. LibTorch-free, so the judgement is unit-tested on reports.

#include <string>
#include <vector>

#include "sim/report.h"

namespace qlint::rewriter {

// What the simulation of the fixed model says is worse than the original's: an output whose
// SQNR fell by more than 1 dB (unless it stays within one bit of the format's ideal) or under
// `min_sqnr_db`, whose shape now differs or that became NaN, and a comparison site (a line's
// copies in an unrolled loop together) where a larger share of results differs. Empty when
// nothing is worse.
std::vector<std::string> harm_done(const sim::Report& before, const sim::Report& after, double min_sqnr_db);

// What the fixed model does better: outputs that gained more than 1 dB, comparison sites where
// a smaller share of results differs ("`!=` on line 54 flips 0 of 5120 results instead of 220
// of 5120"). A dropped rewrite's gain is a trade the user may still make in the Python model.
std::vector<std::string> gain_made(const sim::Report& before, const sim::Report& after);

// Why an output whose SQNR the fix lowered is not harm: "within the 1 dB a new quant point may
// cost", "within one bit of int16's ideal 92.1 dB". Empty when the SQNR is not lower (or the loss
// is harm), so the summary can say what it kept instead of showing a loss without a word (public
// round 21: Social-STGCNN 13.8 -> 13.4 dB, listed as "Resolved" with no mention of the loss).
std::string why_a_lower_sqnr_is_kept(const sim::SqnrChange& sqnr, int bits);

}  // namespace qlint::rewriter
