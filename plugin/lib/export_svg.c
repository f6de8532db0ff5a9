/* SVG flame graph: a self-contained, interactive picture of where the
 * samples went.  The stacks of p->counts are merged into a tree by label:
 * "all", then process names, then frames root first.  Each node is a
 * rectangle as wide as its samples, root at the bottom, with a <title>
 * tooltip "name (N samples, P%)".  A little embedded script adds
 * click-to-zoom, search (with the matched share) and reset; it needs no
 * network, so the file works opened from disk.
 *
 * Nodes narrower than 0.1% of all samples are left out (their samples still
 * widen their parents), so the file stays small for large profiles.
 * Children are sorted by name, colors come from a hash of the name: equal
 * profiles give equal files.
 *
 * With --off-cpu a second graph, flamegraph.offcpu.svg, is drawn the same
 * way from the off-CPU time (p->off_counts), in microseconds, in cool
 * colours so the two are not mistaken for each other. */
#include "bp_setup.h"
#include "export.h"
#include "err.h"
#include "flametree.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#define SVG_W 1200      /* image width, px */
#define PAD 10          /* left and right margin, px */
#define FRAME_H 16      /* height of one frame, px */
#define HEAD_H 66       /* title line, the event line and the unsampled
                           note under it */
#define FOOT_H 24       /* details line */
#define CHAR_W 7        /* width of one 12px monospace character, px */
#define MIN_PERMILLE 1  /* hide nodes under this share of all samples */

/* The flame graph's tree (flametree.h, n[0]: samples), and a buffer for
 * a label being cleaned. */
struct tree {
  struct bp_ftree ft;
  struct bp_buf clean;
  bool off;  /* off-CPU microseconds, not samples */
};

/* The child of parent labelled name (cleaned of control characters). */
static uint32_t child(struct tree *t, uint32_t parent, const char *name)
{
  bpi_buf_reset(&t->clean);
  bpi_profile_clean_name(&t->clean, name, '\0');
  if(bpi_buf_failed(&t->clean)) {
    t->ft.nomem = true;
    return BP_NONE;
  }
  return bpi_ftree_child(&t->ft, parent, t->clean.data ? t->clean.data : "",
                         t->clean.len);
}

static uint32_t process_node(struct tree *t, const struct bp_profile *p,
                             uint32_t thread)
{
  char tmp[32];
  const char *name = "";
  if(thread < p->nthreads) {
    const struct bp_thread *th = &p->threads[thread];
    name = bpi_profile_str(p, th->process_name);
    if(!*name)
      name = bpi_profile_str(p, th->name);
    if(!*name) {
      snprintf(tmp, sizeof(tmp), "[pid %" PRIu32 "]", th->pid);
      name = tmp;
    }
  }
  return child(t, 0, *name ? name : "[unknown]");
}

/* Add one (thread, stack, count) to the tree.  path: scratch for frames. */
static void add_stack(struct tree *t, const struct bp_profile *p,
                      uint32_t thread, uint32_t stack, uint64_t count,
                      uint32_t *path)
{
  char tmp[64];
  uint32_t depth = 0;
  for(uint32_t s = stack; s < p->nstacks; s = p->stacks[s].parent)
    path[depth++] = p->stacks[s].frame;
  uint32_t node = process_node(t, p, thread);
  t->ft.nodes[0].n[0] += count;
  while(node != BP_NONE) {
    t->ft.nodes[node].n[0] += count;
    if(!depth)
      break;
    depth--;
    node = child(t, node, bpi_profile_frame_label(p, path[depth], tmp,
                                                  sizeof(tmp)));
  }
}

static bp_code build_tree(struct tree *t, const struct bp_profile *p)
{
  uint32_t depth = bpi_profile_max_depth(p);
  for(uint32_t i = 0; t->off && i < p->noff_counts; i++) {
    uint32_t d = bpi_profile_stack_depth(p, p->off_counts[i].stack);
    depth = d > depth ? d : depth;
  }
  uint32_t *path = calloc((size_t)depth + 1, sizeof(*path));
  if(!path || child(t, BP_NONE, "all") != 0)
    t->ft.nomem = true;
  for(uint32_t i = 0; !t->off && !t->ft.nomem && i < p->ncounts; i++)
    add_stack(t, p, p->counts[i].thread, p->counts[i].stack,
              p->counts[i].count, path);
  for(uint32_t i = 0; t->off && !t->ft.nomem && i < p->noff_counts; i++)
    add_stack(t, p, p->off_counts[i].thread, p->off_counts[i].stack,
              (p->off_counts[i].ns + 500) / 1000, path);
  free(path);
  if(t->ft.nomem || !bpi_ftree_sort(&t->ft))
    return BPE_NOMEM;
  return BP_OK;
}

