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
  const int char_w = 8, row_h = 24, pad = 8;
  size_t name_w = 5;
  for (auto &n : t.names) name_w = std::max(name_w, columns(n));
  std::vector<int> cell_w(t.rows.size(), 0);
  for (size_t n = 0; n < t.rows.size(); ++n) {
    size_t w = std::to_string(n).size();
    for (auto &c : t.rows[n]) w = std::max(w, columns(c));
    cell_w[n] = static_cast<int>(w) * char_w + 2 * pad;
  }
  const int x0 = static_cast<int>(name_w) * char_w + 2 * pad, y0 = 2 * row_h;
  int width = x0;
  for (int w : cell_w) width += w;
  const int height = y0 + static_cast<int>(t.names.size()) * row_h + pad;
  std::ostringstream s;
  s << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
    << "<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" width=\"" << width << "\" height=\"" << height
    << "\" viewBox=\"0 0 " << width << " " << height << "\" font-family=\"monospace\" font-size=\"13\">\n"
    << "<title>" << xml_escape(title) << "</title>\n"
    << "<rect x=\"0\" y=\"0\" width=\"" << width << "\" height=\"" << height << "\" fill=\"white\"/>\n"
    << "<text x=\"" << pad << "\" y=\"" << row_h - 8 << "\" font-weight=\"bold\">" << xml_escape(title) << "</text>\n";
  // The header: cycle numbers; a rule under it and between cycles.
  s << "<g class=\"cycles\" fill=\"#555\">\n<text x=\"" << pad << "\" y=\"" << y0 - 8 << "\">cycle</text>\n";
  int x = x0;
  for (size_t n = 0; n < t.rows.size(); ++n) {
    s << "<text x=\"" << x + cell_w[n] / 2 << "\" y=\"" << y0 - 8 << "\" text-anchor=\"middle\">" << n << "</text>\n";
    x += cell_w[n];
  }
  s << "</g>\n<line x1=\"0\" y1=\"" << y0 << "\" x2=\"" << width << "\" y2=\"" << y0 << "\" stroke=\"#999\"/>\n";
  x = x0;
  for (size_t n = 0; n < t.rows.size(); ++n) {
    s << "<line x1=\"" << x << "\" y1=\"" << y0 - row_h << "\" x2=\"" << x << "\" y2=\"" << height - pad
      << "\" stroke=\"#ddd\"/>\n";
    x += cell_w[n];
  }
  for (size_t r = 0; r < t.names.size(); ++r) {
    int y = y0 + static_cast<int>(r + 1) * row_h;
    s << "<g class=\"variable\" id=\"v" << r << "\">\n<text x=\"" << pad << "\" y=\"" << y - 8 << "\">" << xml_escape(t.names[r])
      << "</text>\n";
    x = x0;
    for (size_t n = 0; n < t.rows.size(); ++n) {
      const std::string &c = t.rows[n][r];
      int cx = x + cell_w[n] / 2;
      if (c == "_") {
        s << "<line class=\"absent\" x1=\"" << cx - 6 << "\" y1=\"" << y - 12 << "\" x2=\"" << cx + 6 << "\" y2=\"" << y - 12
          << "\" stroke=\"#999\" stroke-width=\"2\"/>\n";
      } else {
        const char *cls = c == "?" ? "unknown" : c == "‖" ? "error" : c == "nil" ? "nil" : "value";
        const char *fill = c == "‖" ? "#c00" : (c == "?" || c == "nil") ? "#888" : "black";
        s << "<text class=\"" << cls << "\" x=\"" << cx << "\" y=\"" << y - 8 << "\" text-anchor=\"middle\" fill=\"" << fill
          << "\"" << (c == "nil" ? " font-style=\"italic\"" : "") << ">" << xml_escape(c) << "</text>\n";
      }
      for (auto &m : marks)
        if (m.row == r && m.cycle == n)
          s << "<rect class=\"mark\" x=\"" << x + 2 << "\" y=\"" << y - row_h + 3 << "\" width=\"" << cell_w[n] - 4
            << "\" height=\"" << row_h - 4 << "\" fill=\"none\" stroke=\"#c00\" stroke-width=\"2\"/>\n";
      x += cell_w[n];
    }
    s << "</g>\n";
  }
  s << "</svg>\n";
  return s.str();
}

}  // namespace rml::formats
