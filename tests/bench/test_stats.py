"""The harness's statistics and verdicts, on made-up repetitions: no
timing here.  `make check` runs it (tests/bench/stats.sh)."""
import math
import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness  # noqa: E402


def exact_coverage(n, k):
    """P(the k-th smallest <= median <= k-th largest) for a continuous
    distribution, by summing how many of n draws fall below the median."""
    return sum(math.comb(n, j) for j in range(k, n - k + 1)) / 2.0 ** n


class MedianCI(unittest.TestCase):
    def test_too_few(self):
        self.assertIsNone(harness.median_ci([1.0, 2.0, 3.0, 4.0, 5.0]))
        self.assertIsNone(harness.median_ci([]))

    def test_sign_test_ranks(self):
        # the published sign-test ranks for 95%: n=6 -> 1, 11 -> 2, 21 -> 6
        for n, k in ((6, 1), (11, 2), (21, 6), (41, 14)):
            ci = harness.median_ci([float(i) for i in range(n)])
            self.assertEqual((ci["lo"], ci["hi"]), (k - 1, n - k), n)
            self.assertAlmostEqual(ci["coverage"], exact_coverage(n, k))
            self.assertGreaterEqual(ci["coverage"], 0.95)
            # one rank further in would fall short of 95%
            self.assertLess(exact_coverage(n, k + 1), 0.95)

    def test_order_and_none_ignored(self):
        v = [5.0, None, 1.0, 4.0, 2.0, 3.0, 6.0]
        self.assertEqual(harness.median_ci(v)["lo"], 1.0)
        self.assertEqual(harness.median_ci(v)["hi"], 6.0)


def runs_from(pairs, key="work_wall"):
    return [{"a": {key: a}, "b": {key: b}} for a, b in pairs]


class Paired(unittest.TestCase):
    def test_below(self):
        r = runs_from([(0.97 + i * 0.001, 1.0) for i in range(11)])
        self.assertEqual(harness.paired(r, "a", "b", "work_wall")["verdict"], "below")

    def test_above(self):
        r = runs_from([(1.0, 0.97 + i * 0.001) for i in range(11)])
        self.assertEqual(harness.paired(r, "a", "b", "work_wall")["verdict"], "above")

    def test_tie_whichever_median_is_lower(self):
        # the median ratio is below 1, but two of eleven repetitions say
        # the other way round: the interval reaches past 1
        ratios = [0.97, 0.975, 0.98, 0.985, 0.99, 0.995, 0.996, 0.997, 0.998, 1.01, 1.02]
        c = harness.paired(runs_from([(x, 1.0) for x in ratios]), "a", "b", "work_wall")
        self.assertLess(c["median"], 1.0)
        self.assertEqual(c["verdict"], "tied")

    def test_per_repetition_not_pooled(self):
        # a slow repetition slows both sides: the ratio within each is what counts
        pairs = [(1.00 * s, 1.01 * s) for s in (1.0, 1.3, 0.9, 1.1, 1.5, 1.0, 1.2)]
        c = harness.paired(runs_from(pairs), "a", "b", "work_wall")
        self.assertEqual(c["verdict"], "below")

    def test_missing_values_skipped(self):
        r = runs_from([(0.98, 1.0)] * 6) + [{"a": {}, "b": {"work_wall": 1.0}}]
        self.assertEqual(harness.paired(r, "a", "b", "work_wall")["n"], 6)
        self.assertIsNone(harness.paired(r[:5], "a", "b", "work_wall"))


