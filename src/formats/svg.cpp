#include "formats/svg.hpp"

#include <algorithm>
#include <cstdint>
#include <sstream>

namespace rml::formats {

namespace {

size_t columns(const std::string &s) {  // UTF-8 code points ('‖' is one)
  size_t w = 0;
  for (unsigned char c : s)
    if ((c & 0xC0) != 0x80) ++w;
  return w;
}

// SVG renderers (browsers, librsvg, Inkscape) refuse pictures wider or higher than
// 32 767 px: a long chronogram wraps into bands of cycles stacked downwards, each at most
// kBandWidth wide.
constexpr int kMaxSide = 32767, kBandWidth = 16000;

}  // namespace

// XML 1.0 has no way to write most control characters (not even as &#N;), nor bytes that
// are not UTF-8: each is written as the text \xNN, so that a file name holding ESC or
// 0x01 still gives a well-formed document that says which byte it was.
std::string xml_escape(const std::string &s) {
  std::string r;
  auto hex = [&r](unsigned char b) {
    static const char digits[] = "0123456789ABCDEF";
    r += "\\x";
    r += digits[b >> 4];
    r += digits[b & 15];
  };
  for (size_t i = 0; i < s.size();) {
    unsigned char b = static_cast<unsigned char>(s[i]);
    if (b < 0x80) {
      switch (b) {
        case '&': r += "&amp;"; break;
        case '<': r += "&lt;"; break;
        case '>': r += "&gt;"; break;
        case '"': r += "&quot;"; break;
        case '\t': case '\n': case '\r': r += static_cast<char>(b); break;
        default:
          if (b < 0x20) hex(b);
          else r += static_cast<char>(b);
      }
      ++i;
      continue;
    }
    // A UTF-8 sequence: its length from the lead byte, then continuation bytes, shortest
    // form, a scalar value XML allows (no surrogates, no U+FFFE/U+FFFF).
    size_t len = b >= 0xF0 && b <= 0xF4 ? 4 : b >= 0xE0 ? 3 : b >= 0xC2 && b < 0xE0 ? 2 : 0;
    uint32_t cp = len == 4 ? b & 0x07u : len == 3 ? b & 0x0Fu : b & 0x1Fu;
    bool ok = len > 0 && i + len <= s.size();
    for (size_t k = 1; ok && k < len; ++k) {
      unsigned char c = static_cast<unsigned char>(s[i + k]);
      ok = (c & 0xC0) == 0x80;
      cp = (cp << 6) | (c & 0x3Fu);
    }
    ok = ok && !(len == 3 && cp < 0x800) && !(len == 4 && (cp < 0x10000 || cp > 0x10FFFF)) && !(cp >= 0xD800 && cp <= 0xDFFF) &&
         cp != 0xFFFE && cp != 0xFFFF;
    if (!ok) {
      hex(b);
      ++i;
      continue;
    }
    r.append(s, i, len);
    i += len;
  }
  return r;
}

std::string write_svg(const ChronogramTable &t, const std::string &title, const std::vector<CellMark> &marks) {
  const int char_w = 8, row_h = 24, pad = 8, gap = row_h / 2;
  // The names' column at most a quarter of a band, a cell at most the rest: longer text is
  // cut short with '…', whole in the cell's tooltip.
  size_t name_cols = 5;
  for (auto &n : t.names) name_cols = std::max(name_cols, columns(n));
  name_cols = std::min(name_cols, static_cast<size_t>(kBandWidth / 4 / char_w));
  const int x0 = static_cast<int>(name_cols) * char_w + 2 * pad;
  const size_t cell_cols = static_cast<size_t>((kBandWidth - x0 - 2 * pad) / char_w);
  std::vector<int> cell_w(t.rows.size(), 0);
  for (size_t n = 0; n < t.rows.size(); ++n) {
    size_t w = std::to_string(n).size();
    for (auto &c : t.rows[n]) w = std::max(w, std::min(columns(c), cell_cols));
    cell_w[n] = static_cast<int>(w) * char_w + 2 * pad;
  }
  // Bands of consecutive cycles, each as wide as fits in kBandWidth (at least one cycle).
  std::vector<size_t> first{0};  // each band's first cycle; then the end
  int width = x0, w = x0;
  for (size_t n = 0; n < t.rows.size(); ++n) {
    if (n > first.back() && w + cell_w[n] > kBandWidth) {
      first.push_back(n);
      w = x0;
    }
    w += cell_w[n];
    width = std::max(width, w);
  }
  first.push_back(t.rows.size());
  const size_t bands = first.size() - 1;
  // A band: its cycle numbers, a row per name.
  const long long band_high = row_h + static_cast<long long>(t.names.size()) * row_h + pad;
  const long long tall = row_h + static_cast<long long>(bands) * (band_high + gap) - gap;
  if (tall > kMaxSide) {
    auto many = [](size_t n, const std::string &what) { return std::to_string(n) + " " + what + (n == 1 ? "" : "s"); };
    throw SvgError("a drawing of " + many(t.rows.size(), "cycle") + " and " + many(t.names.size(), "variable") + " would be " +
                   std::to_string(tall) + " px high (" + many(bands, "band") + " of at most " + std::to_string(kBandWidth) +
                   " px), more than the " + std::to_string(kMaxSide) +
                   " px SVG renderers draw: show fewer variables (--show) or fewer cycles (--cycles)");
  }
  const int height = static_cast<int>(tall), band_h = static_cast<int>(band_high);
  // Text, cut to `cols` columns; the whole text as a tooltip when cut.
  auto text = [](const std::string &s, size_t cols) {
    if (columns(s) <= cols) return xml_escape(s);
    size_t end = 0;
    for (size_t k = 0; end < s.size(); ++end)
      if ((static_cast<unsigned char>(s[end]) & 0xC0) != 0x80 && k++ == cols - 1) break;
    return "<title>" + xml_escape(s) + "</title>" + xml_escape(s.substr(0, end)) + "…";
  };
  std::ostringstream s;
  s << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
    << "<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" width=\"" << width << "\" height=\"" << height
    << "\" viewBox=\"0 0 " << width << " " << height << "\" font-family=\"monospace\" font-size=\"13\">\n"
    << "<title>" << xml_escape(title) << "</title>\n"
    << "<rect x=\"0\" y=\"0\" width=\"" << width << "\" height=\"" << height << "\" fill=\"white\"/>\n"
    << "<text x=\"" << pad << "\" y=\"" << row_h - 8 << "\" font-weight=\"bold\">" << xml_escape(title) << "</text>\n";
  for (size_t b = 0; b < bands; ++b) {
    const int top = row_h + static_cast<int>(b) * (band_h + gap), y0 = top + row_h;
    int band_w = x0;
    for (size_t n = first[b]; n < first[b + 1]; ++n) band_w += cell_w[n];
    s << "<g class=\"band\" id=\"band" << b << "\">\n";
    // The header: cycle numbers; a rule under it and between cycles.
    s << "<g class=\"cycles\" fill=\"#555\">\n<text x=\"" << pad << "\" y=\"" << y0 - 8 << "\">cycle</text>\n";
    int x = x0;
    for (size_t n = first[b]; n < first[b + 1]; ++n) {
      s << "<text x=\"" << x + cell_w[n] / 2 << "\" y=\"" << y0 - 8 << "\" text-anchor=\"middle\">" << n << "</text>\n";
      x += cell_w[n];
    }
    s << "</g>\n<line x1=\"0\" y1=\"" << y0 << "\" x2=\"" << band_w << "\" y2=\"" << y0 << "\" stroke=\"#999\"/>\n";
    x = x0;
    for (size_t n = first[b]; n < first[b + 1]; ++n) {
      s << "<line x1=\"" << x << "\" y1=\"" << top << "\" x2=\"" << x << "\" y2=\"" << top + band_h - pad << "\" stroke=\"#ddd\"/>\n";
      x += cell_w[n];
    }
    for (size_t r = 0; r < t.names.size(); ++r) {
      int y = y0 + static_cast<int>(r + 1) * row_h;
      // The first band's ids are those of a drawing in one band.
      s << "<g class=\"variable\" id=\"v" << r << (b ? "-" + std::to_string(b) : "") << "\">\n<text x=\"" << pad << "\" y=\""
        << y - 8 << "\">" << text(t.names[r], name_cols) << "</text>\n";
      x = x0;
      for (size_t n = first[b]; n < first[b + 1]; ++n) {
        const std::string &c = t.rows[n][r];
        int cx = x + cell_w[n] / 2;
        if (c == "_") {
          s << "<line class=\"absent\" x1=\"" << cx - 6 << "\" y1=\"" << y - 12 << "\" x2=\"" << cx + 6 << "\" y2=\"" << y - 12
            << "\" stroke=\"#999\" stroke-width=\"2\"/>\n";
        } else {
          const char *cls = c == "?" ? "unknown" : c == "‖" ? "error" : c == "nil" ? "nil" : "value";
          const char *fill = c == "‖" ? "#c00" : (c == "?" || c == "nil") ? "#888" : "black";
          s << "<text class=\"" << cls << "\" x=\"" << cx << "\" y=\"" << y - 8 << "\" text-anchor=\"middle\" fill=\"" << fill
            << "\"" << (c == "nil" ? " font-style=\"italic\"" : "") << ">" << text(c, cell_cols) << "</text>\n";
        }
        for (auto &m : marks)
          if (m.row == r && m.cycle == n)
            s << "<rect class=\"mark\" x=\"" << x + 2 << "\" y=\"" << y - row_h + 3 << "\" width=\"" << cell_w[n] - 4
              << "\" height=\"" << row_h - 4 << "\" fill=\"none\" stroke=\"#c00\" stroke-width=\"2\"/>\n";
        x += cell_w[n];
      }
      s << "</g>\n";
    }
    s << "</g>\n";
  }
  s << "</svg>\n";
  return s.str();
}

}  // namespace rml::formats