/* ---------------------------------------------------------------- drawing */

static bool visible(const struct tree *t, uint32_t node)
{
  return t->ft.nodes[node].n[0] * 1000 >= t->ft.nodes[0].n[0] * MIN_PERMILLE &&
         t->ft.nodes[node].n[0];
}

/* Depth of the deepest visible node below node. */
static uint32_t visible_depth(const struct tree *t, uint32_t node)
{
  uint32_t max = 0;
  for(uint32_t c = t->ft.nodes[node].first_child; c != BP_NONE;
      c = t->ft.nodes[c].next_sibling) {
    if(!visible(t, c))
      continue;
    uint32_t d = 1 + visible_depth(t, c);
    if(d > max)
      max = d;
  }
  return max;
}

/* x position in tenths of a pixel of a sample offset.  Ends of nested
 * nodes are computed the same way, so a child never pokes out of its
 * parent, which keeps the script's zoom test exact. */
static uint64_t x10(const struct tree *t, uint64_t offset)
{
  uint64_t total = t->ft.nodes[0].n[0];
  uint64_t span = (SVG_W - 2 * PAD) * 10;
  return PAD * 10 + (offset * span + total / 2) / total;
}

static void add_tenths(struct bp_buf *b, uint64_t v)
{
  bpi_buf_printf(b, "%" PRIu64 ".%" PRIu64, v / 10, v % 10);
}

/* Warm colors (red to yellow) from an FNV-1a hash of the name; off CPU,
 * cool ones (blue to green). */
static void add_color(struct bp_buf *b, const char *name, bool off)
{
  uint32_t h = 2166136261u;
  for(const unsigned char *s = (const unsigned char *)name; *s; s++)
    h = (h ^ *s) * 16777619u;
  if(off)
    bpi_buf_printf(b, "rgb(%u,%u,%u)", (h >> 20) % 56, 90 + (h >> 8) % 131,
                   205 + h % 51);
  else
    bpi_buf_printf(b, "rgb(%u,%u,%u)", 205 + h % 51, (h >> 8) % 231,
                   (h >> 20) % 56);
}

/* The label drawn inside a frame: as many characters as fit, ".." when
 * cut.  Counts UTF-8 characters, never splits one. */
static void add_label(struct bp_buf *b, const char *name, uint64_t w10)
{
  uint64_t fit = w10 > 60 ? (w10 - 60) / (CHAR_W * 10) : 0;
  size_t chars = 0, cut = 0;
  const char *s = name;
  if(fit < 3)
    return;
  for(; *s; s++) {
    if(((unsigned char)*s & 0xc0) == 0x80)
      continue;
    if(chars == fit - 2)
      cut = (size_t)(s - name);
    chars++;
  }
  if(chars <= fit) {
    bpi_buf_xml_text(b, name);
    return;
  }
  struct bp_buf part;
  bpi_buf_init(&part);
  bpi_buf_add(&part, name, cut);
  bpi_buf_xml_text(b, part.data ? part.data : "");
  bpi_buf_adds(b, "..");
  if(bpi_buf_failed(&part))
    b->failed = true;
  bpi_buf_cleanup(&part);
}

