/* Differential flame graph: the differential folded stacks of two runs
 * merged into one tree (frames by name, root first, under "all").  Each
 * frame is as wide as its head samples (base samples when negated), and
 * colored by its absolute change per run (or per iteration) in the
 * sampled event's unit when the cost of a sample is known (red more, blue
 * less, white where the function table would not name it: within the
 * Poisson interval of its counts, or within what the benchmark's own
 * noise makes of its base cost; off-CPU time, measured rather than
 * sampled, by its waiting time against the off-CPU noise band alone, its
 * preempted time never coloured), else by how its share of its side's
 * samples changed; the intensity relative to the largest
 * change drawn.  Shares are normalized to each side's total, so runs of
 * different lengths compare.  The tooltip says base and head samples and
 * shares and the change in percentage points, or with costs, base and
 * head cost per run (or iteration) and the change with its noise, scaled
 * as the comment scales them ("89.94 ms").  The same embedded script
 * as flamegraph.svg gives click-to-zoom and search; no network needed.
 * Frames under 0.1% of the sized side are left out; siblings are sorted by
 * name, so equal inputs give equal files. */
#include "bp_setup.h"
#include "compare.h"
#include "err.h"
#include "export.h"
#include "flametree.h"
#include "hash.h"
#include "stats.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SVG_W 1200
#define PAD 10
#define FRAME_H 16
#define HEAD_H 50       /* title and legend */
#define BAND_H 16       /* the legend's line on the noise band */
#define FOOT_H 24
#define CHAR_W 7
#define MIN_PERMILLE 1

/* The tree (flametree.h): n[0] base samples, n[1] head samples. */
struct dtree {
  struct bp_ftree ft;
  int sized;              /* 1: by head, 0: by base (negated) */
  double max_delta;       /* largest |change| colored: share points, or
                             the absolute change per run beyond noise */
  const struct bp_diffsvg_cost *cost;   /* NULL: by share */
  /* off-CPU (cost->off_cpu): each node's waiting time, base and head,
   * what colours it (its preempted time left out); NULL: n[] */
  uint64_t (*wait)[2];
};

static double absd(double x)
{
  return x < 0 ? -x : x;
}

static void add_line(struct dtree *t, const struct bp_diff_line *l)
{
  uint32_t node = 0;
  const char *s = l->stack;
  t->ft.nodes[0].n[0] += l->base;
  t->ft.nodes[0].n[1] += l->head;
  while(node != BP_NONE && *s) {
    size_t len = strcspn(s, ";");
    node = bpi_ftree_child(&t->ft, node, s, len);
    if(node == BP_NONE)
      return;
    t->ft.nodes[node].n[0] += l->base;
    t->ft.nodes[node].n[1] += l->head;
    s += len;
    if(*s)
      s++;
  }
}

static bool preempted_line(const struct bp_diff_line *l)
{
  size_t len = strlen(l->stack), mark = strlen(BP_FOLDED_PREEMPTED);
  return len >= mark && !strcmp(l->stack + len - mark, BP_FOLDED_PREEMPTED);
}

/* Off-CPU: every node's waiting time (t->wait) from the lines already
 * added, those of preempted time left out.  False when out of memory. */
static bool add_waits(struct dtree *t, const struct bp_diff_line *lines,
                      size_t n)
{
  t->wait = calloc(t->ft.count ? t->ft.count : 1, sizeof(*t->wait));
  for(size_t i = 0; t->wait && i < n; i++) {
    if(preempted_line(&lines[i]))
      continue;
    uint32_t node = 0;
    t->wait[0][0] += lines[i].base;
    t->wait[0][1] += lines[i].head;
    for(const char *s = lines[i].stack; *s;) {
      size_t len = strcspn(s, ";");
      node = bpi_ftree_child(&t->ft, node, s, len);   /* there already */
      if(node == BP_NONE || node >= t->ft.count)
        return false;
      t->wait[node][0] += lines[i].base;
      t->wait[node][1] += lines[i].head;
      s += len;
      if(*s)
        s++;
    }
  }
  return t->wait != NULL;
}

static uint64_t size_of(const struct dtree *t, uint32_t node)
{
  return t->ft.nodes[node].n[t->sized];
}

static bool dvisible(const struct dtree *t, uint32_t node)
{
  return size_of(t, node) &&
         size_of(t, node) * 1000 >= size_of(t, 0) * MIN_PERMILLE;
}

/* What a cost is per: "run" unless the comparison said (cost mode). */
static const char *cost_per(const struct dtree *t)
{
  return t->cost->per ? t->cost->per : "run";
}

/* The counts that colour the node on side i: its samples, or off-CPU
 * its waiting microseconds. */
