#include "rewriter/never_worse.h"

#include <cmath>
#include <map>
#include <tuple>

#include "ir/ops.h"

namespace qlint::rewriter {

namespace {

// An output may lose this much SQNR to a fix (see README, "Never worse"): what a new quant point
// costs a value the original simulation left in float, or what moves when a decision is taken
// on float values (public round 27: a knn rerooted onto float features, its neighbours now
// float's, outputs 0.5 dB lower). The summary states the allowance, not one of those reasons,
// which it does not tell apart (it said "a new quant point may cost" of a rewrite adding none).
constexpr double kSqnrSlackDb = 1.0;

// The SQNR of an ideal quantizer of `bits` bits on a full-range signal.
double ideal_sqnr_db(int bits) { return 6.02 * bits + 1.76; }

// An output within one bit of the format's ideal SQNR (6.02 dB per bit + 1.76 dB: int16 92.1 dB,
// int8 43.9 dB after that bit) is as exact as the format allows: it has lost nothing an
// accelerator could keep, however far above that the original was. Such a margin comes from
// values the original's simulation left in float, which the accelerator cannot do (a decoder's
// cell indices: 137 dB, then 101 dB with their own int16 stubs; a 0/1 mask's own int16 stub
// rounds 1 to 0.99997). Before, a loss of up to 10 dB was allowed there and none at the ideal
// itself, so a second --fix kept what the first had dropped (137 -> 96.6 dB was dropped, then
// 101.3 -> 96.5 kept): the verdict depended on how often --fix ran.
bool as_exact_as_the_format(double after_db, int bits) { return after_db >= ideal_sqnr_db(bits - 1); }

// A comparison's place in the source. A trace unrolls a loop into one comparison per iteration
// at the same line (`box_cls > thresh` for each FPN level), so flips are counted per site.
struct ComparisonSite {
  std::string kind, file;
  int line = 0, column = 0;
  bool integer_result = false;
  bool operator<(const ComparisonSite& o) const {
    return std::tie(kind, file, line, column) < std::tie(o.kind, o.file, o.line, o.column);
  }
};

// Per site: the results that differ from float, those compared, and the runs not compared
// (their result had another shape than float's).
struct SiteFlips {
  int64_t differing = 0, elements = 0, runs_not_compared = 0;
  // Reached, but no run compared: there is nothing to judge a count after the fix against
  // (public round 19's YOLOv3: NMS on 405 rows against float's 407 before, "0 of 0"; the fix let
  // 407 through and 43 of 281 indices shifted, which dropped it as harm).
  bool never_compared() const { return elements == 0 && runs_not_compared > 0; }
};

std::map<ComparisonSite, SiteFlips> flips_per_site(const sim::Report& report) {
  std::map<ComparisonSite, SiteFlips> flips;
  for (const auto& c : report.comparisons) {
    SiteFlips& site = flips[{c.kind, c.loc.file, c.loc.line, c.loc.column, c.integer_result}];
    site.differing += c.differing;
    site.elements += c.elements;
    site.runs_not_compared += c.runs_not_compared;
  }
  return flips;
}

// More results differ, and a larger share of those compared. A fix can make more runs comparable
// (a threshold it repairs lets as many rows through as float, so the next op's results can be
// paired with float's again): more differ then, but not more often (SSD's per-class sort: 6 of
// 17 before, 8 of 30 after, was dropped as harm).
bool flips_more(const SiteFlips& before, const SiteFlips& after) {
  if (after.differing <= before.differing) return false;
  if (before.elements == 0 || after.elements == before.elements) return true;
  return static_cast<double>(after.differing) / static_cast<double>(after.elements) >
         static_cast<double>(before.differing) / static_cast<double>(before.elements);
}

// "`!=` on line 54 flips 0 of 5120 results instead of 220 of 5120".
std::string site_change(const ComparisonSite& site, const SiteFlips& now, const SiteFlips& was) {
  return "`" + ir::operator_spelling(site.kind) + "` on line " + std::to_string(site.line) +
         (site.integer_result ? " changes " : " flips ") + std::to_string(now.differing) + " of " +
         std::to_string(now.elements) + " results instead of " + std::to_string(was.differing) + " of " +
         std::to_string(was.elements);
}

// ": SQNR 20.6 dB -> 4.9 dB (position by position: ...)".
std::string sqnr_text(const sim::SqnrChange& sqnr) {
  return ": SQNR " + sim::format_db(sqnr.was_db) + " -> " + sim::format_db(sqnr.is_db) +
         (sqnr.footing.empty() ? "" : " (" + sqnr.footing + ")");
}

// Lower, but not by more than the slack, or to where nothing an accelerator could keep is lost.
bool loss_allowed(const sim::SqnrChange& sqnr, int bits) {
  return !(sqnr.is_db < sqnr.was_db - kSqnrSlackDb) || as_exact_as_the_format(sqnr.is_db, bits);
}

}  // namespace

std::string why_a_lower_sqnr_is_kept(const sim::SqnrChange& sqnr, int bits) {
  if (!(sqnr.is_db < sqnr.was_db) || !loss_allowed(sqnr, bits)) return "";
  if (!(sqnr.is_db < sqnr.was_db - kSqnrSlackDb))
    return "within the " + sim::format_db(kSqnrSlackDb) + " --fix allows an output to lose (README, \"Never worse\")";
  return sim::format_db(ideal_sqnr_db(bits - 1)) + " or more, within one bit of the int" + std::to_string(bits) +
         " ideal: nothing an accelerator could keep is lost";
}

std::vector<std::string> harm_done(const sim::Report& before, const sim::Report& after, double min_sqnr_db) {
  std::vector<std::string> harm;
  for (size_t i = 0; i < before.outputs.size() && i < after.outputs.size(); ++i) {
    const sim::OutputResult &was = before.outputs[i], &is = after.outputs[i];
    const sim::SqnrChange sqnr = sim::sqnr_change(was, is);
    const std::string change = sqnr_text(sqnr);
    if (!is.shape_difference.empty() && was.shape_difference.empty())
      harm.push_back(is.name + " changes shape once quantized (" + is.shape_difference + ")");
    else if (is.integer)  // a mask or indices: judged by the decisions that make it (below)
      continue;
    else if (std::isnan(is.sqnr_db) && !std::isnan(was.sqnr_db))
      harm.push_back(is.name + change +
                     " (not a number: the quantized output holds NaN or infinity where the float one does not)");
    else if (!loss_allowed(sqnr, before.bits))
      harm.push_back(is.name + change);
    else if (sqnr.is_db < min_sqnr_db && sqnr.was_db >= min_sqnr_db)
      harm.push_back(is.name + change + ", under the threshold " + sim::format_db(min_sqnr_db));
  }
  const auto flips_before = flips_per_site(before);
  for (const auto& [site, flips] : flips_per_site(after)) {
    const auto was = flips_before.find(site);
    const SiteFlips before_flips = was == flips_before.end() ? SiteFlips{} : was->second;
    if (!before_flips.never_compared() && flips_more(before_flips, flips))
      harm.push_back(site_change(site, flips, before_flips));
  }
  return harm;
}

std::vector<std::string> gain_made(const sim::Report& before, const sim::Report& after) {
  std::vector<std::string> gain;
  for (size_t i = 0; i < before.outputs.size() && i < after.outputs.size(); ++i) {
    const sim::OutputResult &was = before.outputs[i], &is = after.outputs[i];
    const sim::SqnrChange sqnr = sim::sqnr_change(was, is);
    if (!is.integer && is.shape_difference.empty() && sqnr.is_db > sqnr.was_db + kSqnrSlackDb)
      gain.push_back(is.name + sqnr_text(sqnr));
  }
  const auto flips_after = flips_per_site(after);
  for (const auto& [site, was] : flips_per_site(before)) {
    const auto found = flips_after.find(site);
    const SiteFlips is = found == flips_after.end() ? SiteFlips{0, was.elements} : found->second;
    if (was.differing > 0 && flips_more(is, was)) gain.push_back(site_change(site, is, was));
  }
  return gain;
}

}  // namespace qlint::rewriter