def overhead_results(bp_over_perf, n=11, tools_wobble=0.0):
    """Results with a cpu-2s overhead section: the workload takes 2 s
    alone, 2.04 s (times 1 +- tools_wobble, by repetition) under the
    floor and perf, and bp_over_perf(i) times perf's under benchprof;
    every tool idle during the run."""
    runs = []
    for i in range(n):
        noise = 1.0 + 0.01 * ((i * 7) % 5 - 2)  # other jobs' load, per repetition
        tools = 2.04 * (1.0 + tools_wobble * ((i * 3) % 5 - 2) / 2.0)
        rep = {}
        for m, wall in (("alone", 2.0), ("floor-fp", tools), ("perf-fp", tools),
                        ("floor-dwarf", tools), ("perf-dwarf", tools)):
            rep[m] = {"work_wall": wall * noise, "tool_cpu_during": 0.0001}
        for bp, perf in (("bp-fp", "perf-fp"), ("bp-auto", "perf-dwarf")):
            rep[bp] = {"work_wall": rep[perf]["work_wall"] * bp_over_perf(i),
                       "tool_cpu_during": 0.0001}
        runs.append(rep)
    names = list(runs[0])
    sec = {"runs": runs, "ratios": {}, "abs": {}}
    for m in names:
        sec["abs"][m] = {k: harness.summarize([r[m].get(k) for r in runs])
                         for k in ("work_wall", "tool_cpu_during")}
        if m != "alone":
            sec["ratios"]["%s/alone work_wall" % m] = harness.pairwise(
                runs, m, "alone", "work_wall")
    return {"sections": {"overhead": {"cpu-2s": sec}}}


def rows(results, what):
    h = harness.Harness.__new__(harness.Harness)
    h.results = results
    return [t for t in h.targets() if what in t["target"]]


def vs_perf_rows(results):
    return rows(results, "not above")


class FloorBandTarget(unittest.TestCase):
    def test_inside_the_floors_spread_but_slower_every_time(self):
        # 0.5% slower than the floor in each repetition: the median lies
        # inside the floor's min-max, yet the paired interval is above 1
        t = rows(overhead_results(lambda i: 1.005, tools_wobble=0.02), "noise band")
        self.assertEqual(len(t), 2)
        for row in t:
            self.assertFalse(row["met"], row)
            self.assertIn("slower", row["note"])

    def test_tied_with_the_floor_is_met(self):
        t = rows(overhead_results(lambda i: 1.0 + 0.004 * (i % 3 - 1), tools_wobble=0.02),
                 "noise band")
        for row in t:
            self.assertTrue(row["met"], row)
            self.assertIn("tied:", row["note"])


class NotAbovePerfTarget(unittest.TestCase):
    def test_tie_is_met_and_says_so(self):
        # as often slower as faster: at the kernel's floor that is a tie,
        # and a tie is not a loss
        rows = vs_perf_rows(overhead_results(lambda i: 1.001 + 0.01 * (i % 2) - 0.005))
        self.assertEqual(len(rows), 2)
        for t in rows:
            self.assertTrue(t["met"], t)
            self.assertIn("tied:", t["note"])

    def test_faster_in_every_repetition_is_met(self):
        for t in vs_perf_rows(overhead_results(lambda i: 0.985 + 0.001 * (i % 3))):
            self.assertTrue(t["met"], t)
            self.assertIn("faster", t["note"])

    def test_slower_is_not_met(self):
        for t in vs_perf_rows(overhead_results(lambda i: 1.02)):
            self.assertFalse(t["met"])
            self.assertIn("slower", t["note"])

    def test_few_repetitions_compare_medians_and_say_so(self):
        for t in vs_perf_rows(overhead_results(lambda i: 0.99, n=5)):
            self.assertTrue(t["met"])
            self.assertIn("too few repetitions", t["note"])


def artifacts_1m(ratios):
    """Results with a dwarf 1M time-to-artifacts section whose pairs give
    perf/benchprof the given ratios (benchprof 1 s each)."""
    runs = [{"bp-auto": {"to_artifacts": 1.0}, "perf-dwarf": {"to_artifacts": r}}
            for r in ratios]
    return {"sections": {"artifacts": {"dwarf-1000000": {
        "kind": "dwarf", "bp": "bp-auto", "perf": "perf-dwarf", "target": 1000000,
        "runs": runs, "ratios": {}}}}}