static uint64_t colour_n(const struct dtree *t, uint32_t node, int i)
{
  return t->wait ? t->wait[node][i] : t->ft.nodes[node].n[i];
}

/* The node's cost per run on side i (cost mode). */
static double node_cost(const struct dtree *t, uint32_t node, int i)
{
  return (double)colour_n(t, node, i) * t->cost->per_sample[i];
}

/* The half-width of the Poisson interval of the node's change (cost
 * mode); off-CPU times are measured, not sampled: only their rounding to
 * the microsecond, half of one each side (as compare_offcpu.c). */
static double noise(const struct dtree *t, uint32_t node)
{
  if(t->cost->off_cpu)   /* rounding, and the band of all the waiting */
    return (t->cost->per_sample[0] + t->cost->per_sample[1]) / 2 +
           bpi_compare_band_floor(t->cost->band, node_cost(t, 0, 0));
  return bpi_stats_poisson_halfwidth(colour_n(t, node, 0),
                                     t->cost->per_sample[0],
                                     colour_n(t, node, 1),
                                     t->cost->per_sample[1],
                                     t->cost->z);
}

static double share_delta(const struct dtree *t, uint32_t node);

/* What colors the node: its absolute change per run when the function
 * table would name it (its Poisson interval beyond what the benchmark's
 * own noise makes of its base cost; 0 within), else (share mode) its
 * share change in points. */
static double delta(const struct dtree *t, uint32_t node)
{
  if(!t->cost)
    return share_delta(t, node);
  double base = node_cost(t, node, 0);
  double d = node_cost(t, node, 1) - base;
  return bpi_compare_beyond_band(t->cost->band, base, d, noise(t, node)) ?
         d : 0;
}

/* Change of the node's share of its side's samples, percentage points. */
static double share_delta(const struct dtree *t, uint32_t node)
{
  double b = t->ft.nodes[0].n[0] ? 100.0 * (double)t->ft.nodes[node].n[0] /
                                (double)t->ft.nodes[0].n[0] : 0;
  double h = t->ft.nodes[0].n[1] ? 100.0 * (double)t->ft.nodes[node].n[1] /
                                (double)t->ft.nodes[0].n[1] : 0;
  return h - b;
}

/* Depth of the deepest visible node below node; notes the largest change
 * among the visible nodes. */
static uint32_t dvisible_depth(struct dtree *t, uint32_t node)
{
  uint32_t max = 0;
  double d = absd(delta(t, node));
  if(d > t->max_delta)
    t->max_delta = d;
  for(uint32_t c = t->ft.nodes[node].first_child; c != BP_NONE;
      c = t->ft.nodes[c].next_sibling) {
    if(!dvisible(t, c))
      continue;
    uint32_t depth = 1 + dvisible_depth(t, c);
    if(depth > max)
      max = depth;
  }
  return max;
}

static uint64_t dx10(const struct dtree *t, uint64_t offset)
{
  uint64_t total = size_of(t, 0);
  uint64_t span = (SVG_W - 2 * PAD) * 10;
  return PAD * 10 + (offset * span + total / 2) / total;
}

static void add_tenths(struct bp_buf *b, uint64_t v)
{
  bpi_buf_printf(b, "%" PRIu64 ".%" PRIu64, v / 10, v % 10);
}

/* Red for growth, blue for shrinkage, white for none (as flamegraph.pl's
 * differential mode). */
static void add_dcolor(struct bp_buf *b, const struct dtree *t, double d)
{
  double i = t->max_delta > 0 ? absd(d) / t->max_delta : 0;
  unsigned fade = (unsigned)(255 - 200 * i + 0.5);
  if(d > 0)
    bpi_buf_printf(b, "rgb(255,%u,%u)", fade, fade);
  else if(d < 0)
    bpi_buf_printf(b, "rgb(%u,%u,255)", fade, fade);
  else
    bpi_buf_adds(b, "rgb(250,250,250)");
}

