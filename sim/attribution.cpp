#include "sim/attribution.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>

namespace qlint::sim {

namespace {

// The divergence's measure in a pass: differing elements of a comparison, SQNR of an output
// (-inf when the pass failed or lost the output).
double measure(const PassOutcome& o, const Divergence& d) {
  if (d.kind == Divergence::Kind::Comparison) {
    auto it = o.differing.find(d.key);
    return it == o.differing.end() ? 0 : static_cast<double>(it->second);
  }
  if (!o.failure.empty() || d.output >= o.outputs.size()) return -std::numeric_limits<double>::infinity();
  return o.outputs[d.output].sqnr_db;
}

bool diverges(const PassOutcome& o, const Divergence& d, double min_sqnr_db) {
  if (!o.failure.empty()) return true;
  double m = measure(o, d);
  return d.kind == Divergence::Kind::Comparison ? m > 0 : m < min_sqnr_db;
}

// Larger is worse: more flipped results, or a lower SQNR.
double harm(const Divergence& d, double m) { return d.kind == Divergence::Kind::Comparison ? m : -m; }

// Whether the weights alone make most of the divergence: half the flipped results, or an SQNR
// within 3 dB of the full one. Then no activation quant point is the cause.
bool weights_dominate(const Divergence& d, double weights, double full) {
  return d.kind == Divergence::Kind::Comparison ? 2 * weights >= full : weights <= full + 3.0;
}

// Past what the weights alone do (their flips; an output 1 dB under their SQNR): what a pass with
// some activation quant points quantized must reach to count as diverging.
bool worse_than_weights(const PassOutcome& o, const Divergence& d, double weights) {
  if (!o.failure.empty()) return true;
  const double m = measure(o, d);
  return d.kind == Divergence::Kind::Comparison ? m > weights : m < weights - 1.0;
}

class Search {
 public:
  Search(const AttributionSetup& setup, const PassRunner& run) : setup_(setup), run_(run) {}

  // Every subset is simulated once, whichever divergence asks for it.
  const PassOutcome& pass(const std::vector<std::string>& quantized, bool weights = true) {
    Key key{std::set<std::string>(quantized.begin(), quantized.end()), weights};
    auto it = cache_.find(key);
    if (it != cache_.end()) return it->second;
    ++passes_;
    return cache_.emplace(key, run_(key.first, weights)).first->second;
  }

  int passes() const { return passes_; }

  // Whether the budget has room for a divergence's first cause: the weights' two passes and the
  // search among every quant point.
  bool affords_first_cause() const {
    int weights = 0;
    if (setup_.weights_quantized) weights = !ran({}, true) + !ran(setup_.points, false);
    return affords(weights + passes_for_cause(setup_.points.size()));
  }

  // A pass already run: the report's own, with every point quantized.
  void know(const std::vector<std::string>& quantized, const PassOutcome& outcome) {
    cache_.emplace(Key{std::set<std::string>(quantized.begin(), quantized.end()), true}, outcome);
  }

  Attribution attribute(const Divergence& d, const PassOutcome& full) {
    const int before = passes_;
    Attribution a;
    a.divergence = d;
    a.measure = measure(full, d);
    if (d.kind == Divergence::Kind::Comparison)
      if (auto it = full.elements.find(d.key); it != full.elements.end()) a.elements = it->second;
    // Without any quant point the passes are the float model, which cannot diverge, unless the
    // weights' own fake quantization does it: alone when it makes most of the divergence, else
    // the search looks for what diverges beyond it.
    if (setup_.weights_quantized && diverges(pass({}), d, setup_.min_sqnr_db)) {
      const double weights = measure(pass({}), d);
      // The activations alone may do clearly worse than the weights alone (public round 23's SSD:
      // 7.9 dB with the weights only, 5.3 dB with the activations only, 5.3 dB with both): then
      // the weights do not dominate, and the search below looks past their part.
      const PassOutcome& activations = weights_dominate(d, weights, a.measure) ? pass(setup_.points, false) : full;
      if (weights_dominate(d, weights, a.measure) &&
          !(worse_than_weights(activations, d, weights) && worse_than_weights(full, d, weights))) {
        a.weights_alone = true;
        a.weights_measure = weights;
        // A decision such as NMS may flip on either rounding: then the activations' quant points
        // alone diverge too, which the weights' note alone would hide (public round 18's yolov7).
        if (diverges(activations, d, setup_.min_sqnr_db)) a.activations_alone = measure(activations, d);
        a.passes = passes_ - before;
        return a;
      }
      a.weights_part = weights;
    }
    const auto diverging = [&](const PassOutcome& o) {
      return a.weights_part ? worse_than_weights(o, d, *a.weights_part) : diverges(o, d, setup_.min_sqnr_db);
    };
    std::vector<std::string> candidates = setup_.points;
    std::vector<std::string> found;
    while (!candidates.empty() && a.causes.size() < kMaxCauses) {
      if (!a.causes.empty() && !affords(passes_for_cause(candidates.size()))) {
        a.search_cut = true;
        break;
      }
      // Invariant: no candidate quantized does not diverge, all of them do.
      size_t good = 0, bad = candidates.size();
      while (bad - good > 1) {
        size_t mid = good + (bad - good) / 2;
        if (diverging(pass(prefix(candidates, mid))))
          bad = mid;
        else
          good = mid;
      }
      std::string point = candidates[bad - 1];
      candidates.erase(candidates.begin() + static_cast<std::ptrdiff_t>(bad - 1));
      const PassOutcome& alone = pass({point});
      const PassOutcome& without = pass(candidates);
      Cause cause{point, measure(alone, d), measure(without, d), diverging(alone), !diverging(without), found};
      a.causes.push_back(cause);
      found.push_back(point);
      if (cause.cures) break;
    }
    std::stable_sort(a.causes.begin(), a.causes.end(), [&d](const Cause& x, const Cause& y) {
      if (x.reproduces != y.reproduces) return x.reproduces;
      return harm(d, x.alone) > harm(d, y.alone);
    });
    a.passes = passes_ - before;
    return a;
  }