class Artifacts1MTarget(unittest.TestCase):
    def test_every_pair_above_is_met_with_min_max_coverage(self):
        [t] = rows(artifacts_1m([10.5, 12.0, 11.0]), "at 1M samples")
        self.assertTrue(t["met"], t)
        self.assertIn("75.0% interval", t["note"])
        self.assertIn("over 3 pairs", t["note"])
        self.assertIn("11.0x", t["measured"])

    def test_one_pair_below_is_undecided_not_met(self):
        # the median is above 10x, but one pair of three says otherwise
        [t] = rows(artifacts_1m([9.0, 12.0, 11.0]), "at 1M samples")
        self.assertFalse(t["met"], t)
        self.assertIn("undecided", t["note"])

    def test_all_below_is_not_met(self):
        [t] = rows(artifacts_1m([4.7, 5.0, 6.1]), "at 1M samples")
        self.assertFalse(t["met"])
        self.assertIn("below 10x", t["note"])

    def test_enough_pairs_use_the_sign_test_interval(self):
        # 11 pairs: the 95% interval drops the two extremes on each side,
        # so one slow pair no longer decides
        [t] = rows(artifacts_1m([8.0] + [11.0 + 0.1 * i for i in range(10)]),
                   "at 1M samples")
        self.assertTrue(t["met"], t)
        self.assertNotIn("min-max", t["note"])

    def test_one_pair_gives_no_verdict(self):
        [t] = rows(artifacts_1m([20.0]), "at 1M samples")
        self.assertFalse(t["met"])
        self.assertIn("no interval", t["note"])


def scale_targets(sections):
    rows = []
    harness.bench_scale.targets(
        sections, lambda name, value, ok, note="", tied=False: rows.append(
            {"target": name, "measured": value, "met": ok, "note": note}),
        harness.fmt)
    return rows


def publish_section(diffs, failed=0, spooled=0):
    return {"publish": {"benchmarks": 100, "runs": [],
                        "publish_s": harness.summarize(diffs),
                        "publish_ci": harness.median_ci(diffs),
                        "requests": harness.summarize([508] * len(diffs)),
                        "connections": harness.summarize([8] * len(diffs)),
                        "failed": failed, "spooled": spooled}}


class ScaleTargets(unittest.TestCase):
    def test_publish_within_target(self):
        [t] = scale_targets(publish_section([4.0 + 0.01 * i for i in range(11)]))
        self.assertTrue(t["met"])
        self.assertIn("508", t["measured"])
        self.assertIn("confidence interval", t["note"])

    def test_publish_interval_above_target_is_not_met(self):
        [t] = scale_targets(publish_section([6.0 + 0.01 * i for i in range(11)]))
        self.assertFalse(t["met"])

    def test_publish_left_in_spool_is_not_met(self):
        [t] = scale_targets(publish_section([1.0] * 3, spooled=1))
        self.assertFalse(t["met"])

    def test_fixed_cost_paired_verdict(self):
        runs = [{"default": {"wall": 1.0 + 0.001 * i}, "alone": {"wall": 1.0}}
                for i in range(11)]
        sec = {"fixed": {"cpu-0.7s": {
            "base": "alone", "target": 1.03, "runs": runs,
            "ratio": harness.pairwise(runs, "default", "alone", "wall"),
            "paired": harness.paired(runs, "default", "alone", "wall")}}}
        [t] = scale_targets(sec)
        self.assertTrue(t["met"])
        for r in runs:
            r["default"]["wall"] += 0.05
        sec["fixed"]["cpu-0.7s"]["ratio"] = harness.pairwise(runs, "default", "alone",
                                                             "wall")
        sec["fixed"]["cpu-0.7s"]["paired"] = harness.paired(runs, "default", "alone",
                                                            "wall")
        [t] = scale_targets(sec)
        self.assertFalse(t["met"])

    def test_fixed_cost_names_a_target_below_the_bare_sampler(self):
        """Against the workload alone, the note says when the bare sampler
        with small rings already costs more than the target."""
        def section(floor_small):
            runs = [{"default": {"wall": 1.06 + 0.001 * i},
                     "floor_small": {"wall": floor_small + 0.001 * i},
                     "alone": {"wall": 1.0}} for i in range(11)]
            return {"fixed": {"cpu-0.7s": {
                "base": "alone", "target": 1.03, "runs": runs,
                "ratio": harness.pairwise(runs, "default", "alone", "wall"),
                "paired": harness.paired(runs, "default", "alone", "wall"),
                "floor_small_paired": harness.paired(runs, "floor_small", "alone",
                                                     "wall")}}}
        [t] = scale_targets(section(1.04))
        self.assertFalse(t["met"])
        self.assertIn("below the kernel's own cost", t["note"])
        [t] = scale_targets(section(1.01))
        self.assertNotIn("below the kernel's own cost", t["note"])
        self.assertIn("2 MiB rings, costs 1.01", t["note"])