/* As many characters of name as fit in w10 tenths of a pixel. */
static void add_dlabel(struct bp_buf *b, const char *name, uint64_t w10)
{
  uint64_t fit = w10 > 60 ? (w10 - 60) / (CHAR_W * 10) : 0;
  size_t chars = 0, cut = 0;
  if(fit < 3)
    return;
  for(const char *s = name; *s; s++) {
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
  char *part = malloc(cut + 1);
  if(!part) {
    b->failed = true;
    return;
  }
  memcpy(part, name, cut);
  part[cut] = '\0';
  bpi_buf_xml_text(b, part);
  bpi_buf_adds(b, "..");
  free(part);
}

static void add_pct(struct bp_buf *b, uint64_t n, uint64_t all)
{
  uint64_t p = all ? (n * 10000 + all / 2) / all : 0;
  bpi_buf_printf(b, "%" PRIu64 ".%02" PRIu64 "%%", p / 100, p % 100);
}

/* The tooltip's costs in the comment's format (bpi_compare_add_cost):
 * "; per run: base 89.94 ms, head 173.5 ms, change +83.58 ms ± 29.93 ms"
 * and whether that is within the noise (d, delta's, 0). */
static void add_dcosts(struct bp_buf *b, const struct dtree *t,
                       uint32_t node, double d)
{
  const char *u = t->cost->unit;
  double base = node_cost(t, node, 0), head = node_cost(t, node, 1);
  bpi_buf_printf(b, "; %sper %s: base ", t->wait ? "waiting " : "",
                 cost_per(t));
  bpi_compare_add_cost(b, u, base, false);
  bpi_buf_adds(b, ", head ");
  bpi_compare_add_cost(b, u, head, false);
  bpi_buf_adds(b, ", change ");
  bpi_compare_add_cost(b, u, head - base, true);
  if(!t->cost->off_cpu) {
    bpi_buf_adds(b, " \xc2\xb1 ");
    bpi_compare_add_cost(b, u, noise(t, node), false);
  }
  bpi_buf_printf(b, "%s)</title><rect x=\"", d == 0 ? ", within noise" : "");
}

static void add_dframe(struct bp_buf *b, const struct dtree *t,
                       uint32_t node, uint64_t offset, uint64_t y)
{
  const struct bp_ftnode *nd = &t->ft.nodes[node];
  const char *name = bpi_ftree_name(&t->ft, node);
  double d = delta(t, node);
  uint64_t x = dx10(t, offset), w = dx10(t, offset + size_of(t, node)) - x;
  bpi_buf_adds(b, "<g><title>");
  bpi_buf_xml_text(b, name);
  const char *counted = t->cost && t->cost->off_cpu ? "\xc2\xb5s"
                                                     : "samples";
  bpi_buf_printf(b, " (base %" PRIu64 " %s, ", nd->n[0], counted);
  add_pct(b, nd->n[0], t->ft.nodes[0].n[0]);
  bpi_buf_printf(b, "; head %" PRIu64 " %s, ", nd->n[1], counted);
  add_pct(b, nd->n[1], t->ft.nodes[0].n[1]);
  if(t->cost)
    add_dcosts(b, t, node, d);
  else
    bpi_buf_printf(b, "; change %+.2f points)</title><rect x=\"", d);
  add_tenths(b, x);
  bpi_buf_printf(b, "\" y=\"%" PRIu64 "\" width=\"", y);
  add_tenths(b, w);
  bpi_buf_printf(b, "\" height=\"%d\" rx=\"2\" fill=\"", FRAME_H - 1);
  add_dcolor(b, t, d);
  bpi_buf_adds(b, "\"/><text x=\"");
  add_tenths(b, x + 30);
  bpi_buf_printf(b, "\" y=\"%" PRIu64 "\">", y + FRAME_H - 4);
  add_dlabel(b, name, w);
  bpi_buf_adds(b, "</text></g>\n");
}

static void add_dframes(struct bp_buf *b, const struct dtree *t,
                        uint32_t node, uint64_t offset, uint64_t y)
{
  add_dframe(b, t, node, offset, y);
  for(uint32_t c = t->ft.nodes[node].first_child; c != BP_NONE;
      c = t->ft.nodes[c].next_sibling) {
    if(dvisible(t, c))
      add_dframes(b, t, c, offset, y - FRAME_H);
    offset += size_of(t, c);
  }
}

static const char style[] =
  "text { font-family: monospace; font-size: 12px; fill: #000; }\n"
  "#frames text { pointer-events: none; }\n"
  "#frames g { cursor: pointer; }\n"
  "#frames g:hover rect { stroke: #000; stroke-width: 0.5; }\n"
  "#frames rect { stroke: #ccc; stroke-width: 0.3; }\n"
  ".btn { cursor: pointer; fill: #0645ad; }\n"
  "#title { font-size: 16px; }\n";

/* The legend of an off-CPU graph by time: what the colours mean, and
 * the off-CPU noise band, always (it is all that keeps a frame white). */
static void add_off_legend(struct bp_buf *b, const struct dtree *t,
                           bool negated)
{
  bpi_buf_printf(b, "</text>\n<text x=\"600\" y=\"40\" "
                 "text-anchor=\"middle\">width: %s \xc2\xb5s off CPU; "
                 "red: longer waits per %s, blue: shorter; preempted time "
                 "(runnable, the machine's load) is never coloured</text>\n",
                 negated ? "base" : "head", cost_per(t));
  bpi_buf_adds(b, "<text x=\"600\" y=\"56\" text-anchor=\"middle\">");
  if(bpi_compare_band_wide(t->cost->band)) {
    bpi_buf_adds(b, "white: within the off-CPU noise, a change the "
                 "benchmark's own noise could make of a frame's base time (");
    bpi_compare_band_text(t->cost->band, b);
    bpi_buf_addc(b, ')');
    if(t->cost->band->basis == BP_CMP_BAND_INTERVAL)
      bpi_buf_adds(b, " or of all the waiting");
  }
  else if(t->cost->band && t->cost->band->measure)
    bpi_buf_printf(b, "no off-CPU noise band: %s's change is confirmed, "
                   "white only where the time is the same",
                   t->cost->band->measure);
  else
    bpi_buf_adds(b, "no off-CPU noise band: white only where the time is "
                 "the same");
  bpi_buf_adds(b, "</text>\n");
}

static void add_dheader(struct bp_buf *b, const struct dtree *t,
                        const char *title, bool negated, uint64_t height)
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
               "text-anchor=\"middle\">Differential flame graph: ");
  bpi_buf_xml_text(b, title ? title : "");
  if(t->cost && t->cost->off_cpu)
    add_off_legend(b, t, negated);
  else if(t->cost) {
    const char *ev = t->cost->event ? t->cost->event : "the sampled event";
    bpi_buf_adds(b, " (");
    bpi_buf_xml_text(b, ev);
    bpi_buf_printf(b, ")</text>\n<text x=\"600\" y=\"40\" "
                   "text-anchor=\"middle\">width: %s samples; red: more ",
                   negated ? "base" : "head");
    bpi_buf_xml_text(b, ev);
    bpi_buf_printf(b, " per %s, blue: less; white: within the noise "
                 "(Poisson interval of the counts, 99%% for all functions "
                 "together)</text>\n", cost_per(t));
    if(bpi_compare_band_wide(t->cost->band)) {
      bpi_buf_adds(b, "<text x=\"600\" y=\"56\" text-anchor=\"middle\">"
                   "white too: a change the benchmark's own noise could "
                   "make of a frame's base cost (");
      bpi_compare_band_text(t->cost->band, b);
      bpi_buf_adds(b, ")</text>\n");
    }
  }
  else
    bpi_buf_printf(b, "</text>\n<text x=\"600\" y=\"40\" "
                   "text-anchor=\"middle\">width: %s samples; red: share "
                   "grew, blue: share shrank</text>\n",
                   negated ? "base" : "head");
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