 private:
  // The passes a search for one more cause among `n` candidates may need: the bisection's, and
  // two to measure the cause alone and without it (fewer when some ran before).
  static int passes_for_cause(size_t n) {
    int bisection = 0;
    while ((size_t{1} << bisection) < n) ++bisection;
    return bisection + 2;
  }

  bool ran(const std::vector<std::string>& quantized, bool weights) const {
    return cache_.count(Key{std::set<std::string>(quantized.begin(), quantized.end()), weights}) > 0;
  }

  bool affords(int passes) const { return passes_ + passes <= setup_.max_passes; }

  static std::vector<std::string> prefix(const std::vector<std::string>& points, size_t n) {
    return {points.begin(), points.begin() + static_cast<std::ptrdiff_t>(n)};
  }

  const AttributionSetup& setup_;
  const PassRunner& run_;
  using Key = std::pair<std::set<std::string>, bool>;  // quantized points, weights quantized
  std::map<Key, PassOutcome> cache_;
  int passes_ = 0;
};

int64_t total_flips(const PassOutcome& o) {
  int64_t n = 0;
  for (const auto& [key, differing] : o.differing) n += differing;
  return n;
}

std::vector<double> sqnrs(const PassOutcome& o, size_t outputs) {
  std::vector<double> out;
  for (size_t i = 0; i < outputs; ++i)
    out.push_back(o.failure.empty() && i < o.outputs.size() ? o.outputs[i].sqnr_db
                                                            : -std::numeric_limits<double>::infinity());
  return out;
}

}  // namespace

double lowest(const std::vector<double>& values) {
  double low = std::numeric_limits<double>::infinity();
  for (double v : values) low = std::min(low, v);
  return low;
}

PassOutcome outcome_of(const Report& report) {
  PassOutcome o;
  o.outputs = report.outputs;
  for (const auto& c : report.comparisons) {
    std::string key = analysis::comparison_key(c.kind, c.loc);
    o.differing[key] += c.differing;
    o.elements[key] += c.elements;
  }
  return o;
}

std::vector<Divergence> divergences_of(const Report& report, const PassOutcome& full, double min_sqnr_db) {
  std::vector<Divergence> out;
  std::set<std::string> seen;
  for (const auto& c : report.comparisons) {
    Divergence d{Divergence::Kind::Comparison, analysis::comparison_key(c.kind, c.loc), c.kind, c.loc, 0};
    if (seen.insert(d.key).second && diverges(full, d, min_sqnr_db)) out.push_back(d);
  }
  for (size_t i = 0; i < full.outputs.size(); ++i) {
    // A mask or indices: the comparison or argmax that decides its values is the divergence.
    if (full.outputs[i].integer && full.outputs[i].shape_difference.empty()) continue;
    Divergence d;
    d.kind = Divergence::Kind::Output;
    d.output = i;
    d.integer_values = full.outputs[i].integer;
    if (diverges(full, d, min_sqnr_db)) out.push_back(d);
  }
  return out;
}

int default_attribution_passes(int64_t point_values) {
  if (point_values <= 0) return std::numeric_limits<int>::max();
  return static_cast<int>(std::min<int64_t>(kAttributionValues / point_values, std::numeric_limits<int>::max()));
}

Attributed attribute(const std::vector<Divergence>& divergences, const PassOutcome& full, const AttributionSetup& setup,
                     const PassRunner& run) {
  Attributed out;
  if (setup.points.empty()) return out;
  Search search(setup, run);
  search.know(setup.points, full);
  for (size_t i = 0; i < divergences.size(); ++i) {
    if (i < kMaxAttributedDivergences && search.affords_first_cause())
      out.attributions.push_back(search.attribute(divergences[i], full));
    else
      out.unattributed.push_back(divergences[i]);
  }
  out.passes = search.passes();
  return out;
}

std::vector<Sensitivity> sensitivity(const AttributionSetup& setup, const PassRunner& run) {
  std::vector<Sensitivity> out;
  size_t outputs = 0;
  for (const auto& point : setup.points) {
    std::vector<std::string> others;
    for (const auto& p : setup.points)
      if (p != point) others.push_back(p);
    PassOutcome alone = run({point}, true);
    PassOutcome without = run({others.begin(), others.end()}, true);
    outputs = std::max({outputs, alone.outputs.size(), without.outputs.size()});
    out.push_back({point, sqnrs(alone, outputs), sqnrs(without, outputs), total_flips(alone), total_flips(without)});
  }
  for (auto& s : out) {  // a failed pass has no outputs: pad to the others' count
    s.sqnr_alone.resize(outputs, -std::numeric_limits<double>::infinity());
    s.sqnr_without.resize(outputs, -std::numeric_limits<double>::infinity());
  }
  std::stable_sort(out.begin(), out.end(), [](const Sensitivity& a, const Sensitivity& b) {
    if (a.flips_alone != b.flips_alone) return a.flips_alone > b.flips_alone;
    return lowest(a.sqnr_alone) < lowest(b.sqnr_alone);
  });
  return out;
}

}  // namespace qlint::sim