static void add_frame(struct bp_buf *b, const struct tree *t, uint32_t node,
                      uint64_t offset, uint64_t y)
{
  const struct bp_ftnode *nd = &t->ft.nodes[node];
  const char *name = bpi_ftree_name(&t->ft, node);
  uint64_t all = t->ft.nodes[0].n[0];
  uint64_t pct100 = (nd->n[0] * 10000 + all / 2) / all;
  uint64_t x = x10(t, offset), w = x10(t, offset + nd->n[0]) - x;
  bpi_buf_adds(b, "<g><title>");
  bpi_buf_xml_text(b, name);
  if(t->off)
    bpi_buf_printf(b, " (%" PRIu64 " \xc2\xb5s off CPU, %" PRIu64 ".%02"
                   PRIu64 "%%)</title><rect x=\"", nd->n[0], pct100 / 100,
                   pct100 % 100);
  else
    bpi_buf_printf(b, " (%" PRIu64 " sample%s, %" PRIu64 ".%02" PRIu64
                   "%%)</title><rect x=\"", nd->n[0],
                   nd->n[0] == 1 ? "" : "s", pct100 / 100, pct100 % 100);
  add_tenths(b, x);
  bpi_buf_printf(b, "\" y=\"%" PRIu64 "\" width=\"", y);
  add_tenths(b, w);
  bpi_buf_printf(b, "\" height=\"%d\" rx=\"2\" fill=\"", FRAME_H - 1);
  add_color(b, name, t->off);
  bpi_buf_adds(b, "\"/><text x=\"");
  add_tenths(b, x + 30);
  bpi_buf_printf(b, "\" y=\"%" PRIu64 "\">", y + FRAME_H - 4);
  add_label(b, name, w);
  bpi_buf_adds(b, "</text></g>\n");
}

/* Pre-order: a parent comes before its children, the root first. */
static void add_frames(struct bp_buf *b, const struct tree *t, uint32_t node,
                       uint64_t offset, uint64_t y)
{
  add_frame(b, t, node, offset, y);
  for(uint32_t c = t->ft.nodes[node].first_child; c != BP_NONE;
      c = t->ft.nodes[c].next_sibling) {
    if(visible(t, c))
      add_frames(b, t, c, offset, y - FRAME_H);
    offset += t->ft.nodes[c].n[0];
  }
}

/* Zoom, search and reset.  Frame geometry is read back from the drawing,
 * the full name from the tooltip, so the file carries no extra data.
 * The differential flame graphs (export_diffsvg.c) use it too. */
const char bpi_flamegraph_script[] =
  "var frames = [], root, details, matched, reset, searchRe = null;\n"
  "function init() {\n"
  "  details = document.getElementById('details');\n"
  "  matched = document.getElementById('matched');\n"
  "  reset = document.getElementById('reset');\n"
  "  var gs = document.querySelectorAll('#frames > g');\n"
  "  for (var i = 0; i < gs.length; i++) setup(gs[i]);\n"
  "  root = frames[0];\n"
  "  document.addEventListener('keydown', function (e) {\n"
  "    if ((e.ctrlKey || e.metaKey) && e.key === 'f') {\n"
  "      e.preventDefault(); askSearch();\n"
  "    } else if (e.key === 'Escape') { unzoom(); search(null); }\n"
  "  });\n"
  "}\n"
  "function setup(g) {\n"
  "  var r = g.querySelector('rect'), t = g.querySelector('title');\n"
  "  var info = t.textContent;\n"
  "  g.label = info.slice(0, info.lastIndexOf(' ('));\n"
  "  g.x0 = +r.getAttribute('x'); g.w0 = +r.getAttribute('width');\n"
  "  g.y0 = +r.getAttribute('y'); g.rect = r;\n"
  "  g.text = g.querySelector('text');\n"
  "  g.onclick = function () { zoom(g); };\n"
  "  g.onmouseover = function () { details.textContent = info; };\n"
  "  g.onmouseout = function () { details.textContent = ' '; };\n"
  "  frames.push(g);\n"
  "}\n"
  "function place(g, x, w) {\n"
  "  var n = Math.floor((w - 6) / CW), s = g.label;\n"
  "  g.rect.setAttribute('x', x.toFixed(1));\n"
  "  g.rect.setAttribute('width', w.toFixed(1));\n"
  "  g.text.setAttribute('x', (x + 3).toFixed(1));\n"
  "  if (n < 3) s = ''; else if (s.length > n) s = s.slice(0, n - 2) + '..';\n"
  "  g.text.textContent = s;\n"
  "}\n"
  "function zoom(z) {\n"
  "  var scale = (W - 2 * PAD) / z.w0, e = 0.01;\n"
  "  frames.forEach(function (g) {\n"
  "    var inside = g.y0 <= z.y0 && g.x0 >= z.x0 - e &&\n"
  "      g.x0 + g.w0 <= z.x0 + z.w0 + e;\n"
  "    var below = g.y0 > z.y0 && g.x0 <= z.x0 + e &&\n"
  "      g.x0 + g.w0 >= z.x0 + z.w0 - e;\n"
  "    g.style.display = inside || below ? '' : 'none';\n"
  "    g.style.opacity = below ? '0.6' : '';\n"
  "    if (below) place(g, PAD, W - 2 * PAD);\n"
  "    else if (inside) place(g, PAD + (g.x0 - z.x0) * scale, g.w0 * scale);\n"
  "  });\n"
  "  reset.style.display = '';\n"
  "}\n"
  "function unzoom() {\n"
  "  frames.forEach(function (g) {\n"
  "    g.style.display = ''; g.style.opacity = ''; place(g, g.x0, g.w0);\n"
  "  });\n"
  "  reset.style.display = 'none';\n"
  "}\n"
  "function askSearch() {\n"
  "  var term = prompt('Search frames (regular expression)',\n"
  "    searchRe ? searchRe.source : '');\n"
  "  if (term === null) return;\n"
  "  try { search(term ? new RegExp(term) : null); }\n"
  "  catch (err) { alert(err.message); }\n"
  "}\n"
  "// highlight matches; the share counts nested matches once\n"
  "function search(re) {\n"
  "  var hits = [], sum = 0, end = -1;\n"
  "  searchRe = re;\n"
  "  frames.forEach(function (g) {\n"
  "    var m = re !== null && re.test(g.label);\n"
  "    g.rect.style.fill = m ? 'rgb(230,0,230)' : '';\n"
  "    if (m) hits.push([g.x0, g.x0 + g.w0]);\n"
  "  });\n"
  "  hits.sort(function (a, b) { return a[0] - b[0]; });\n"
  "  hits.forEach(function (h) {\n"
  "    if (h[1] > end) { sum += h[1] - Math.max(h[0], end); end = h[1]; }\n"
  "  });\n"
  "  matched.textContent = re === null || !root ? ' ' :\n"
  "    'Matched: ' + (100 * sum / root.w0).toFixed(1) + '%';\n"
  "}\n";