class ScaleDoc(unittest.TestCase):
    DOC = ("# benchprof performance\n\n## Targets (issue 8)\n\n| kept |\n\n"
           "<!-- bench:publish -->\nold publish figures\n<!-- /bench:publish -->\n\n"
           "## Method\n\nkept too\n")

    def test_only_scale_rows(self):
        self.assertTrue(harness.bench_scale.only_scale(publish_section([1.0])))
        both = dict(publish_section([1.0]), overhead={})
        self.assertFalse(harness.bench_scale.only_scale(both))
        self.assertFalse(harness.bench_scale.only_scale({}))

    def test_only_1m_rows_of_the_time_to_artifacts(self):
        one_m = {"artifacts": {"dwarf-1000000": {"target": 1000000}}}
        self.assertTrue(harness.bench_scale.only_scale(one_m))
        self.assertTrue(harness.bench_scale.only_1m(one_m))
        mixed = {"artifacts": {"dwarf-1000000": {"target": 1000000},
                               "dwarf-100000": {"target": 100000}}}
        self.assertFalse(harness.bench_scale.only_scale(mixed))
        text = harness.bench_scale.replace_block(self.DOC, "artifacts-1m",
                                                 "<!-- bench:artifacts-1m -->\nnew\n"
                                                 "<!-- /bench:artifacts-1m -->")
        self.assertIn("old publish figures", text)
        self.assertLess(text.index("\nnew\n"), text.index("## Method"))

    def test_splice_replaces_only_the_rows_run(self):
        sec = publish_section([4.0 + 0.01 * i for i in range(11)])
        sec["_ran"] = {"publish": "2026-12-02 04:00 UTC"}
        text = harness.bench_scale.splice(self.DOC, sec, harness.fmt)
        self.assertNotIn("old publish figures", text)
        self.assertIn("| kept |", text)
        self.assertIn("kept too", text)
        self.assertEqual(text.count("<!-- bench:publish -->"), 1)
        self.assertIn("| yes (", text)  # its target, with its verdict
        self.assertIn("Measured 2026-12-02 04:00 UTC.", text)
        self.assertLess(text.index("<!-- /bench:publish -->"), text.index("## Method"))

    def test_splice_adds_a_new_block_before_method(self):
        sec = {"many": {"benchmarks": 10, "runs": [], "failed": 0,
                        "end_to_end": harness.summarize([12.0, 13.0]),
                        "end_to_end_ci": None,
                        "run_s": harness.summarize([10.0, 11.0]),
                        "compare_s": harness.summarize([2.0, 2.0]),
                        "alone_s": harness.summarize([0.1, 0.1])}}
        text = harness.bench_scale.splice(self.DOC, sec, harness.fmt)
        self.assertIn("old publish figures", text)
        i = text.index("<!-- bench:many -->")
        self.assertLess(i, text.index("## Method"))
        self.assertIn("**no**", text[i:])


if __name__ == "__main__":
    unittest.main()