bp_code bpi_diffsvg_write(const struct bp_diff_line *lines, size_t n,
                          bool negated, const char *title,
                          struct bp_buf *out, struct bp_err *err)
{
  return bpi_diffsvg_write_cost(lines, n, negated, title, NULL, out, err);
}

bp_code bpi_diffsvg_write_cost(const struct bp_diff_line *lines, size_t n,
                               bool negated, const char *title,
                               const struct bp_diffsvg_cost *cost,
                               struct bp_buf *out, struct bp_err *err)
{
  struct dtree t = {.sized = negated ? 0 : 1, .cost = cost};
  bp_code rc = BP_OK;
  bpi_ftree_init(&t.ft);
  if(bpi_ftree_child(&t.ft, BP_NONE, "all", 3) != 0)
    t.ft.nomem = true;
  for(size_t i = 0; !t.ft.nomem && i < n; i++)
    add_line(&t, &lines[i]);
  if(!t.ft.nomem && cost && cost->off_cpu && !add_waits(&t, lines, n))
    t.ft.nomem = true;
  if(t.ft.nomem || !bpi_ftree_sort(&t.ft)) {
    rc = bpi_err_set(err, BPE_NOMEM, 0, "differential flame graph");
    goto out;
  }
  uint64_t depth = size_of(&t, 0) ? dvisible_depth(&t, 0) : 0;
  /* a line more in the header for the benchmark's noise band (off-CPU:
   * always, saying whether there is one) */
  uint64_t head_h = HEAD_H + (cost && (cost->off_cpu ||
                                       bpi_compare_band_wide(cost->band)) ?
                              BAND_H : 0);
  uint64_t height = head_h + (depth + 1) * FRAME_H + FOOT_H;
  add_dheader(out, &t, title, negated, height);
  bpi_buf_adds(out, "<g id=\"frames\">\n");
  if(size_of(&t, 0))
    add_dframes(out, &t, 0, 0, height - FOOT_H - FRAME_H);
  bpi_buf_adds(out, "</g>\n</svg>\n");
  if(bpi_buf_failed(out))
    rc = bpi_err_set(err, BPE_NOMEM, 0, "differential flame graph");
out:
  free(t.wait);
  bpi_ftree_cleanup(&t.ft);
  return rc;
}