static const char style[] =
  "text { font-family: monospace; font-size: 12px; fill: #000; }\n"
  "#frames text { pointer-events: none; }\n"
  "#frames g { cursor: pointer; }\n"
  "#frames g:hover rect { stroke: #000; stroke-width: 0.5; }\n"
  ".btn { cursor: pointer; fill: #0645ad; }\n"
  "#title { font-size: 16px; }\n"
  "#event { font-size: 11px; fill: #555; }\n";

/* The line under the title: the event sampled and, when it replaced the
 * one asked for (no hardware PMU: the software clock), which and why, as
 * every other artifact's metadata says. */
static void add_event_line(struct bp_buf *b, const struct bp_profile *p)
{
  const struct bp_profile_meta *m = &p->meta;
  bpi_buf_adds(b, "<text id=\"event\" x=\"600\" y=\"42\" "
               "text-anchor=\"middle\">Event: ");
  bpi_buf_xml_text(b, m->event && *m->event ? m->event : "unknown");
  if(m->fallback_reason) {
    bool clock = m->event && (strstr(m->event, "cpu-clock") ||
                              strstr(m->event, "task-clock") ||
                              strstr(m->event, "CPU-CLOCK") ||
                              strstr(m->event, "TASK-CLOCK"));
    bpi_buf_adds(b, clock ? " (software clock fallback" : " (fallback");
    if(m->requested_event && *m->requested_event) {
      bpi_buf_adds(b, " instead of ");
      bpi_buf_xml_text(b, m->requested_event);
    }
    bpi_buf_adds(b, ": ");
    bpi_buf_xml_text(b, m->fallback_reason);
    bpi_buf_addc(b, ')');
  }
  bpi_buf_adds(b, "</text>\n");
}

