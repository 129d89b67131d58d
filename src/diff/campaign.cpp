#include "diff/campaign.hpp"

#include <algorithm>
#include <charconv>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

namespace rml::diff {

namespace {

namespace fs = std::filesystem;

template <class T>
bool parse_number(const std::string &s, T &v) {
  if (s.empty() || s[0] == '+' || s[0] == '-') return false;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  return ec == std::errc() && end == s.data() + s.size();
}

// A message on one line: tabs and line breaks become spaces, trailing ones go.
std::string one_line(std::string s) {
  for (char &ch : s)
    if (ch == '\t' || ch == '\n' || ch == '\r') ch = ' ';
  while (!s.empty() && s.back() == ' ') s.pop_back();
  return s;
}

std::vector<std::string> split_tabs(const std::string &line) {
  std::vector<std::string> cells;
  size_t at = 0;
  for (size_t tab; (tab = line.find('\t', at)) != std::string::npos; at = tab + 1) cells.push_back(line.substr(at, tab - at));
  cells.push_back(line.substr(at));
  return cells;
}

}  // namespace

std::optional<Shard> parse_shard(const std::string &text, std::string &why) {
  size_t slash = text.find('/');
  Shard s;
  if (slash == std::string::npos || !parse_number(text.substr(0, slash), s.index) ||
      !parse_number(text.substr(slash + 1), s.count) || s.count < 1 || s.count > 100000 || s.index < 1 || s.index > s.count) {
    why = "--shard: expected K/N with 1 <= K <= N <= 100000 (this run's share of the campaign: programs k with k mod N = K-1), got '" +
          text + "'";
    return std::nullopt;
  }
  return s;
}

std::vector<int> same_as(const std::vector<Failure> &fs) {
  std::vector<int> out(fs.size(), -1);
  std::map<std::string, int> first;
  for (size_t i = 0; i < fs.size(); ++i) {
    auto [it, fresh] = first.emplace(fs[i].program_text, static_cast<int>(i));
    if (!fresh) out[i] = it->second;
  }
  return out;
}

std::string write_summary(const Summary &s) {
  std::ostringstream o;
  o << "# rml diff summary (rml diff --merge reads it)\n";
  o << "seed\t" << s.seed << "\n";
  o << "shard\t" << s.shard.text() << "\n";
  o << "count\t" << s.count << "\n";
  o << "programs\t" << s.programs << "\n";
  o << "unconfirmed\t" << s.unconfirmed << "\n";
  o << "stopped\t" << (s.stopped ? "yes" : "no") << "\n";
  o << "cells\t" << s.cells << "\n";
  o << "unknown\t" << s.unknown << "\n";
  o << "backend\t" << one_line(s.backend) << "\n";
  for (auto &f : s.failures)
    o << "failure\t" << f.program << "\t" << f.kind << "\t" << one_line(f.first) << "\t" << f.equations << "\t" << f.cycles << "\t"
      << one_line(f.folder) << "\n";
  return o.str();
}

std::optional<Summary> read_summary(const std::string &dir, std::string &why) {
  const std::string path = (fs::path(dir) / "summary.tsv").string();
  std::ifstream in(path);
  if (!in) {
    why = path + ": cannot read it (a folder written by rml diff over generated programs holds one)";
    return std::nullopt;
  }
  Summary s;
  std::set<std::string> seen;
  int line_no = 0;
  auto bad = [&](const std::string &what) {
    why = path + ":" + std::to_string(line_no) + ": " + what;
    return std::nullopt;
  };
  for (std::string line; std::getline(in, line);) {
    ++line_no;
    if (line.empty() || line[0] == '#') continue;
    auto cells = split_tabs(line);
    const std::string &key = cells[0];
    if (key == "failure") {
      if (cells.size() != 7) return bad("a failure line has 7 cells, this one " + std::to_string(cells.size()));
      Failure f;
      if (!parse_number(cells[1], f.program) || !parse_number(cells[4], f.equations) || !parse_number(cells[5], f.cycles))
        return bad("a failure's program, equations and cycles are numbers");
      f.kind = cells[2];
      f.first = cells[3];
      f.folder = cells[6];
      f.campaign = dir;
      std::string text;
      for (const char *name : {"cex.rml", "cex.lus"}) {
        std::ifstream p(fs::path(dir) / f.folder / name);
        if (!p) continue;
        std::ostringstream t;
        t << p.rdbuf();
        text = t.str();
        break;
      }
      if (text.empty()) return bad("program " + cells[1] + "'s counterexample " + (fs::path(dir) / f.folder / "cex.rml").string() + " is missing");
      f.program_text = text;
      s.failures.push_back(std::move(f));
      continue;
    }
    if (cells.size() != 2) return bad("expected 'key<TAB>value'");
    if (!seen.insert(key).second) return bad("'" + key + "' given twice");
    const std::string &v = cells[1];
    bool ok = true;
    if (key == "seed") ok = parse_number(v, s.seed);
    else if (key == "shard") {
      std::string w;
      auto sh = parse_shard(v, w);
      ok = sh.has_value();
      if (sh) s.shard = *sh;
    } else if (key == "count") ok = parse_number(v, s.count);
    else if (key == "programs") ok = parse_number(v, s.programs);
    else if (key == "unconfirmed") ok = parse_number(v, s.unconfirmed);
    else if (key == "stopped") {
      ok = v == "yes" || v == "no";
      s.stopped = v == "yes";
    }
    else if (key == "cells") ok = parse_number(v, s.cells);
    else if (key == "unknown") ok = parse_number(v, s.unknown);
    else if (key == "backend") s.backend = v;
    else return bad("unknown key '" + key + "'");
    if (!ok) return bad("'" + key + "': malformed value '" + v + "'");
  }
  for (const char *key : {"seed", "shard", "count", "programs", "unconfirmed", "stopped", "cells", "unknown", "backend"})
    if (!seen.count(key)) {
      line_no = 0;
      why = path + ": no '" + key + "' line";
      return std::nullopt;
    }
  return s;
}

std::string failure_table(const std::vector<Failure> &fs, const std::vector<std::string> &roots) {
  std::vector<int> dup = same_as(fs);
  std::vector<std::vector<std::string>> rows{{"program", "failure", "size", "files"}};
  for (size_t i = 0; i < fs.size(); ++i) {
    const Failure &f = fs[i];
    std::string what = dup[i] >= 0 ? "same as program " + std::to_string(fs[static_cast<size_t>(dup[i])].program) : one_line(f.first);
    std::string size = std::to_string(f.equations) + " equations, " + std::to_string(f.cycles) + " cycles";
    std::string root = i < roots.size() ? roots[i] : "";
    rows.push_back({std::to_string(f.program), what, size, (fs::path(root) / f.folder).lexically_normal().string()});
  }
  std::vector<size_t> width(4, 0);
  for (auto &r : rows)
    for (size_t c = 0; c < r.size(); ++c) width[c] = std::max(width[c], r[c].size());
  std::string out;
  for (auto &r : rows) {
    std::string line = "  ";
    for (size_t c = 0; c < r.size(); ++c) line += r[c] + (c + 1 < r.size() ? std::string(width[c] - r[c].size() + 2, ' ') : "");
    out += line + "\n";
  }
  return out;
}

int merge_summaries(const std::vector<std::string> &dirs, std::ostream &out, std::ostream &err) {
  std::vector<Summary> ss;
  for (auto &d : dirs) {
    std::string why;
    auto s = read_summary(d, why);
    if (!s) {
      err << "rml diff: error: " << why << "\n";
      return 2;
    }
    ss.push_back(std::move(*s));
  }
  const Summary &a = ss.front();
  std::map<int, std::string> shard_dir;
  for (size_t i = 0; i < ss.size(); ++i) {
    const Summary &s = ss[i];
    if (s.seed != a.seed || s.count != a.count || s.shard.count != a.shard.count || s.backend != a.backend) {
      err << "rml diff: error: " << dirs[i] << " and " << dirs[0] << " are shards of different campaigns (seed " << s.seed << " and "
          << a.seed << ", --count " << s.count << " and " << a.count << ", " << s.shard.count << " and " << a.shard.count
          << " shards, back end '" << s.backend << "' and '" << a.backend << "')\n";
      return 2;
    }
    auto [it, fresh] = shard_dir.emplace(s.shard.index, dirs[i]);
    if (!fresh) {
      err << "rml diff: error: shard " << s.shard.text() << " is given twice: " << it->second << " and " << dirs[i] << "\n";
      return 2;
    }
  }
  std::vector<Failure> fs;
  std::vector<std::string> roots;
  int programs = 0, unconfirmed = 0;
  uint64_t cells = 0, unknown = 0;
  std::vector<std::string> stopped;
  for (auto &s : ss) {
    programs += s.programs;
    unconfirmed += s.unconfirmed;
    cells += s.cells;
    unknown += s.unknown;
    if (s.stopped) stopped.push_back(s.shard.text());
    for (auto &f : s.failures) {
      fs.push_back(f);
      roots.push_back(f.campaign);
    }
  }
  // In program order, so that "same as" names the lowest-numbered program, as one unsharded run would.
  std::vector<size_t> order(fs.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](size_t x, size_t y) { return fs[x].program < fs[y].program; });
  std::vector<Failure> sorted;
  std::vector<std::string> sorted_roots;
  for (size_t i : order) sorted.push_back(fs[i]), sorted_roots.push_back(roots[i]);
  std::vector<std::string> missing;
  for (int k = 1; k <= a.shard.count; ++k)
    if (!shard_dir.count(k)) missing.push_back(std::to_string(k) + "/" + std::to_string(a.shard.count));
  auto dup = same_as(sorted);
  int distinct = static_cast<int>(std::count(dup.begin(), dup.end(), -1));
  out << "rml diff: " << ss.size() << " of " << a.shard.count << " shard" << (a.shard.count == 1 ? "" : "s") << " of seed " << a.seed
      << ": " << programs << " of " << a.count << " programs compared, " << sorted.size() << " failed (" << distinct << " distinct), "
      << cells << " output cells compared, " << unknown << " unknown cells of the oracle excluded; back end: " << a.backend << "\n";
  if (!sorted.empty()) out << failure_table(sorted, sorted_roots);
  auto list = [](const std::vector<std::string> &v) {
    std::string s;
    for (size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + v[i];
    return s;
  };
  if (unconfirmed) out << unconfirmed << " draws not confirmed by rml-check left out\n";
  if (!missing.empty()) out << "shards missing: " << list(missing) << "\n";
  if (!stopped.empty()) out << "shards stopped at their first failure (run with --keep-going for all): " << list(stopped) << "\n";
  if (!sorted.empty()) return 1;
  return missing.empty() && stopped.empty() && unconfirmed == 0 ? 0 : 3;
}

}  // namespace rml::diff