static void add_header(struct bp_buf *b, const struct bp_profile *p,
                       uint64_t height, bool off)
{
  bpi_buf_printf(b, "<?xml version=\"1.0\" encoding=\"UTF-8\" "
                 "standalone=\"no\"?>\n"
                 "<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\""
                 " width=\"%d\" height=\"%" PRIu64 "\""
                 " viewBox=\"0 0 %d %" PRIu64 "\" onload=\"init()\">\n",
                 SVG_W, height, SVG_W, height);
  bpi_buf_printf(b, "<style type=\"text/css\"><![CDATA[\n%s]]></style>\n"
                 "<script type=\"text/ecmascript\"><![CDATA[\n"
                 "var W = %d, PAD = %d, CW = %d;\n%s]]></script>\n",
                 style, SVG_W, PAD, CHAR_W, bpi_flamegraph_script);
  bpi_buf_adds(b, "<rect width=\"100%\" height=\"100%\" fill=\"#f8f8f8\"/>\n"
               "<text id=\"title\" x=\"600\" y=\"22\" "
               "text-anchor=\"middle\">");
  if(p->meta.command && *p->meta.command) {
    bpi_buf_adds(b, off ? "Off-CPU flame graph: " : "Flame graph: ");
    bpi_buf_xml_text(b, p->meta.command);
  }
  else
    bpi_buf_adds(b, off ? "Off-CPU flame graph" : "Flame graph");
  bpi_buf_adds(b, "</text>\n");
  add_event_line(b, p);
  /* the share of task-clock no sample covers, and why (kernel time not
   * sampled), under the event line */
  char note[320];
  if(off)
    snprintf(note, sizeof(note), "%s", p->meta.off_cpu_stack_note
                                       ? p->meta.off_cpu_stack_note : "");
  else
    bpi_profile_unsampled_note(p, note, sizeof(note));
  if(*note) {
    bpi_buf_adds(b, "<text id=\"unsampled\" x=\"600\" y=\"58\" "
                 "text-anchor=\"middle\" font-size=\"11\" fill=\"#a00\">");
    bpi_buf_xml_text(b, note);
    bpi_buf_adds(b, "</text>\n");
  }
  bpi_buf_printf(b, "<text id=\"reset\" class=\"btn\" x=\"%d\" "
                 "y=\"22\" style=\"display:none\" onclick=\"unzoom()\">"
                 "Reset zoom</text>\n<text id=\"search\" class=\"btn\" "
                 "x=\"%d\" y=\"22\" text-anchor=\"end\" "
                 "onclick=\"askSearch()\">Search</text>\n"
                 "<text id=\"details\" x=\"%d\" y=\"%" PRIu64 "\"> </text>\n"
                 "<text id=\"matched\" x=\"%d\" y=\"%" PRIu64 "\" "
                 "text-anchor=\"end\"> </text>\n", PAD, SVG_W - PAD, PAD,
                 height - 8, SVG_W - PAD, height - 8);
}

static bp_code draw(const struct bp_profile *p, bool off, struct bp_buf *out,
                   struct bp_err *err)
{
  struct tree t = {.off = off};
  bpi_ftree_init(&t.ft);
  bpi_buf_init(&t.clean);
  bp_code rc = build_tree(&t, p);
  if(rc) {
    rc = bpi_err_set(err, rc, 0, "flame graph: building the tree");
    goto out;
  }
  uint64_t depth = t.ft.nodes[0].n[0] ? visible_depth(&t, 0) : 0;
  uint64_t height = HEAD_H + (depth + 1) * FRAME_H + FOOT_H;
  add_header(out, p, height, off);
  bpi_buf_adds(out, "<g id=\"frames\">\n");
  if(t.ft.nodes[0].n[0])
    add_frames(out, &t, 0, 0, height - FOOT_H - FRAME_H);
  bpi_buf_adds(out, "</g>\n</svg>\n");
out:
  bpi_buf_cleanup(&t.clean);
  bpi_ftree_cleanup(&t.ft);
  return rc;
}

static bp_code svg_write(const struct bp_profile *p, struct bp_buf *out,
                         struct bp_err *err)
{
  return draw(p, false, out, err);
}

static bp_code offcpu_svg_write(const struct bp_profile *p,
                                struct bp_buf *out, struct bp_err *err)
{
  return draw(p, true, out, err);
}

const struct bp_exporter bpi_export_svg = {
  "svg", BP_FILE_SVG, false, svg_write, NULL
};

const struct bp_exporter bpi_export_offcpu_svg = {
  "offcpu-svg", BP_FILE_OFFCPU_SVG, false, offcpu_svg_write,
  bpi_export_has_off_cpu
};
